package import EddyVocabulary
package import Foundation
import GRDB
import GRDBSQLite

/// SQLite's "copy the bytes now" destructor for bind calls.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Binds and steps the observation insert with the C API: the hot path of ingest (GRDB's per-row argument
/// boxing cost about a third of the ingest time). `statement` has the 14 parameters of the INSERT below (the last is
/// the rowid).
private func insertObservationRow(_ statement: Statement, _ observation: ServerObservation, rowid: Int64, db: Database) throws {
    let handle = statement.sqliteStatement
    let report = observation.report
    // The first failing bind's code (no array per row: ingest binds every report).
    var failure = SQLITE_OK
    func note(_ code: CInt) { if failure == SQLITE_OK { failure = code } }
    note(withUnsafeBytes(of: report.id.uuid) { raw in sqlite3_bind_blob(handle, 1, raw.baseAddress, 16, sqliteTransient) })
    note(sqlite3_bind_int64(handle, 2, report.tile.h3.storeInt))
    note(sqlite3_bind_int64(handle, 3, Int64(report.tile.layer)))
    note(sqlite3_bind_double(handle, 4, report.enterTime))
    note(sqlite3_bind_double(handle, 5, report.exitTime))
    note(sqlite3_bind_double(handle, 6, report.edrPeak))
    note(sqlite3_bind_double(handle, 7, report.edrMedian))
    note(sqlite3_bind_text(handle, 8, report.reporterClass.rawValue, -1, sqliteTransient))
    note(sqlite3_bind_text(handle, 9, observation.reporterID, -1, sqliteTransient))
    note(sqlite3_bind_text(handle, 10, observation.source, -1, sqliteTransient))
    note(report.altitudeSource.map { sqlite3_bind_text(handle, 11, $0.rawValue, -1, sqliteTransient) } ?? sqlite3_bind_null(handle, 11))
    note(report.altitudeU90Feet.map { sqlite3_bind_double(handle, 12, $0) } ?? sqlite3_bind_null(handle, 12))
    note(report.layerUncertain.map { sqlite3_bind_int64(handle, 13, $0 ? 1 : 0) } ?? sqlite3_bind_null(handle, 13))
    note(sqlite3_bind_int64(handle, 14, rowid))
    if failure != SQLITE_OK {
        throw DatabaseError(resultCode: ResultCode(rawValue: failure), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }
    let step = sqlite3_step(handle)
    sqlite3_reset(handle)
    guard step == SQLITE_DONE else {
        throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }
}

// MARK: - Value conversions shared by writes and reads

extension UUID {
    /// The 16 bytes of the UUID, as stored in `id` columns.
    var storeBlob: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// A UUID from a 16-byte `id` column; nil for any other length.
    init?(storeBlob data: Data) {
        guard data.count == 16 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { target in data.withUnsafeBytes { target.copyMemory(from: $0) } }
        self.init(uuid: bytes)
    }
}

extension UInt64 {
    /// The H3 index as stored in `h3` columns (H3 indexes are < 2^63, so the bit pattern is a positive Int64).
    var storeInt: Int64 { Int64(bitPattern: self) }
}

func checkFinite(_ values: Double..., what: @autoclosure () -> String) throws(StoreError) {
    for value in values where !value.isFinite {
        throw StoreError.invalidArgument("\(what()) has a non-finite number (\(value))")
    }
}

func validate(_ report: TileReport) throws(StoreError) {
    // The plain test first: ingest validates every report, and the message (the id's text) is built only for a bad one.
    if !(report.enterTime.isFinite && report.exitTime.isFinite && report.edrPeak.isFinite && report.edrMedian.isFinite) {
        try checkFinite(report.enterTime, report.exitTime, report.edrPeak, report.edrMedian, what: "report \(report.id)")
    }
    if let u90 = report.altitudeU90Feet, !(u90.isFinite && u90 >= 0) {
        throw StoreError.invalidArgument("report \(report.id) has an altitude uncertainty (u90) that is not a finite number ≥ 0 ft (\(u90))")
    }
}

// MARK: - Own-report outbox

extension EddyStore {
    /// Stores the engine's own reports in the outbox as pending; durable when the call returns.
    /// Idempotent: a report whose id is already stored is left as it is (a sent report stays sent).
    /// Returns how many reports were new.
    @discardableResult
    package func insertOwnReports(_ reports: [TileReport]) throws(StoreError) -> Int {
        for report in reports { try validate(report) }
        return try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO own_report (id, h3, layer, enter_time, exit_time, edr_peak, edr_median, reporter_class,
                    altitude_source, altitude_u90_ft, layer_uncertain, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (id) DO NOTHING
                """)
            var inserted = 0
            for report in reports {
                try statement.execute(arguments: [
                    report.id.storeBlob, report.tile.h3.storeInt, report.tile.layer, report.enterTime, report.exitTime,
                    report.edrPeak, report.edrMedian, report.reporterClass.rawValue,
                    report.altitudeSource?.rawValue, report.altitudeU90Feet, report.layerUncertain,
                ])
                inserted += db.changesCount
            }
            return inserted
        }
    }

    /// Own reports still waiting for the server's acknowledgement, oldest first (at most `limit`).
    package func pendingOwnReports(limit: Int? = nil) throws(StoreError) -> [TileReport] {
        if let limit, limit < 0 { throw StoreError.invalidArgument("limit must be ≥ 0, got \(limit)") }
        return try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(reportColumns) FROM own_report WHERE status = 0 ORDER BY exit_time, id LIMIT ?
                """, arguments: [limit ?? -1])
            return try rows.map { try decodeReport($0, table: "own_report") }
        }
    }

    /// Marks own reports as acknowledged by the server (unknown ids are ignored). Returns how many changed.
    @discardableResult
    package func markOwnReportsSent(ids: [UUID]) throws(StoreError) -> Int {
        try write { db in
            let statement = try db.cachedStatement(sql: "UPDATE own_report SET status = 1 WHERE id = ? AND status = 0")
            var changed = 0
            for id in ids {
                try statement.execute(arguments: [id.storeBlob])
                changed += db.changesCount
            }
            return changed
        }
    }

    /// How many own reports are pending and sent.
    package func outboxCounts() throws(StoreError) -> OutboxCounts {
        try read { db in
            let pending = try Int.fetchOne(db, sql: "SELECT count(*) FROM own_report WHERE status = 0") ?? 0
            let sent = try Int.fetchOne(db, sql: "SELECT count(*) FROM own_report WHERE status = 1") ?? 0
            return OutboxCounts(pending: pending, sent: sent)
        }
    }

    /// Whether an own report with this id is stored (pending or sent).
    package func containsOwnReport(id: UUID) throws(StoreError) -> Bool {
        try read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM own_report WHERE id = ?", arguments: [id.storeBlob]) ?? false }
    }

    /// The latest exit time (Unix seconds) among stored own reports (pending and sent) whose exit time lies in
    /// `range`; nil when none does. A replay resumed after a kill restarts detection there (docs/reliability.md).
    package func latestOwnReportExitTime(in range: ClosedRange<Double>) throws(StoreError) -> Double? {
        try read { db in
            try Double.fetchOne(db, sql: "SELECT max(exit_time) FROM own_report WHERE exit_time BETWEEN ? AND ?",
                                arguments: [range.lowerBound, range.upperBound])
        }
    }

    /// The ids of every stored own report (pending and sent).
    package func ownReportIDs() throws(StoreError) -> Set<UUID> {
        try read { db in
            var ids = Set<UUID>()
            let cursor = try Data.fetchCursor(db, sql: "SELECT id FROM own_report")
            while let blob = try cursor.next() {
                guard let id = UUID(storeBlob: blob) else {
                    throw StoreError.undecodableRow(table: "own_report", detail: "id is \(blob.count) bytes, not 16")
                }
                ids.insert(id)
            }
            return ids
        }
    }
}

// MARK: - Server data

extension EddyStore {
    /// Upserts server observations in one transaction, idempotent by report id: a report re-sent by the server
    /// (same id; its tile is a fact about it and never changes) replaces the stored copy's values.
    ///
    /// Rows are appended to the observation log with `synchronous = NORMAL`: a crash of the app never loses a
    /// returned batch; a power cut may lose the last batches but never corrupts the file, and the next FULL write
    /// (own reports, sync state) makes everything before it durable. The new entries join the index's recent part;
    /// when it would exceed its limit it is flushed to blocks in the same transaction.
    package func upsertObservations(_ observations: [ServerObservation]) throws(StoreError) {
        for observation in observations { try validate(observation.report) }
        let index = observationIndex
        _ = try writeRelaxed(afterCommit: { (change: ObservationIndex.Change) in index.apply(change) }) { db in
            // Another instance or process may have written since the recent entries were loaded.
            let current = try ObservationIndex.currentGeneration(db)
            let recent = try index.recentSnapshot(db, generation: current)
            let filter = try index.writerFilter(db, generation: current, recent: recent)
            var nextRowid = try ObservationIndex.nextLogRowid(db)
            let insert = try db.makeStatement(sql: """
                INSERT INTO observation
                    (id, h3, layer, enter_time, exit_time, edr_peak, edr_median, reporter_class, reporter_id, source,
                     altitude_source, altitude_u90_ft, layer_uncertain, rowid)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let update = try db.cachedStatement(sql: """
                UPDATE observation SET layer = ?, enter_time = ?, exit_time = ?, edr_peak = ?, edr_median = ?,
                    reporter_class = ?, reporter_id = ?, source = ?, altitude_source = ?, altitude_u90_ft = ?,
                    layer_uncertain = ? WHERE rowid = ?
                """)
            var change = ObservationIndex.Change()
            change.inserted.reserveCapacity(observations.count)
            // Ids new in this batch → position in `change.inserted` (a batch may repeat an id).
            var newInBatch: [UUID: Int] = [:]
            // Entries already flushed that this batch changes: block rowid → (entry rowid → new entry).
            var blockEdits: [Int64: [Int64: ObservationIndex.Entry]] = [:]
            for observation in observations {
                let report = observation.report
                let halves = report.id.halves
                let cell = report.tile.h3
                var entry = ObservationIndex.Entry(
                    rowid: 0, exitTime: report.exitTime, enterTime: report.enterTime, edrPeak: report.edrPeak,
                    edrMedian: report.edrMedian, idHigh: halves.high, idLow: halves.low,
                    altitudeU90Feet: report.altitudeU90Feet ?? .nan, layer: Int32(clamping: report.tile.layer),
                    reporterClass: ObservationIndex.Entry.code(report.reporterClass),
                    altitudeSource: ObservationIndex.Entry.code(report.altitudeSource),
                    layerUncertain: ObservationIndex.Entry.code(report.layerUncertain))
                // Stored already? In this batch, among the recent entries of its cell, else — when the filter says it
                // may be — in the blocks of its cell's bucket.
                var existingRowid: Int64?
                var batchPosition: Int?
                var inRecent = false
                var block: Int64?
                if let position = newInBatch[report.id], change.inserted[position].cell == cell {
                    batchPosition = position
                    existingRowid = change.inserted[position].entry.rowid
                } else if let stored = recent.cells[cell]?.first(where: { $0.idHigh == halves.high && $0.idLow == halves.low }) {
                    inRecent = true
                    existingRowid = stored.rowid
                } else if filter.mayContain(high: halves.high, low: halves.low),
                          let found = try ObservationIndex.findInBlocks(db, cell: cell, idHigh: halves.high, idLow: halves.low) {
                    block = found.block
                    existingRowid = found.entry.rowid
                }
                if let rowid = existingRowid {
                    update.setUncheckedArguments([
                        report.tile.layer, report.enterTime, report.exitTime, report.edrPeak, report.edrMedian,
                        report.reporterClass.rawValue, observation.reporterID, observation.source,
                        report.altitudeSource?.rawValue, report.altitudeU90Feet, report.layerUncertain, rowid,
                    ])
                    try update.execute()
                    entry.rowid = rowid
                    if let batchPosition { change.inserted[batchPosition].entry = entry }
                    if inRecent { change.updated.append((cell, entry)) }
                    if let block { blockEdits[block, default: [:]][rowid] = entry }
                } else {
                    try insertObservationRow(insert, observation, rowid: nextRowid, db: db)
                    entry.rowid = nextRowid
                    nextRowid += 1
                    newInBatch[report.id] = change.inserted.count
                    change.inserted.append((cell, entry))
                    filter.insert(high: halves.high, low: halves.low)
                }
            }
            try ObservationIndex.applyBlockEdits(blockEdits, db)
            if recent.count + change.inserted.count > index.recentLimit {
                // Flush everything recent (with this batch's changes) to blocks, in this transaction.
                var all = recent
                for (cell, entry) in change.updated {
                    if let position = all.cells[cell]?.firstIndex(where: { $0.rowid == entry.rowid }) { all.cells[cell]?[position] = entry }
                }
                for (cell, entry) in change.inserted { all.append(cell: cell, entry) }
                try ObservationIndex.flush(all, throughRowid: nextRowid - 1, db)
                change = ObservationIndex.Change(flushed: true)
            }
            change.generation = try ObservationIndex.bumpGeneration(db)
            return change
        }
    }

    /// Deletes server observations by id (e.g. the server retracted them). Returns how many were deleted.
    /// Rare, so there is no index on id: this scans the log (≈ 0.1–0.3 s per million cached reports).
    @discardableResult
    package func deleteObservations(ids: [UUID]) throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        let index = observationIndex
        return try writeRelaxed(afterCommit: { (result: (deleted: Int, state: ObservationIndex.WriterState)) in
            index.install(result.state)
        }) { db in
            let current = try ObservationIndex.currentGeneration(db)
            // The id filter keeps the deleted ids (a false positive costs one bucket read): still valid if it was.
            var recent = try index.recentSnapshot(db, generation: current)
            var rowids = Set<Int64>()
            var buckets = Set<Int64>()
            var start = 0
            while start < ids.count {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(
                    db, sql: "DELETE FROM observation WHERE id IN (\(marks)) RETURNING rowid, h3",
                    arguments: StatementArguments(chunk.map { $0.storeBlob }))
                for row in rows {
                    rowids.insert(row[0])
                    buckets.insert(ObservationIndex.bucket(of: UInt64(bitPattern: row[1] as Int64)))
                }
                start += chunk.count
            }
            recent.removeAll { rowids.contains($0.rowid) }
            try ObservationIndex.rewriteBlocks(db, buckets: buckets.sorted(), removing: { rowids.contains($0.rowid) })
            return (rowids.count, ObservationIndex.WriterState(recent: recent, generation: try ObservationIndex.bumpGeneration(db), filter: nil))
        }.deleted
    }

    /// Number of cached server observations.
    package func observationCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM observation") ?? 0 }
    }

    /// Upserts nowcast cells (one row per forecast hour × tile; a newer issue replaces an older one).
    package func upsertNowcast(_ cells: [NowcastCell]) throws(StoreError) {
        for cell in cells {
            try checkFinite(cell.validTime, cell.edr, cell.issueTime, what: "nowcast cell \(cell.tile.h3String)/\(cell.tile.layer)")
            if cell.forecastHour < 0 { throw StoreError.invalidArgument("nowcast forecast hour must be ≥ 0, got \(cell.forecastHour)") }
        }
        try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO nowcast (h3, layer, valid_time, forecast_hour, edr, issue_time, provenance) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (forecast_hour, h3, layer) DO UPDATE SET
                    valid_time = excluded.valid_time, edr = excluded.edr, issue_time = excluded.issue_time,
                    provenance = excluded.provenance
                WHERE excluded.issue_time >= nowcast.issue_time
                """)
            for cell in cells {
                try statement.execute(arguments: [
                    cell.tile.h3.storeInt, cell.tile.layer, cell.validTime, cell.forecastHour, cell.edr, cell.issueTime,
                    cell.provenance.rawValue,
                ])
            }
        }
    }

    /// Stores the server's turbulence polygons (one document per history window × severity replaces the previous one).
    package func upsertTurbulencePolygons(_ sets: [TurbulencePolygonSet]) throws(StoreError) {
        for set in sets { try checkFinite(set.updatedTime, what: "polygon set") }
        try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO turbulence_polygon (history_minutes, severity, geojson, updated_time) VALUES (?, ?, ?, ?)
                ON CONFLICT (history_minutes, severity) DO UPDATE SET
                    geojson = excluded.geojson, updated_time = excluded.updated_time
                """)
            for set in sets {
                try statement.execute(arguments: [set.historyWindow.minutes, set.severity.rawValue, set.geoJSON, set.updatedTime])
            }
        }
    }

    /// Upserts live-flight positions (a flight keeps only its newest position; older updates are ignored).
    /// A flight without a `tile` is placed in the tile of its position.
    package func upsertLiveFlights(_ flights: [LiveFlight]) throws(StoreError) {
        var tiles: [TileID] = []
        for flight in flights {
            try checkFinite(flight.latitude, flight.longitude, flight.altitudeFeet, flight.time, what: "live flight \(flight.flightID)")
            guard let tile = flight.tile ?? flight.positionTile else {
                throw StoreError.invalidArgument("live flight \(flight.flightID) has no tile and its position has no H3 cell")
            }
            tiles.append(tile)
        }
        try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO live_flight (flight_id, latitude, longitude, altitude_feet, heading_degrees, ground_speed_knots,
                    aircraft_type, flight_number, departure, destination, h3, layer, time)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (flight_id) DO UPDATE SET
                    latitude = excluded.latitude, longitude = excluded.longitude, altitude_feet = excluded.altitude_feet,
                    heading_degrees = excluded.heading_degrees, ground_speed_knots = excluded.ground_speed_knots,
                    aircraft_type = excluded.aircraft_type, flight_number = excluded.flight_number,
                    departure = excluded.departure, destination = excluded.destination,
                    h3 = excluded.h3, layer = excluded.layer, time = excluded.time
                WHERE excluded.time >= live_flight.time
                """)
            for (flight, tile) in zip(flights, tiles) {
                try statement.execute(arguments: [
                    flight.flightID, flight.latitude, flight.longitude, flight.altitudeFeet, flight.headingDegrees,
                    flight.groundSpeedKnots, flight.aircraftType, flight.flightNumber, flight.departure, flight.destination,
                    tile.h3.storeInt, tile.layer, flight.time,
                ])
            }
        }
    }
}

// MARK: - Sync state, session, configuration

extension EddyStore {
    /// The sync state of one area type × data type (nil before the first fetch).
    package func syncState(area: DataAreaType, data: DataType) throws(StoreError) -> SyncState? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT tick, last_full_fetch_time FROM sync_state WHERE area_type = ? AND data_type = ?
                """, arguments: [area.rawValue, data.rawValue])
            else { return nil }
            return SyncState(areaType: area, dataType: data, tick: row[0], lastFullFetchTime: row[1])
        }
    }

    /// Saves the sync state of its area type × data type.
    package func setSyncState(_ state: SyncState) throws(StoreError) {
        if let time = state.lastFullFetchTime { try checkFinite(time, what: "sync state") }
        try write { db in
            try db.execute(sql: """
                INSERT INTO sync_state (area_type, data_type, tick, last_full_fetch_time) VALUES (?, ?, ?, ?)
                ON CONFLICT (area_type, data_type) DO UPDATE SET
                    tick = excluded.tick, last_full_fetch_time = excluded.last_full_fetch_time
                """, arguments: [state.areaType.rawValue, state.dataType.rawValue, state.tick, state.lastFullFetchTime])
        }
    }

    /// Forgets every sync state (the next fetch of each kind is a full one).
    package func resetSyncStates() throws(StoreError) {
        try write { db in try db.execute(sql: "DELETE FROM sync_state") }
    }

    /// A session value (token, user id, expiry...) by key.
    package func sessionValue(forKey key: String) throws(StoreError) -> String? {
        try keyValue(table: "session", key: key)
    }

    /// Sets (or, with nil, removes) a session value.
    package func setSessionValue(_ value: String?, forKey key: String) throws(StoreError) {
        try setKeyValue(table: "session", key: key, value: value)
    }

    /// Replaces a session value (nil: removes it) so that the old value's bytes leave the file: the write runs with
    /// `PRAGMA secure_delete` (freed content is overwritten with zeros) and the write-ahead log is then checkpointed and
    /// truncated, so no older page image keeps it. For values that must not stay at rest (a legacy store's API key).
    package func scrubSessionValue(_ value: String?, forKey key: String) throws(StoreError) {
        do {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")
                defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
                try db.inTransaction(.immediate) {
                    if let value {
                        try db.execute(sql: """
                            INSERT INTO session (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                            """, arguments: [key, value])
                    } else {
                        try db.execute(sql: "DELETE FROM session WHERE key = ?", arguments: [key])
                    }
                    return .commit
                }
                // Busy readers can make the truncation wait for SQLite's next automatic checkpoint; the main file
                // is clean from then on, so a busy checkpoint is not an error here.
                _ = try? db.checkpoint(.truncate)
            }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Removes every session value (logging out).
    package func clearSession() throws(StoreError) {
        try write { db in try db.execute(sql: "DELETE FROM session") }
    }

    /// A configuration value (server-provided settings, user settings) by key.
    package func configurationValue(forKey key: String) throws(StoreError) -> String? {
        try keyValue(table: "configuration", key: key)
    }

    /// Sets (or, with nil, removes) a configuration value.
    package func setConfigurationValue(_ value: String?, forKey key: String) throws(StoreError) {
        try setKeyValue(table: "configuration", key: key, value: value)
    }

    /// A `Codable` configuration value stored as JSON (nil when absent).
    package func configuration<T: Decodable>(_ type: T.Type, forKey key: String) throws(StoreError) -> T? {
        guard let text = try configurationValue(forKey: key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw StoreError.undecodableRow(table: "configuration", detail: "key \(key) is not a \(T.self): \(error)")
        }
    }

    /// Stores a `Codable` configuration value as JSON.
    package func setConfiguration<T: Encodable>(_ value: T, forKey key: String) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw StoreError.invalidArgument("configuration value for key \(key) cannot be encoded as JSON: \(error)")
        }
        try setConfigurationValue(String(decoding: data, as: UTF8.self), forKey: key)
    }

    private func keyValue(table: String, key: String) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM \(table) WHERE key = ?", arguments: [key]) }
    }

    private func setKeyValue(table: String, key: String, value: String?) throws(StoreError) {
        try write { db in
            if let value {
                try db.execute(sql: """
                    INSERT INTO \(table) (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM \(table) WHERE key = ?", arguments: [key])
            }
        }
    }
}

// MARK: - Row decoding

/// The columns `decodeReport` reads, in its order.
let reportColumns = """
    id, h3, layer, enter_time, exit_time, edr_peak, edr_median, reporter_class, altitude_source, altitude_u90_ft, layer_uncertain
    """

func decodeReport(_ row: Row, table: String) throws -> TileReport {
    // Column order: `reportColumns`.
    let id: UUID
    do {
        id = try row.decode(UUID.self, atIndex: 0)
    } catch {
        throw StoreError.undecodableRow(table: table, detail: "id is not a 16-byte UUID")
    }
    let className: String = row[7]
    guard let reporterClass = AircraftClass(rawValue: className) else {
        throw StoreError.undecodableRow(table: table, detail: "unknown reporter class '\(className)'")
    }
    var altitudeSource: AltitudeSource?
    if let sourceName: String = row[8] {
        guard let source = AltitudeSource(rawValue: sourceName) else {
            throw StoreError.undecodableRow(table: table, detail: "unknown altitude source '\(sourceName)'")
        }
        altitudeSource = source
    }
    let h3: Int64 = row[1]
    let layerUncertain: Int64? = row[10]
    return TileReport(
        id: id, tile: TileID(h3: UInt64(bitPattern: h3), layer: row[2]), enterTime: row[3], exitTime: row[4],
        edrPeak: row[5], edrMedian: row[6], reporterClass: reporterClass, altitudeSource: altitudeSource,
        altitudeU90Feet: row[9], layerUncertain: layerUncertain.map { $0 != 0 })
}
