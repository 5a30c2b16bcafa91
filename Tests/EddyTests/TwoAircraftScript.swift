import EddyAlerts
import EddyH3
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Aircraft B's side of the two-aircraft scenario: its route towards the area aircraft A reported, and the exact
/// callback sequences it must produce. The loopback scenario (`TwoAircraftScenarioTests`, a real server) and the pure
/// core's test (`EngineCoreTests`, scripted sync events) both use it, so both check the same sequences.
///
///   1. four layers above A's layer, heading at the area from 130 NM to 90 NM  → no alert (> 2 layers away);
///   2. three layers lower (A's layer + 1), turned parallel to A's track, the area abeam → no alert (outside the beam);
///   3. turned direct to the area, 90 → 75 NM                                   → exactly one alert: A's tiles;
///   then aircraft C reports a severe tile between B and the area;
///   4. straight on, 75 → 60 NM                                                  → one new alert (C's tile new);
///   5. turned around                                                            → one cleared alert;
///   6. descent (the server unreachable from 60 s to 360 s into it), landing, 7 min taxi → low power on;
///   7. take-off                                                                  → low power off.
struct TwoAircraftScript {
    static let knotsToMetersPerSecond = 1852.0 / 3600

    /// Centre of A's turbulent tiles.
    let area: Geodesy.Point
    /// A's layer.
    let layerA: Int
    /// B's location-only route (1 Hz).
    let route: SyntheticRoute
    /// Leg boundaries, Unix seconds.
    let startB, leg3Start, leg4Start, leg5Start, leg6Start, landed, takeoff: Double

    init(area: Geodesy.Point, layerA: Int, now: Double) throws {
        self.area = area
        self.layerA = layerA
        let high = Double(layerA + 4) * 1000 + 500, inBand = Double(layerA + 1) * 1000 + 500
        let start = Geodesy.destination(from: area, bearingDegrees: 320, distanceNM: 130)
        startB = now - 3000
        var route = SyntheticRoute(startLatitude: start.latitude, startLongitude: start.longitude,
                                   startCourseDegrees: Geodesy.initialBearingDegrees(from: start, to: area),
                                   startEpochSeconds: startB)
            .cruise(altitudeFeet: high, speedKnots: 420, seconds: 343)                 // 1: 130 → 90 NM, 4 layers above
            .cruise(altitudeFeet: inBand, courseDegrees: 50, seconds: 60)              // 2: area abeam, in band
        leg3Start = route.endEpochSeconds
        let turnPoint = try #require(route.locations().last)
        route = route.cruise(courseDegrees: Geodesy.initialBearingDegrees(
            from: (turnPoint.latitudeDegrees, turnPoint.longitudeDegrees), to: area), seconds: 130)   // 3: direct
        leg4Start = route.endEpochSeconds
        route = route.cruise(seconds: 130)                                                 // 4: straight on
        leg5Start = route.endEpochSeconds
        let leg4End = try #require(route.locations().last)
        route = route.cruise(courseDegrees: Geodesy.normalizedDegrees((leg4End.courseDegrees ?? 0) + 180), seconds: 60)  // 5
        leg6Start = route.endEpochSeconds
        route = route.descent(toAltitudeFeet: 0, speedKnots: 160, seconds: 900)            // 6: descent (server outage)
            .landingRoll(toSpeedKnots: 15, fieldElevationFeet: 0, seconds: 30)
        landed = route.endEpochSeconds
        route = route.taxi(speedKnots: 15, seconds: 420)
        takeoff = route.endEpochSeconds
        self.route = route.takeoffClimb(toAltitudeFeet: 5000, speedKnots: 200, seconds: 120)   // 7: take-off
    }

    /// Whether C reports now (the first fix of leg 4).
    func cReports(at fix: LocationSample) -> Bool { fix.t >= leg4Start }
    /// Whether the server goes away now (60 s into the descent) and comes back now (360 s into it).
    func serverDown(at fix: LocationSample) -> Bool { fix.t >= leg6Start + 60 }
    func serverBack(at fix: LocationSample) -> Bool { fix.t >= leg6Start + 360 }

    /// C's severe tile as seen from B at `fix`: 8 NM from the area's centre towards B, in A's layer.
    func cTile(seenFrom fix: LocationSample) throws -> TileID {
        let point = Geodesy.destination(from: area, bearingDegrees: Geodesy.initialBearingDegrees(
            from: area, to: (fix.latitudeDegrees, fix.longitudeDegrees)), distanceNM: 8)
        return TileID(h3: try H3.latLngToCell(latitude: point.latitude, longitude: point.longitude, resolution: 5).rawValue,
                      layer: layerA)
    }

    /// Checks B's callbacks: exactly three alerts at these moments with these tiles (the clear a hold after the turn away), reachability [true, false, true],
    /// fetching status only on change in the shape fetching/idle…, fetching/failed…, fetching/idle…, low power on
    /// exactly 5 min after the first slow fix of the landing roll and off at the first fast take-off fix, no report.
    func expectSequences(_ callbacks: [(t: Double, callback: EddyCallback)], tilesA: Set<TileID>, cTile: TileID?) throws {
        let alerts = callbacks.compactMap { entry -> (t: Double, alert: EddyAlert)? in
            if case .didReceiveAlert(let a) = entry.callback { (entry.t, a) } else { nil }
        }
        try #require(alerts.count == 3, "alerts: \(alerts.map { ($0.t - startB, $0.alert.items.map(\.tile)) })")
        // The fix at a leg boundary may still carry the previous leg's course: the turn shows at that fix or the next.
        #expect(alerts[0].t >= leg3Start && alerts[0].t <= leg3Start + 1, "the first alert comes with the turn towards the area")
        #expect(Set(alerts[0].alert.items.map(\.tile)) == tilesA)
        #expect(alerts[0].alert.mode == .beam)
        #expect(alerts[0].alert.items.allSatisfy { $0.distanceNM <= 100 })
        #expect(alerts[0].alert.clusters.count == 1, "A's tiles form one cluster (60 / 30 NM)")
        let c = try #require(cTile)
        #expect(alerts[1].t > leg4Start && alerts[1].t < leg5Start, "C's report alerts after B's next fetch")
        #expect(alerts[1].alert.newOrWorse.contains(c))
        #expect(Set(alerts[1].alert.items.map(\.tile)) == tilesA.union([c]))
        #expect(alerts[1].alert.items.first { $0.tile == c }?.severity == .severe)
        // The clear is damped: it comes once the tiles have been out of the beam for the hold (docs/alerts.md "Damping").
        let hold = AlertMonitor.defaultHoldSeconds
        #expect(alerts[2].t >= leg5Start + hold - 1 && alerts[2].t <= leg5Start + hold + 1, "cleared at \(alerts[2].t - leg5Start) s into leg 5")
        #expect(alerts[2].alert.isCleared)

        // Reachability and fetching status: only on change, in this exact shape.
        let reachability = callbacks.compactMap { if case .serverReachabilityUpdated(let r) = $0.callback { r } else { nil } }
        #expect(reachability == [true, false, true])
        let statuses = callbacks.compactMap { entry -> String? in
            guard case .didUpdateFetchingStatus(let status, let areaType, let dataType) = entry.callback else { return nil }
            #expect(areaType == .route && dataType == .turbulence)
            return status.rawValue
        }
        let shape = statuses.joined(separator: " ")
        #expect(shape.range(of: #"^(fetching idle )+(fetching failed )+(fetching idle ?)+$"#, options: .regularExpression) != nil,
                "fetching status sequence: \(shape)")
        #expect(zip(statuses, statuses.dropFirst()).allSatisfy { $0 != $1 })

        // Low power: on after landing and 5 min slow, off at the next take-off. Exactly: 5 min after the first fix slower
        // than 30 kt on the landing roll, and at the first fix of the take-off roll that reaches 30 kt.
        let lowPower = callbacks.compactMap { entry -> (t: Double, on: Bool)? in
            if case .didUpdateLowPowerMode(let on) = entry.callback { (entry.t, on) } else { nil }
        }
        #expect(lowPower.map(\.on) == [true, false])
        let slow = 30 * Self.knotsToMetersPerSecond
        let firstSlow = try #require(route.first { $0.t > leg6Start && ($0.speedMetersPerSecond ?? 0) < slow }).t
        let firstFast = try #require(route.first { $0.t > takeoff && ($0.speedMetersPerSecond ?? 0) >= slow }).t
        #expect(firstSlow <= landed)
        if lowPower.count == 2 {
            #expect(lowPower[0].t == firstSlow + 300)
            #expect(lowPower[1].t == firstFast)
        }
        // B measured nothing (no accelerometer): nothing invented.
        #expect(!callbacks.contains { $0.callback.name == "detectedTurbulence" })
    }
}
