import EddyCore
import EddyStore

/// Reads the alert candidates a core's `.loadAlertCandidates` effect asks for, from the engine's store: server reports
/// (own ones younger than the query's exclusion excluded by the store) and own reports of the history window, in a
/// circle of look-ahead + refresh distance + 10 NM and the layer band ± the refresh slack.
enum AlertCandidateLoader {
    /// The candidates for `query` around `position`.
    static func load(store: EddyStore, query: AlertQuery, position: AlertPosition,
                     history: HistoryWindow) throws -> [AlertCandidate] {
        let slack = query.layerBand + AlertCandidates.layerSlack
        let lower = max(QueryLimits.lowestAltitudeFeet / 1000, position.layer - slack) * 1000
        let upper = min(QueryLimits.highestAltitudeFeet / 1000, position.layer + slack) * 1000
        guard lower <= upper else { return [] }
        let ring = EngineGeometry.circle(latitude: position.latitudeDegrees, longitude: position.longitudeDegrees,
                                         radiusNM: query.lookAheadNM + AlertCandidates.refreshDistanceNM + 10)
        let area = QueryArea.polygon(ring)
        let minimum = max(query.minimumSeverity, .light)
        let range = lower...upper
        let serverSelection: ReportSelection = query.excludeOwnSeconds > 0
            ? .serverExcludingOwn(timeSpanSeconds: min(query.excludeOwnSeconds, HistoryWindow.sixHours.seconds)) : .server
        let server = TurbulenceQuery(area: area, altitudeRangeFeet: range, historyWindow: history, minimumSeverity: minimum,
                                     viewer: query.viewerClass, selection: serverSelection, now: position.time)
        let own = TurbulenceQuery(area: area, altitudeRangeFeet: range, historyWindow: history, minimumSeverity: minimum,
                                  viewer: query.viewerClass, selection: .own(timeSpanSeconds: history.seconds),
                                  now: position.time)
        return try store.turbulence(server).map { AlertCandidate(report: $0.report, origin: .server) }
            + store.turbulence(own).map { AlertCandidate(report: $0.report, origin: .own) }
    }

    /// The candidates a core asked for.
    static func load(store: EddyStore, _ request: AlertCandidateRequest) throws -> [AlertCandidate] {
        try load(store: store, query: request.query, position: request.position, history: request.history)
    }
}
