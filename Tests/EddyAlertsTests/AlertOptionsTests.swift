import EddyH3
import Foundation
import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

/// Alert query options: time frame, alert polygon, the turbulence-polygon fallback and their validation.
@Suite("Alert options")
struct AlertOptionsTests {
    typealias F = AlertFixtures

    static func candidate(bearing: Double, distanceNM: Double, edr: Double = 0.25, id: Int = 1) -> AlertCandidate {
        AlertCandidate(report: F.report(bearingDegrees: bearing, distanceNM: distanceNM, edr: edr, time: 9_000, id: id), origin: .server)
    }

    static func moving(track: Double = 0, knots: Double? = 480) -> AlertPosition {
        AlertPosition(latitudeDegrees: F.origin.latitude, longitudeDegrees: F.origin.longitude, layer: 35, trackDegrees: track,
                      time: 10_000, groundSpeedKnots: knots)
    }

    /// A square ring of `halfSideNM` around the point `distanceNM` from the origin on `bearing`.
    static func square(bearing: Double, distanceNM: Double, halfSideNM: Double) -> [LatLng] {
        let c = Geodesy.destination(from: F.origin, bearingDegrees: bearing, distanceNM: distanceNM)
        return [45.0, 135, 225, 315].map { b in
            let p = Geodesy.destination(from: c, bearingDegrees: b, distanceNM: halfSideNM * 2.0.squareRoot())
            return LatLng(latitude: p.latitude, longitude: p.longitude)
        }
    }

    static func polygon(_ severity: Severity, layers: ClosedRange<Int> = 30...39, bearing: Double, distanceNM: Double,
                        halfSideNM: Double = 6) -> TurbulencePolygon {
        var ring = square(bearing: bearing, distanceNM: distanceNM, halfSideNM: halfSideNM)
        ring.append(ring[0])
        return TurbulencePolygon(severity: severity, layers: layers, rings: [ring], edrPeak: 0.3, tileCount: 4)
    }

    @Test("Time frame: only tiles reached within it at the current ground speed; none without a speed")
    func timeFrame() throws {
        let near = Self.candidate(bearing: 0, distanceNM: 25, id: 1), far = Self.candidate(bearing: 0, distanceNM: 70, id: 2)
        var query = AlertQuery()
        let all = try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [near, far])
        #expect(all.items.count == 2)
        // 480 kt = 8 NM/min: 300 s reaches 40 NM along the track.
        query.timeFrameSeconds = 300
        let within = try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [near, far])
        #expect(within.items.map(\.tile) == [near.report.tile])
        let item = try #require(within.items.first)
        let along = try #require(item.alongTrack)
        #expect(try #require(along.timeToReachSeconds) <= 300)
        #expect(abs(try #require(along.timeToReachSeconds) - along.distanceNM / 480 * 3600) < 1e-9)
        #expect(try AlertEvaluator.evaluate(query: query, position: Self.moving(knots: nil), candidates: [near, far]).items.isEmpty)
        query.timeFrameSeconds = 600   // 80 NM
        #expect(try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [near, far]).items.count == 2)
    }

    @Test("Alert polygon: tiles inside alert (behind too), tiles outside do not; mode is polygon")
    func polygonMode() throws {
        let inside = Self.candidate(bearing: 180, distanceNM: 30, id: 1)   // behind the aircraft
        let outside = Self.candidate(bearing: 0, distanceNM: 30, id: 2)    // ahead, in the beam
        var query = AlertQuery()
        query.polygon = Self.square(bearing: 180, distanceNM: 30, halfSideNM: 10)
        let result = try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [inside, outside])
        #expect(result.mode == .polygon)
        #expect(result.items.map(\.tile) == [inside.report.tile])
        #expect(result.items.first?.alongTrack == nil, "behind the aircraft: nothing along the track")
        #expect(result.source == .reports)
    }

    @Test("Validation: polygon size, vertices, route and polygon together, time frame")
    func validation() {
        var q = AlertQuery()
        q.polygon = [LatLng(latitude: 1, longitude: 1), LatLng(latitude: 2, longitude: 2), LatLng(latitude: 1, longitude: 1)]
        #expect(throws: AlertQueryError.invalidPolygon(pointCount: 2)) { try q.validate() }
        q.polygon = (0..<251).map { LatLng(latitude: sin(Double($0)) * 10, longitude: cos(Double($0)) * 10) }
        #expect(throws: AlertQueryError.polygonTooManyCoordinates(count: 251, maximum: 250)) { try q.validate() }
        q.polygon = (0..<250).map { LatLng(latitude: sin(Double($0) / 40) * 10, longitude: cos(Double($0) / 40) * 10) }
        #expect(throws: Never.self) { try q.validate() }
        q.polygon = [LatLng(latitude: 1, longitude: 1), LatLng(latitude: 95, longitude: 2), LatLng(latitude: 1, longitude: 3)]
        #expect(throws: AlertQueryError.invalidPolygonPoint(index: 1, LatLng(latitude: 95, longitude: 2))) { try q.validate() }
        q.polygon = Self.square(bearing: 0, distanceNM: 10, halfSideNM: 5)
        q.route = [LatLng(latitude: 47, longitude: 8), LatLng(latitude: 48, longitude: 8)]
        #expect(throws: AlertQueryError.routeAndPolygon) { try q.validate() }
        var t = AlertQuery()
        t.timeFrameSeconds = 0
        #expect(throws: AlertQueryError.invalidValue(field: "timeFrameSeconds", value: 0)) { try t.validate() }
        t.timeFrameSeconds = .nan
        #expect(throws: AlertQueryError.self) { try t.validate() }
    }

    @Test("Fallback: with no report in the area, a turbulence polygon ahead answers at the first sample inside it")
    func fallbackAhead() throws {
        let query = AlertQuery()
        let ahead = Self.polygon(.moderate, bearing: 0, distanceNM: 40)   // 34…46 NM ahead on the track
        let result = try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [], polygons: [ahead])
        #expect(result.items.isEmpty && result.source == .turbulencePolygons)
        let hit = try #require(result.polygonItems.first)
        #expect(hit.polygon == ahead)
        #expect(hit.distanceNM == 35, "first 5 NM sample inside the square starting at 34 NM")
        #expect(hit.bearingDegrees <= 15 || hit.bearingDegrees >= 345)
        // Behind the aircraft, in another layer band, or milder than the minimum: no fallback.
        let behind = Self.polygon(.moderate, bearing: 180, distanceNM: 40)
        let other = Self.polygon(.moderate, layers: 20...24, bearing: 0, distanceNM: 40)
        var strict = query
        strict.minimumSeverity = .moderateSevere
        #expect(try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [], polygons: [behind, other]).source == .none)
        #expect(try AlertEvaluator.evaluate(query: strict, position: Self.moving(), candidates: [], polygons: [ahead]).source == .none)
    }

    @Test("Fallback only where no report exists: a smooth report in the area answers (nothing alerts)")
    func reportsWinOverPolygons() throws {
        let smooth = Self.candidate(bearing: 0, distanceNM: 20, edr: 0.01)
        let ahead = Self.polygon(.moderate, bearing: 0, distanceNM: 40)
        let result = try AlertEvaluator.evaluate(query: AlertQuery(), position: Self.moving(), candidates: [smooth], polygons: [ahead])
        #expect(result.reportsInArea == 1 && result.items.isEmpty && result.polygonItems.isEmpty && result.source == .none)
        // A smooth report outside the beam does not count: the polygons answer.
        let aside = Self.candidate(bearing: 90, distanceNM: 20, edr: 0.01)
        let fallback = try AlertEvaluator.evaluate(query: AlertQuery(), position: Self.moving(), candidates: [aside], polygons: [ahead])
        #expect(fallback.source == .turbulencePolygons)
    }

    @Test("Monitor: a polygon fallback notifies once, again when its severity changes, then clears")
    func monitorPolygons() throws {
        var monitor = AlertMonitor(holdSeconds: 0)
        let query = AlertQuery()
        func evaluate(_ polygons: [TurbulencePolygon]) throws -> AlertEvaluation {
            try AlertEvaluator.evaluate(query: query, position: Self.moving(), candidates: [], polygons: polygons)
        }
        let moderate = Self.polygon(.moderate, bearing: 0, distanceNM: 40)
        let severe = Self.polygon(.severe, bearing: 0, distanceNM: 60)
        guard case .alert(let first, _)? = monitor.process(try evaluate([moderate]), at: 1) else { Issue.record("no alert"); return }
        #expect(first.polygonItems.count == 1)
        #expect(monitor.process(try evaluate([moderate]), at: 2) == nil)
        #expect(monitor.process(try evaluate([moderate, severe]), at: 3) != nil)
        #expect(monitor.process(try evaluate([]), at: 4) == .cleared)
    }
}
