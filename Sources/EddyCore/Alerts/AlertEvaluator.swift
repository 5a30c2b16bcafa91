import EddyH3
import Foundation

/// Finds the tiles that alert for an own position: pure geometry over candidate reports (docs/alerts.md).
package enum AlertEvaluator {
    /// Evaluates `candidates` for `position` under `query`; items nearest first, one per tile (its worst report).
    ///
    /// Mode: route corridor when the query has a route and the aircraft is within `switchToBeamOffRouteNM` of it,
    /// beam otherwise. Filters, in order: severity for the viewer ≥ max(minimum, light); own reports younger than
    /// `excludeOwnSeconds` dropped; reports older than `maximumAgeSeconds` dropped; layer within ± `layerBand`;
    /// tile centre within `lookAheadNM`; then beam (bearing within track ± half angle) or corridor (within the
    /// half-width of the route and not behind the aircraft along it).
    package static func evaluate(
        query: AlertQuery, position: AlertPosition, candidates: [AlertCandidate]
    ) throws(AlertQueryError) -> AlertEvaluation {
        try query.validate()
        guard position.latitudeDegrees.isFinite, position.longitudeDegrees.isFinite,
              abs(position.latitudeDegrees) <= 90, position.time.isFinite
        else { throw .invalidPosition(latitude: position.latitudeDegrees, longitude: position.longitudeDegrees) }

        let own: Geodesy.Point = (position.latitudeDegrees, position.longitudeDegrees)
        let route: [Geodesy.Point]? = query.route?.map { ($0.latitude, $0.longitude) }
        var ownAlong = 0.0
        var mode = AlertMode.beam
        if let route, let proj = Geodesy.polylineProjectionNM(own, route), proj.distanceNM <= query.switchToBeamOffRouteNM {
            mode = .routeCorridor
            ownAlong = proj.alongNM
        }
        let floorSeverity = max(query.minimumSeverity, .light)
        let track = position.trackDegrees.flatMap { $0.isFinite ? $0 : nil }

        var bestByTile: [TileID: AlertItem] = [:]
        for candidate in candidates {
            let severity = candidate.report.severity(for: query.viewerClass)
            guard severity >= floorSeverity else { continue }
            let age = position.time - candidate.time
            if candidate.origin == .own, age < query.excludeOwnSeconds { continue }
            if let maxAge = query.maximumAgeSeconds, age > maxAge { continue }
            guard abs(candidate.report.tile.layer - position.layer) <= query.layerBand else { continue }
            guard let centre = try? H3.cellToLatLng(H3Index(rawValue: candidate.report.tile.h3)) else { continue }
            let c: Geodesy.Point = (centre.latitude, centre.longitude)
            let distance = Geodesy.distanceNM(from: own, to: c)
            guard distance <= query.lookAheadNM else { continue }
            let bearing = Geodesy.initialBearingDegrees(from: own, to: c)
            switch mode {
            case .beam:
                if let track, Geodesy.angleDifferenceDegrees(bearing, track) > query.beamHalfAngleDegrees { continue }
            case .routeCorridor:
                guard let route, let proj = Geodesy.polylineProjectionNM(c, route),
                      proj.distanceNM <= query.corridorHalfWidthNM, proj.alongNM >= ownAlong
                else { continue }
            }
            let item = AlertItem(tile: candidate.report.tile, severity: severity, candidate: candidate,
                                 distanceNM: distance, bearingDegrees: bearing)
            if let existing = bestByTile[item.tile] {
                // Worst severity wins; on a tie the newer report, then the smaller id (deterministic).
                let better = (item.severity, item.candidate.time, existing.candidate.report.id.uuidString)
                    > (existing.severity, existing.candidate.time, item.candidate.report.id.uuidString)
                if better { bestByTile[item.tile] = item }
            } else {
                bestByTile[item.tile] = item
            }
        }
        let items = bestByTile.values.sorted {
            ($0.distanceNM, $0.tile) < ($1.distanceNM, $1.tile)
        }
        return AlertEvaluation(mode: mode, items: items)
    }
}
