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
        return try write(afterCommit: { (result: (summary: PurgeSummary, state: ObservationIndex.WriterState)) in
            index.install(result.state)
        }) { db in
            let current = try ObservationIndex.currentGeneration(db)
            var recent = try index.recentSnapshot(db, generation: current)
            // Rows to evict for the cap: the oldest (exit time, then id) of those that do not expire now.
            var capRowids: [Int64] = []
            if let cap {
                let projected = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM observation WHERE exit_time >= ?", arguments: [cutoff]) ?? 0
                if projected > cap {
                    capRowids = try Int64.fetchAll(db, sql: """
                        SELECT rowid FROM observation WHERE exit_time >= ? ORDER BY exit_time, id LIMIT ?
                        """, arguments: [cutoff, projected - cap])
                }
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
            // The same entries leave the index; every bucket is rewritten as one block, and the id filter is
            // rebuilt from what stays (so deleted ids stop costing false positives).
            let evicted = Set(capRowids)
            let expired = { (entry: ObservationIndex.Entry) in entry.exitTime < cutoff || evicted.contains(entry.rowid) }
            let filter = IDFilter()
            try ObservationIndex.rewriteBlocks(db, buckets: nil, removing: expired, filter: filter)
            recent.removeAll(where: expired)
            for entries in recent.cells.values {
                for entry in entries { filter.insert(high: entry.idHigh, low: entry.idLow) }
            }
            let state = ObservationIndex.WriterState(recent: recent, generation: try ObservationIndex.bumpGeneration(db), filter: filter)
            return (summary, state)
        }.summary
    }
}

extension EddyStore {
    /// Deletes everything fetched from the server (observations, nowcast, polygons, live flights, fleet altitude
    /// offsets, sync ticks) in one
    /// transaction, for the engine's `stop()`. Own reports are kept: pending ones still have to reach the server.
    package func clearFetchedData() throws(StoreError) {
        let index = observationIndex
        _ = try write(afterCommit: { (state: ObservationIndex.WriterState) in index.install(state) }) { db in
            for table in [
                "observation", "observation_block", "nowcast", "turbulence_polygon", "live_flight", "altitude_offset",
                "sync_state",
            ] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            return ObservationIndex.WriterState(
                recent: ObservationIndex.Recent(), generation: try ObservationIndex.bumpGeneration(db), filter: IDFilter())
        }
    }
}
