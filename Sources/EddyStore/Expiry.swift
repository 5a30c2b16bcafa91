import EddyVocabulary
import Foundation
import GRDB

extension EddyStore {
    /// Observations and sent own reports older than this (seconds before "now") are purged: the longest history window.
    package static let observationMaximumAgeSeconds: Double = HistoryWindow.sixHours.seconds

    /// Purges what has expired at `now` (Unix epoch seconds), in one transaction:
    /// server observations older than 6 h, sent own reports older than 6 h (pending ones never), nowcast cells past
    /// their validity, stale live flights, fleet altitude offsets whose newest observation is older than
    /// `altitudeOffsetMaximumAgeSeconds`, then — if `maximumObservationCount` is set — the oldest observations
    /// beyond the cap. The caller supplies `now`; the store never reads the clock.
    @discardableResult
    package func purgeExpired(now: Double) throws(StoreError) -> PurgeSummary {
        try checkFinite(now, what: "purgeExpired(now:)")
        let cutoff = now - Self.observationMaximumAgeSeconds
        let cap = options.maximumObservationCount
        let liveFlightCutoff = now - options.liveFlightMaximumAgeSeconds
        let offsetCutoff = now - options.altitudeOffsetMaximumAgeSeconds
        if let cap, cap < 0 { throw StoreError.invalidArgument("maximumObservationCount must be ≥ 0, got \(cap)") }
        let index = observationIndex
        return try write(afterCommit: { (result: (summary: PurgeSummary, evicted: Set<Int64>, generation: Int64)) in
            index.remove(newGeneration: result.generation) { $0.exitTime < cutoff || result.evicted.contains($0.rowid) }
        }) { db in
            try index.refresh(db)
            // Rows to evict for the cap, chosen from the index (oldest first) on the writer.
            var capRowids: [Int64] = []
            if let cap {
                let projected = index.count - index.countOlder(than: cutoff)
                if projected > cap { capRowids = index.oldest(projected - cap, notOlderThan: cutoff).map(\.rowid) }
            }
            var summary = PurgeSummary()
            try db.execute(sql: "DELETE FROM observation WHERE exit_time < ?", arguments: [cutoff])
            summary.observations = db.changesCount
            try db.execute(sql: "DELETE FROM own_report WHERE status = 1 AND exit_time < ?", arguments: [cutoff])
            summary.sentOwnReports = db.changesCount
            try db.execute(sql: "DELETE FROM nowcast WHERE valid_time <= ?", arguments: [now - NowcastCell.validitySeconds])
            summary.nowcastCells = db.changesCount
            try db.execute(sql: "DELETE FROM live_flight WHERE time < ?", arguments: [liveFlightCutoff])
            summary.liveFlights = db.changesCount
            try db.execute(sql: "DELETE FROM altitude_offset WHERE newest_time < ?", arguments: [offsetCutoff])
            summary.altitudeOffsets = db.changesCount
            if !capRowids.isEmpty {
                try db.execute(
                    sql: "DELETE FROM observation WHERE rowid IN (SELECT value FROM json_each(?))",
                    arguments: ["[" + capRowids.map(String.init).joined(separator: ",") + "]"])
                summary.observationsOverCap = db.changesCount
            }
            return (summary, Set(capRowids), try ObservationIndex.bumpGeneration(db))
        }.summary
    }
}

extension EddyStore {
    /// Deletes everything fetched from the server (observations, nowcast, polygons, live flights, fleet altitude
    /// offsets, sync ticks) in one
    /// transaction, for the engine's `stop()`. Own reports are kept: pending ones still have to reach the server.
    package func clearFetchedData() throws(StoreError) {
        let index = observationIndex
        _ = try write(afterCommit: { (generation: Int64) in
            index.remove(newGeneration: generation) { _ in true }
        }) { db in
            try index.refresh(db)
            for table in ["observation", "nowcast", "turbulence_polygon", "live_flight", "altitude_offset", "sync_state"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            return try ObservationIndex.bumpGeneration(db)
        }
    }
}
