import EddyH3
import Foundation
import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

/// Shared builders for alert tests.
enum AlertFixtures {
    static let origin: Geodesy.Point = (47.0, 8.0)

    /// A report for the tile containing the point `distanceNM` from `from` on `bearingDegrees`.
    static func report(
        from: Geodesy.Point = origin, bearingDegrees: Double, distanceNM: Double, layer: Int = 35,
        edr: Double = 0.25, time: Double = 0, id: Int = 1
    ) -> TileReport {
        let p = Geodesy.destination(from: from, bearingDegrees: bearingDegrees, distanceNM: distanceNM)
        return report(at: p, layer: layer, edr: edr, time: time, id: id)
    }

    /// A report for the tile containing `p`.
    static func report(at p: Geodesy.Point, layer: Int = 35, edr: Double = 0.25, time: Double = 0, id: Int = 1) -> TileReport {
        let cell = try! H3.latLngToCell(latitude: p.latitude, longitude: p.longitude, resolution: TileID.h3Resolution)
        let uuid = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", id))!
        return TileReport(id: uuid, tile: TileID(h3: cell.rawValue, layer: layer), enterTime: time - 60,
                          exitTime: time, edrPeak: edr, edrMedian: edr / 2, reporterClass: .medium)
    }

    static func position(_ p: Geodesy.Point = origin, layer: Int = 35, track: Double? = 0, time: Double = 10_000) -> AlertPosition {
        AlertPosition(latitudeDegrees: p.latitude, longitudeDegrees: p.longitude, layer: layer, trackDegrees: track, time: time)
    }

    static func centre(_ tile: TileID) -> Geodesy.Point {
        let c = try! H3.cellToLatLng(H3Index(rawValue: tile.h3))
        return (c.latitude, c.longitude)
    }
}

@Suite("Geodesy")
struct AlertGeodesyTests {
    @Test("Distance and bearing on the equator and a meridian")
    func distanceBearing() {
        let oneDegreeNM = Geodesy.earthRadiusNM * .pi / 180
        #expect(abs(Geodesy.distanceNM(from: (0, 0), to: (0, 1)) - oneDegreeNM) < 1e-9)
        #expect(abs(oneDegreeNM - 60.04) < 0.01)
        #expect(abs(Geodesy.initialBearingDegrees(from: (0, 0), to: (0, 1)) - 90) < 1e-9)
        #expect(abs(Geodesy.initialBearingDegrees(from: (0, 0), to: (1, 0)) - 0) < 1e-9)
        #expect(abs(Geodesy.initialBearingDegrees(from: (0, 0), to: (-1, 0)) - 180) < 1e-9)
        #expect(abs(Geodesy.initialBearingDegrees(from: (0, 0), to: (0, -1)) - 270) < 1e-9)
        // London → New York, published great-circle ≈ 3,000 NM, initial bearing ≈ 288°.
        let lhr: Geodesy.Point = (51.4700, -0.4543), jfk: Geodesy.Point = (40.6413, -73.7781)
        #expect(abs(Geodesy.distanceNM(from: lhr, to: jfk) - 2_999) < 10)
        #expect(abs(Geodesy.initialBearingDegrees(from: lhr, to: jfk) - 288.1) < 0.5)
    }

    @Test("Destination inverts distance and bearing")
    func destinationRoundTrip() {
        for bearing in stride(from: 0.0, to: 360, by: 37) {
            let p = Geodesy.destination(from: (47, 8), bearingDegrees: bearing, distanceNM: 83)
            #expect(abs(Geodesy.distanceNM(from: (47, 8), to: p) - 83) < 1e-6)
            #expect(Geodesy.angleDifferenceDegrees(Geodesy.initialBearingDegrees(from: (47, 8), to: p), bearing) < 1e-6)
        }
    }

    @Test("Angle difference wraps around north")
    func angles() {
        #expect(Geodesy.angleDifferenceDegrees(355, 5) == 10)
        #expect(Geodesy.angleDifferenceDegrees(5, 355) == 10)
        #expect(Geodesy.angleDifferenceDegrees(0, 180) == 180)
        #expect(Geodesy.normalizedDegrees(-90) == 270)
    }

    @Test("Cross-track distance to a segment and a polyline, with ends and along-route position")
    func crossTrack() {
        let deg = Geodesy.earthRadiusNM * .pi / 180
        // Beside the middle of an equatorial segment: 1° of latitude away.
        let mid = Geodesy.segmentProjectionNM((1, 0.5), (0, 0), (0, 1))
        #expect(abs(mid.distanceNM - deg) < 1e-6)
        #expect(abs(mid.alongNM - 0.5 * deg) < 1e-6)
        // Behind the start and past the end: distance to the nearer end.
        let behind = Geodesy.segmentProjectionNM((0, -1), (0, 0), (0, 1))
        #expect(abs(behind.distanceNM - deg) < 1e-6 && behind.alongNM == 0)
        let past = Geodesy.segmentProjectionNM((0, 3), (0, 0), (0, 1))
        #expect(abs(past.distanceNM - 2 * deg) < 1e-6 && abs(past.alongNM - deg) < 1e-6)
        // L-shaped polyline: a point near the second leg projects onto it.
        let route: [Geodesy.Point] = [(0, 0), (0, 1), (1, 1)]
        let proj = Geodesy.polylineProjectionNM((0.5, 1.2), route)!
        #expect(abs(proj.distanceNM - Geodesy.distanceNM(from: (0.5, 1.2), to: (0.5, 1))) < 0.05)
        #expect(abs(proj.alongNM - 1.5 * deg) < 0.05)
        #expect(Geodesy.polylineProjectionNM((0, 0), [(0, 0)]) == nil)
    }
}

@Suite("AlertEvaluator")
struct AlertEvaluatorTests {
    typealias F = AlertFixtures

    @Test("Defaults are the DESIGN ones")
    func defaults() {
        let q = AlertQuery()
        #expect(q.minimumSeverity == .light && q.lookAheadNM == 100 && q.beamHalfAngleDegrees == 15)
        #expect(q.corridorHalfWidthNM == 20 && q.switchToBeamOffRouteNM == 20 && q.layerBand == 2)
        #expect(q.excludeOwnSeconds == 3600 && q.route == nil && q.viewerClass == .medium)
    }

    @Test("Beam: ahead within 100 NM alerts; beyond 100 NM, outside ±15° or behind does not")
    func beam() throws {
        let candidates = [
            AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 90, id: 1), origin: .server),
            AlertCandidate(report: F.report(bearingDegrees: 10, distanceNM: 50, id: 2), origin: .server),
            AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 112, id: 3), origin: .server),
            AlertCandidate(report: F.report(bearingDegrees: 28, distanceNM: 50, id: 4), origin: .server),
            AlertCandidate(report: F.report(bearingDegrees: 180, distanceNM: 40, id: 5), origin: .server),
        ]
        let result = try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(), candidates: candidates)
        #expect(result.mode == .beam)
        #expect(result.items.map(\.tile) == [candidates[1].report.tile, candidates[0].report.tile])
        let first = result.items[0]
        let c = F.centre(first.tile)
        #expect(abs(first.distanceNM - Geodesy.distanceNM(from: F.origin, to: c)) < 1e-9)
        #expect(abs(first.bearingDegrees - Geodesy.initialBearingDegrees(from: F.origin, to: c)) < 1e-9)
        #expect(first.severity == .moderate)
    }

    @Test("Beam follows the track, across north")
    func beamTrack() throws {
        let r = F.report(bearingDegrees: 355, distanceNM: 60)
        let c = [AlertCandidate(report: r, origin: .server)]
        #expect(try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(track: 5), candidates: c).items.count == 1)
        #expect(try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(track: 90), candidates: c).items.isEmpty)
        // Unknown track: full circle within the look-ahead.
        #expect(try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(track: nil), candidates: c).items.count == 1)
    }

    @Test("Layers: current ± 2 alert, 3 away do not")
    func layers() throws {
        let candidates = (32...38).map { layer in
            AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 60, layer: layer, id: layer), origin: .server)
        }
        let result = try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(layer: 35), candidates: candidates)
        #expect(result.items.map(\.tile.layer).sorted() == [33, 34, 35, 36, 37])
    }

    @Test("Severity for the viewer class against the minimum; smooth never alerts")
    func severityFilter() throws {
        let smooth = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 30, edr: 0.0, id: 1), origin: .server)
        let light = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 60, edr: 0.125, id: 2), origin: .server)
        var q = AlertQuery()
        q.minimumSeverity = .none
        #expect(try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [smooth, light]).items.map(\.tile)
                == [light.report.tile])
        q.minimumSeverity = .moderate
        #expect(try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [smooth, light]).items.isEmpty)
        // EDR 0.125 is light for a medium jet, moderate for a small aircraft (factor 0.6), none for a large one.
        q.minimumSeverity = .lightModerate
        q.viewerClass = .small
        #expect(try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [light]).items.first?.severity == .moderate)
        q.minimumSeverity = .light
        q.viewerClass = .large
        #expect(try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [light]).items.isEmpty)
    }

    @Test("Own reports younger than 60 min are excluded, older ones and server ones are kept")
    func ownExclusion() throws {
        let now = 10_000.0
        let ownRecent = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 30, time: now - 3599, id: 1), origin: .own)
        let ownOld = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 60, time: now - 3601, id: 2), origin: .own)
        let serverRecent = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 90, time: now - 10, id: 3), origin: .server)
        let result = try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(time: now),
                                                 candidates: [ownRecent, ownOld, serverRecent])
        #expect(result.items.map(\.tile) == [ownOld.report.tile, serverRecent.report.tile])
        var q = AlertQuery()
        q.maximumAgeSeconds = 600
        #expect(try AlertEvaluator.evaluate(query: q, position: F.position(time: now), candidates: [ownRecent, ownOld, serverRecent])
                .items.map(\.tile) == [serverRecent.report.tile])
    }

    @Test("One item per tile: its worst report")
    func worstPerTile() throws {
        let a = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 60, edr: 0.12, time: 5, id: 1), origin: .server)
        let b = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 60, edr: 0.35, time: 1, id: 2), origin: .server)
        let c = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 60, edr: 0.16, time: 9, id: 3), origin: .server)
        for order in [[a, b, c], [c, b, a], [b, a, c]] {
            let items = try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(), candidates: order).items
            #expect(items.count == 1)
            #expect(items.first?.candidate == b)
            #expect(items.first?.severity == .moderateSevere)
        }
    }

    @Test("Route corridor: within 20 NM of the route and ahead alerts even outside the beam; switches to beam when > 20 NM off route")
    func routeCorridor() throws {
        // Route north from the origin, then turning east after 50 NM.
        let turn = Geodesy.destination(from: F.origin, bearingDegrees: 0, distanceNM: 50)
        let end = Geodesy.destination(from: turn, bearingDegrees: 90, distanceNM: 200)
        let start = Geodesy.destination(from: F.origin, bearingDegrees: 180, distanceNM: 50)
        var q = AlertQuery()
        q.route = [start, turn, end].map { LatLng(latitude: $0.latitude, longitude: $0.longitude) }
        // On the second leg, 40 NM east of the turn: bearing from origin ≈ 39°, outside the beam, inside the corridor.
        let onLeg2 = AlertCandidate(report: F.report(from: turn, bearingDegrees: 90, distanceNM: 40, id: 1), origin: .server)
        // 35 NM off the second leg: outside the corridor.
        let offLeg2 = AlertCandidate(
            report: F.report(at: Geodesy.destination(from: Geodesy.destination(from: turn, bearingDegrees: 90, distanceNM: 40),
                                                     bearingDegrees: 0, distanceNM: 35), id: 2), origin: .server)
        // Behind along the route (south of the origin, on the route).
        let behind = AlertCandidate(report: F.report(bearingDegrees: 180, distanceNM: 30, id: 3), origin: .server)
        let result = try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [onLeg2, offLeg2, behind])
        #expect(result.mode == .routeCorridor)
        #expect(result.items.map(\.tile) == [onLeg2.report.tile])

        // 30 NM west of the route: beam mode (track north), so the second-leg report is outside the beam.
        let offRoute = Geodesy.destination(from: F.origin, bearingDegrees: 270, distanceNM: 30)
        let far = try AlertEvaluator.evaluate(query: q, position: F.position(offRoute), candidates: [onLeg2, offLeg2, behind])
        #expect(far.mode == .beam)
        #expect(far.items.isEmpty)
        // 15 NM off route: still corridor mode.
        let near = Geodesy.destination(from: F.origin, bearingDegrees: 270, distanceNM: 15)
        #expect(try AlertEvaluator.evaluate(query: q, position: F.position(near), candidates: [onLeg2]).mode == .routeCorridor)
    }

    @Test("Bad queries and positions give typed errors")
    func errors() {
        var q = AlertQuery()
        q.route = [LatLng(latitude: 47, longitude: 8)]
        #expect(throws: AlertQueryError.invalidRoute(pointCount: 1)) {
            try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [])
        }
        q = AlertQuery()
        q.lookAheadNM = -5
        #expect(throws: AlertQueryError.invalidValue(field: "lookAheadNM", value: -5)) {
            try AlertEvaluator.evaluate(query: q, position: F.position(), candidates: [])
        }
        q = AlertQuery()
        q.beamHalfAngleDegrees = 200
        #expect(throws: AlertQueryError.self) { try q.validate() }
        #expect(throws: AlertQueryError.invalidPosition(latitude: 95, longitude: 8)) {
            try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position((95, 8)), candidates: [])
        }
    }

    @Test("Order is nearest first and independent of input order")
    func deterministicOrder() throws {
        let candidates = (0..<8).map { i in
            AlertCandidate(report: F.report(bearingDegrees: Double(i % 3) * 4 - 4, distanceNM: 95 - Double(i) * 11, id: i),
                           origin: .server)
        }
        let a = try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(), candidates: candidates).items
        let b = try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(), candidates: candidates.reversed()).items
        #expect(a == b)
        #expect(a.count == 8)
        #expect(zip(a, a.dropFirst()).allSatisfy { $0.distanceNM <= $1.distanceNM })
    }
}

@Suite("AlertPosition")
struct AlertPositionTests {
    @Test("From a fix: pressure altitude preferred for the layer, course as track, nil without altitude")
    func fromFix() throws {
        let fix = LocationSample(t: 12, latitudeDegrees: 47, longitudeDegrees: 8, altitudeMeters: 10_000,
                                 courseDegrees: 270, pressureAltitudeFeet: 37_950, source: .adsb)
        let p = try #require(AlertPosition(fix: fix))
        #expect(p.layer == 37 && p.trackDegrees == 270 && p.time == 12 && p.latitudeDegrees == 47)
        let gnssOnly = LocationSample(t: 1, latitudeDegrees: 47, longitudeDegrees: 8, altitudeMeters: 3_048, courseDegrees: -1)
        let q = try #require(AlertPosition(fix: gnssOnly))
        #expect(q.layer == 10 && q.trackDegrees == nil)
        #expect(AlertPosition(fix: LocationSample(t: 1, latitudeDegrees: 47, longitudeDegrees: 8)) == nil)
    }
}
