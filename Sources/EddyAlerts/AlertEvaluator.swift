import EddyH3
import EddySupport
import EddyVocabulary
import Foundation

/// Finds the tiles that alert for an own position: pure geometry over candidate reports (docs/alerts.md).
package enum AlertEvaluator {
    /// Evaluates `candidates` for `position` under `query`; items nearest first, one per tile (its worst report).
    ///
    /// Mode: polygon when the query has an alert polygon; route corridor when it has a route and the aircraft is
    /// within `switchToBeamOffRouteNM` of it; beam otherwise. Filters, in order: own reports younger than
    /// `excludeOwnSeconds` dropped; reports older than `maximumAgeSeconds` dropped; layer within ± `layerBand`;
    /// tile centre within `lookAheadNM`; then beam (bearing within track ± half angle), corridor (within the
    /// half-width of the route and not behind the aircraft along it) or polygon (centre inside it). Reports that
    /// pass these count as "in the area"; of them, those with severity for the viewer ≥ max(minimum, light) alert,
    /// and with a `timeFrameSeconds` only those reached (along the track) within it. When no report at all is in the
    /// area, `turbulencePolygons` answer instead (`fallback`).
    package static func evaluate(
        query: AlertQuery, position: AlertPosition, candidates: [AlertCandidate], polygons: [TurbulencePolygon] = []
    ) throws(AlertQueryError) -> AlertEvaluation {
        try query.validate()
        guard position.latitudeDegrees.isFinite, position.longitudeDegrees.isFinite,
              abs(position.latitudeDegrees) <= 90, position.time.isFinite
        else { throw .invalidPosition(latitude: position.latitudeDegrees, longitude: position.longitudeDegrees) }

        let own: Geodesy.Point = (position.latitudeDegrees, position.longitudeDegrees)
        let area = Area(query: query, position: position)
        let floorSeverity = max(query.minimumSeverity, .light)
        let motion = position.motion

        var inArea = 0
        var bestByTile: [TileID: AlertItem] = [:]
        for candidate in candidates {
            let age = position.time - candidate.time
            if candidate.origin == .own, age < query.excludeOwnSeconds { continue }
            if let maxAge = query.maximumAgeSeconds, age > maxAge { continue }
            guard abs(candidate.report.tile.layer - position.layer) <= query.layerBand else { continue }
            guard let centre = try? H3.cellToLatLng(H3Index(rawValue: candidate.report.tile.h3)) else { continue }
            let c: Geodesy.Point = (centre.latitude, centre.longitude)
            let distance = Geodesy.distanceNM(from: own, to: c)
            guard distance <= query.lookAheadNM else { continue }
            let bearing = Geodesy.initialBearingDegrees(from: own, to: c)
            guard area.contains(c, bearing: bearing) else { continue }
            inArea += 1
            let severity = candidate.report.severity(for: query.viewerClass)
            guard severity >= floorSeverity else { continue }
            // Alert items were chosen by the beam, corridor or polygon: along the track needs no corridor of its own.
            let along = AlongTrackGeometry.relation(tile: candidate.report.tile, motion: motion, corridorHalfWidthNM: .infinity)
            if let frame = query.timeFrameSeconds {
                guard let reach = along?.timeToReachSeconds, reach <= frame else { continue }
            }
            let item = AlertItem(tile: candidate.report.tile, severity: severity, candidate: candidate,
                                 distanceNM: distance, bearingDegrees: bearing, alongTrack: along)
            if let existing = bestByTile[item.tile] {
                // Worst severity wins; on a tie a measurement over a pilot report over a forecast, then the newer report,
                // then the smaller id (deterministic).
                let better = (item.severity, Self.rank(item.provenance), item.candidate.time, existing.candidate.report.id.uuidString)
                    > (existing.severity, Self.rank(existing.provenance), existing.candidate.time, item.candidate.report.id.uuidString)
                if better { bestByTile[item.tile] = item }
            } else {
                bestByTile[item.tile] = item
            }
        }
        let items = bestByTile.values.sorted {
            ($0.distanceNM, $0.tile) < ($1.distanceNM, $1.tile)
        }
        let fallback = inArea == 0 && !polygons.isEmpty ? Self.fallback(query: query, position: position, area: area, polygons: polygons) : []
        return AlertEvaluation(mode: area.mode, items: items, reportsInArea: inArea, polygonItems: fallback)
    }

    /// How much a provenance is trusted when severities tie: fleet measured 2, pilot report 1, forecast 0.
    static func rank(_ provenance: TurbulenceProvenance) -> Int {
        switch provenance {
        case .fleetMeasured: 2
        case .pilotReport: 1
        case .forecast: 0
        }
    }

    /// The alert area of a query at a position: its mode and membership test.
    struct Area {
        let mode: AlertMode
        let query: AlertQuery
        let track: Double?
        let route: [Geodesy.Point]?
        let ownAlong: Double

        init(query: AlertQuery, position: AlertPosition) {
            self.query = query
            track = position.trackDegrees.flatMap { $0.isFinite ? $0 : nil }
            let own: Geodesy.Point = (position.latitudeDegrees, position.longitudeDegrees)
            let route: [Geodesy.Point]? = query.route?.map { ($0.latitude, $0.longitude) }
            self.route = route
            if query.polygon != nil {
                mode = .polygon; ownAlong = 0
            } else if let route, let proj = Geodesy.polylineProjectionNM(own, route), proj.distanceNM <= query.switchToBeamOffRouteNM {
                mode = .routeCorridor; ownAlong = proj.alongNM
            } else {
                mode = .beam; ownAlong = 0
            }
        }

        /// Whether a point (within the look-ahead distance, at `bearing` from the aircraft) is in the area.
        func contains(_ c: Geodesy.Point, bearing: Double) -> Bool {
            switch mode {
            case .beam:
                guard let track else { return true }
                return Geodesy.angleDifferenceDegrees(bearing, track) <= query.beamHalfAngleDegrees
            case .routeCorridor:
                guard let route, let proj = Geodesy.polylineProjectionNM(c, route) else { return false }
                return proj.distanceNM <= query.corridorHalfWidthNM && proj.alongNM >= ownAlong
            case .polygon:
                guard let polygon = query.polygon else { return false }
                return PlanarPolygon.contains(polygon, c)
            }
        }
    }

    /// Radial step of the alert-area sampling of the polygon fallback, NM.
    package static let fallbackStepNM = 5.0
    /// Angular step of the sampling, degrees (halved inside a beam).
    package static let fallbackStepDegrees = 5.0

    /// The polygon fallback: the alert area is sampled (the own position, then every `fallbackStepNM` out to the
    /// look-ahead distance on bearings `fallbackStepDegrees` apart, 2.5° inside a beam); a turbulence polygon at
    /// least as severe as the minimum, whose layer band overlaps the aircraft's layer ± `layerBand`, alerts when a
    /// sample lies inside it. Nearest sample first.
    static func fallback(query: AlertQuery, position: AlertPosition, area: Area, polygons: [TurbulencePolygon]) -> [PolygonAlertItem] {
        let floorSeverity = max(query.minimumSeverity, .light)
        let band = (position.layer - query.layerBand)...(position.layer + query.layerBand)
        let relevant = polygons.filter { $0.severity >= floorSeverity && $0.layers.overlaps(band) }
        guard !relevant.isEmpty else { return [] }
        let own: Geodesy.Point = (position.latitudeDegrees, position.longitudeDegrees)
        var bearings: [Double] = []
        if area.mode == .beam, let track = area.track {
            let half = query.beamHalfAngleDegrees
            let n = min(10_000, Int(saturating: 2 * half / (fallbackStepDegrees / 2), rounding: .up))
            bearings = (0...max(1, n)).map { track - half + 2 * half * Double($0) / Double(max(1, n)) }
        } else {
            bearings = stride(from: 0.0, to: 360, by: fallbackStepDegrees).map { $0 }
        }
        var samples: [(point: Geodesy.Point, distance: Double, bearing: Double)] = []
        if area.mode != .polygon || area.contains(own, bearing: 0) { samples.append((own, 0, area.track ?? 0)) }
        var distance = fallbackStepNM
        while distance <= query.lookAheadNM + 1e-9 {
            for bearing in bearings {
                let p = Geodesy.destination(from: own, bearingDegrees: bearing, distanceNM: distance)
                let b = Geodesy.normalizedDegrees(bearing)
                if area.contains(p, bearing: b) { samples.append((p, distance, b)) }
            }
            distance += fallbackStepNM
        }
        var items: [PolygonAlertItem] = []
        for polygon in relevant {
            if let hit = samples.first(where: { polygon.contains($0.point) }) {
                items.append(PolygonAlertItem(polygon: polygon, distanceNM: hit.distance, bearingDegrees: hit.bearing))
            }
        }
        return items.sorted { ($0.distanceNM, -$0.polygon.severity.rawValue) < ($1.distanceNM, -$1.polygon.severity.rawValue) }
    }
}
