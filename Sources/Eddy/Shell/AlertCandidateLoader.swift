import EddyAlerts
import EddyStore
import EddyVocabulary

/// Reads the alert candidates a core's `.loadAlertCandidates` effect asks for, from the engine's store: server reports
/// (the server's copies of own reports left out) and own reports of the history window, in a
/// circle of look-ahead + refresh distance + 10 NM and the layer band ± the refresh slack.
enum AlertCandidateLoader {
    /// The candidates for `query` around `position`.
    static func load(store: EddyStore, query: AlertQuery, position: AlertPosition,
                     history: HistoryWindow) throws(StoreError) -> [AlertCandidate] {
        let slack = query.layerBand + AlertCandidates.layerSlack
        let lower = max(QueryLimits.lowestAltitudeFeet / 1000, position.layer - slack) * 1000
        let upper = min(QueryLimits.highestAltitudeFeet / 1000, position.layer + slack) * 1000
        guard lower <= upper else { return [] }
        let ring = EngineGeometry.circle(latitude: position.latitudeDegrees, longitude: position.longitudeDegrees,
                                         radiusNM: query.lookAheadNM + AlertCandidates.refreshDistanceNM + 10)
        let area = QueryArea.polygon(ring)
        // Every severity: the evaluator counts reports in the alert area (smooth ones too) to decide whether the
        // turbulence-polygon fallback applies, and filters severities itself.
        let minimum = Severity.none
        let range = lower...upper
        // The server's copies of own reports are left out over the whole window: the own table holds them, and the
        // evaluator judges them as own (exclusion span from the report or the last visit of its tile).
        let server = TurbulenceQuery(area: area, altitudeRangeFeet: range, historyWindow: history, minimumSeverity: minimum,
                                     viewer: query.viewerClass, selection: .serverExcludingOwn(timeSpanSeconds: history.seconds),
                                     now: position.time)
        let own = TurbulenceQuery(area: area, altitudeRangeFeet: range, historyWindow: history, minimumSeverity: minimum,
                                  viewer: query.viewerClass, selection: .own(timeSpanSeconds: history.seconds),
                                  now: position.time)
        let nowcast = (0...QueryLimits.maximumForecastHour).map { hour in
            NowcastQuery(forecastHour: hour, area: area, altitudeRangeFeet: range, viewer: query.viewerClass, now: position.time)
        }
        // One snapshot, the circle covered once for all of them.
        let results = try store.turbulenceAndNowcast([server, own], nowcast)
        return results.turbulence[0].map { AlertCandidate(report: $0.report, origin: .server) }
            + results.turbulence[1].map { AlertCandidate(report: $0.report, origin: .own) }
            + nowcastCandidates(cellsByForecastHour: results.nowcast, now: position.time)
    }

    /// The candidates a core asked for.
    static func load(store: EddyStore, _ request: AlertCandidateRequest) throws(StoreError) -> [AlertCandidate] {
        try load(store: store, query: request.query, position: request.position, history: request.history)
    }

    /// The cached turbulence polygons of the history window at or above the query's minimum (the alert fallback).
    /// A set whose GeoJSON does not decode is left out (the fallback must not stop report alerts); a store failure
    /// throws.
    static func polygons(store: EddyStore, query: AlertQuery, history: HistoryWindow) throws(StoreError) -> [TurbulencePolygon] {
        try store.turbulencePolygons(historyWindow: history, minimumSeverity: max(query.minimumSeverity, .light))
            .flatMap { (try? EngineQueries.polygons(of: $0)) ?? [] }
    }
}
