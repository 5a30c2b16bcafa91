import EddyClock
import EddyCore
import EddyH3
import EddyProtocol
import EddySimulation
import EddyStore
import EddySync
import EddyTesting
import Foundation
import Testing
@testable import Eddy

/// The engine's acceptance scenario: two aircraft against a real `eddy-server` on loopback.
///
/// A flies a simulated medium-jet flight (50 Hz accelerometer + gyro) through 2 min of EDR 0.35 and uploads its tiles.
/// B, later, flies a location-only route (1 Hz) towards that area while monitoring alerts:
///   1. four layers above A's layer, heading at the area from 130 NM to 90 NM  → no alert (> 2 layers away);
///   2. three layers lower (A's layer + 1), turned parallel to A's track, the area abeam → no alert (outside the beam);
///   3. turned direct to the area, 90 → 75 NM                                   → exactly one alert: A's tiles;
///   then aircraft C uploads a severe report between B and the area;
///   4. straight on, 75 → 60 NM                                                  → one new alert (C's tile new);
///   5. turned around                                                            → one cleared alert;
///   6. descent (the server is killed for 5 min and restarted), landing, 7 min taxi → low power on;
///   7. take-off                                                                  → low power off.
/// B's `serverReachabilityUpdated` is exactly [true, false, true]; its `didUpdateFetchingStatus` alternates
/// fetching → idle until the outage, fetching → failed during it, fetching → idle after it: only real changes.
@Suite(.serialized) struct TwoAircraftScenarioTests {
    static let knotsToMetersPerSecond = 1852.0 / 3600

    @Test func aircraftBIsAlertedOnceForAsTurbulenceAheadAndOnlyOnChange() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let now = Date().timeIntervalSince1970.rounded(.down)
        let environment = EddyEnvironment.local(port: server.port)

        // Aircraft A: detection through the engine, uploads.
        let engineA = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("a.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        let logA = CallbackRecorder(engineA)
        try engineA.startNow(apiKey: server.apiKey, airline: "DAL", userId: "aircraft-A", environment: environment)
        try engineA.setAircraft(designator: "B738")
        let scenarioA = FlightScenario(
            aircraftClass: .medium,
            segments: [TurbulenceSegment(edr: 0, durationSeconds: 240), TurbulenceSegment(edr: 0.35, durationSeconds: 120),
                       TurbulenceSegment(edr: 0, durationSeconds: 240)],
            startLatitude: 40.64, startLongitude: -73.78, courseDegrees: 50, seed: 11)
        for sample in FlightSimulator.simulate(scenarioA).samples.mergedSamples() { engineA.push(shifted(sample, by: now - 5400)) }
        engineA.finishDetection()
        engineA.syncNow()
        #expect(try engineA.store.outboxCounts().pending == 0, "A uploaded every tile")
        let reportsA = logA.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
        let turbulentA = reportsA.filter { $0.report.severity(for: .medium) >= .light }
        try #require(!turbulentA.isEmpty, "A felt the EDR 0.35 segment")
        #expect(turbulentA.contains { $0.severity >= .moderate })
        let layerA = turbulentA[0].report.tile.layer
        #expect(turbulentA.allSatisfy { $0.report.tile.layer == layerA })
        let centres = try turbulentA.map { try H3.cellToLatLng(H3Index(rawValue: $0.report.tile.h3)) }
        let area: Geodesy.Point = (centres.map(\.latitude).reduce(0, +) / Double(centres.count),
                                   centres.map(\.longitude).reduce(0, +) / Double(centres.count))

        // Aircraft B: location only, alerts monitored, sync on flight time. B does not upload its position, so every
        // request it makes is a fetch and the outage shows in the fetching status (a failed position upload would
        // otherwise close the back-off gate before the due fetch is tried).
        var configurationB = EddyConfiguration(storePath: folder.path("b.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configurationB.positionUploadIntervalSeconds = .infinity
        let engineB = try EddyEngine(configuration: configurationB)
        let logB = CallbackRecorder(engineB)
        try engineB.startNow(apiKey: server.apiKey, airline: "DAL", userId: "aircraft-B", environment: environment)
        try engineB.setAircraft(designator: "A320")
        engineB.updateFrequency = .fast
        try engineB.startMonitoringAlerts(with: AlertQuery())

        let high = Double(layerA + 4) * 1000 + 500, inBand = Double(layerA + 1) * 1000 + 500
        let start = Geodesy.destination(from: area, bearingDegrees: 320, distanceNM: 130)
        let startB = now - 3000
        var route = SyntheticRoute(startLatitude: start.latitude, startLongitude: start.longitude,
                                   startCourseDegrees: Geodesy.initialBearingDegrees(from: start, to: area),
                                   startEpochSeconds: startB)
            .cruise(altitudeFeet: high, speedKnots: 420, seconds: 343)                 // 1: 130 → 90 NM, 4 layers above
            .cruise(altitudeFeet: inBand, courseDegrees: 50, seconds: 60)              // 2: area abeam, in band
        let leg3Start = route.endEpochSeconds
        let turnPoint = try #require(route.locations().last)
        route = route.cruise(courseDegrees: Geodesy.initialBearingDegrees(
            from: (turnPoint.latitudeDegrees, turnPoint.longitudeDegrees), to: area), seconds: 130)   // 3: direct
        let leg4Start = route.endEpochSeconds
        route = route.cruise(seconds: 130)                                                 // 4: straight on
        let leg5Start = route.endEpochSeconds
        let leg4End = try #require(route.locations().last)
        route = route.cruise(courseDegrees: Geodesy.normalizedDegrees((leg4End.courseDegrees ?? 0) + 180), seconds: 60)  // 5
        let leg6Start = route.endEpochSeconds
        route = route.descent(toAltitudeFeet: 0, speedKnots: 160, seconds: 900)            // 6: descent (server outage)
            .landingRoll(toSpeedKnots: 15, fieldElevationFeet: 0, seconds: 30)
        let landed = route.endEpochSeconds
        route = route.taxi(speedKnots: 15, seconds: 420)
        let takeoff = route.endEpochSeconds
        route = route.takeoffClimb(toAltitudeFeet: 5000, speedKnots: 200, seconds: 120)   // 7: take-off

        var cUploaded = false, killed = false, restarted = false
        var cTile: TileID?
        for fix in route {
            if !cUploaded && fix.t >= leg4Start {
                // Aircraft C reports severe turbulence 8 NM from the area's centre towards B, in A's layer.
                let point = Geodesy.destination(from: area, bearingDegrees: Geodesy.initialBearingDegrees(
                    from: area, to: (fix.latitudeDegrees, fix.longitudeDegrees)), distanceNM: 8)
                let tile = TileID(h3: try H3.latLngToCell(latitude: point.latitude, longitude: point.longitude, resolution: 5).rawValue,
                                  layer: layerA)
                cTile = tile
                let clientC = SyncClient(
                    transport: try CurlTransport(configuration: TransportConfiguration(baseURL: server.baseURL)),
                    identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "aircraft-C"), clock: SystemEpochClock())
                let ack = try clientC.upload([TileReport(
                    id: UUID(), tile: tile, enterTime: fix.t - 120, exitTime: fix.t - 60, edrPeak: 0.6, edrMedian: 0.5,
                    reporterClass: .medium)])
                #expect(ack.acceptedIds.count == 1)
                cUploaded = true
            }
            if !killed && fix.t >= leg6Start + 60 { server.kill(); killed = true }
            if killed && !restarted && fix.t >= leg6Start + 360 { try server.start(); restarted = true }
            engineB.push(.location(fix))
        }
        #expect(restarted)

        // Alerts: exactly three, each on a change.
        let alerts = logB.all.compactMap { timed -> (t: Double, alert: EddyAlert)? in
            if case .didReceiveAlert(let a) = timed.callback { (timed.t, a) } else { nil }
        }
        try #require(alerts.count == 3, "alerts: \(alerts.map { ($0.t - startB, $0.alert.items.map(\.tile)) })")
        let tilesA = Set(turbulentA.map(\.report.tile))
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
        #expect(alerts[2].t >= leg5Start && alerts[2].t <= leg5Start + 1)
        #expect(alerts[2].alert.isCleared)

        // Reachability and fetching status: only on change, in this exact shape.
        let reachability = logB.callbacks.compactMap { if case .serverReachabilityUpdated(let r) = $0 { r } else { nil } }
        #expect(reachability == [true, false, true])
        let statuses = logB.callbacks.compactMap { callback -> String? in
            guard case .didUpdateFetchingStatus(let status, let areaType, let dataType) = callback else { return nil }
            #expect(areaType == .route && dataType == .turbulence)
            return status.rawValue
        }
        let shape = statuses.joined(separator: " ")
        #expect(shape.range(of: #"^(fetching idle )+(fetching failed )+(fetching idle ?)+$"#, options: .regularExpression) != nil,
                "fetching status sequence: \(shape)")
        #expect(zip(statuses, statuses.dropFirst()).allSatisfy { $0 != $1 })

        // Low power: on after landing and 5 min slow, off at the next take-off.
        let lowPower = logB.all.compactMap { timed -> (t: Double, on: Bool)? in
            if case .didUpdateLowPowerMode(let on) = timed.callback { (timed.t, on) } else { nil }
        }
        #expect(lowPower.map(\.on) == [true, false])
        // Exactly: 5 min after the first fix slower than 30 kt on the landing roll, and at the first fix of the take-off
        // roll that reaches 30 kt.
        let slow = 30 * Self.knotsToMetersPerSecond
        let firstSlow = try #require(route.first { $0.t > leg6Start && ($0.speedMetersPerSecond ?? 0) < slow }).t
        let firstFast = try #require(route.first { $0.t > takeoff && ($0.speedMetersPerSecond ?? 0) >= slow }).t
        #expect(firstSlow <= landed)
        if lowPower.count == 2 {
            #expect(lowPower[0].t == firstSlow + 300)
            #expect(lowPower[1].t == firstFast)
        }
        // B measured nothing (no accelerometer): no own reports, nothing invented.
        #expect(logB.named("detectedTurbulence").isEmpty)
        #expect(try engineB.store.outboxCounts().pending == 0)
    }
}
