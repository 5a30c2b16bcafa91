import EddyCore
import Foundation
import GRDB

extension EddyStore {
    /// Observations and sent own reports older than this (seconds before "now") are purged: the longest history window.
    public static let observationMaximumAgeSeconds: Double = HistoryWindow.sixHours.seconds

    /// Purges what has expired at `now` (Unix epoch seconds), in one transaction:
    /// server observations older than 6 h, sent own reports older than 6 h (pending ones never), nowcast cells past
    /// their validity, stale live flights, then — if `maximumObservationCount` is set — the oldest observations
    /// beyond the cap. The caller supplies `now`; the store never reads the clock.
    @discardableResult
    public func purgeExpired(now: Double) throws -> PurgeSummary {
        try checkFinite(now, what: "purgeExpired(now:)")
        let cutoff = now - Self.observationMaximumAgeSeconds
        let cap = options.maximumObservationCount
        let liveFlightCutoff = now - options.liveFlightMaximumAgeSeconds
        if let cap, cap < 0 { throw StoreError.invalidArgument("maximumObservationCount must be ≥ 0, got \(cap)") }
        return try write { db in
            var summary = PurgeSummary()
            try db.execute(sql: "DELETE FROM observation WHERE exit_time < ?", arguments: [cutoff])
            summary.observations = db.changesCount
            try db.execute(sql: "DELETE FROM own_report WHERE status = 1 AND exit_time < ?", arguments: [cutoff])
            summary.sentOwnReports = db.changesCount
            try db.execute(sql: "DELETE FROM nowcast WHERE valid_time <= ?", arguments: [now - NowcastCell.validitySeconds])
            summary.nowcastCells = db.changesCount
            try db.execute(sql: "DELETE FROM live_flight WHERE time < ?", arguments: [liveFlightCutoff])
            summary.liveFlights = db.changesCount
            if let cap {
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM observation") ?? 0
                if count > cap {
                    // Oldest first by report time, ties broken by id so the eviction is deterministic.
                    try db.execute(sql: """
                        DELETE FROM observation WHERE id IN (
                            SELECT id FROM observation ORDER BY exit_time, id LIMIT ?)
                        """, arguments: [count - cap])
                    summary.observationsOverCap = db.changesCount
                }
            }
            return summary
        }
    }
}
