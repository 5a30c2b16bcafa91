#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
package import Foundation
import GRDB
import Synchronization

/// The server's SQLite storage (WAL; one writer, concurrent readers): one file, one server process.
/// Schema is the server's own.
package final class SQLiteServerStorage: ServerStorage {
    let pool: DatabasePool
    let path: String
    /// Storage calls in progress against the pool (the writer and GRDB's readers), for `/metrics`.
    let meter: StorageLoadMeter
    private let checkpointConnection = Mutex<DatabaseQueue?>(nil)
    /// Why the last write failed when the database or its disk refused it (full, read-only, I/O error); nil once a write
    /// succeeds. While set, `/readyz` answers 503 (issue 30: a full disk failed every write while `/readyz` said 200).
    private let unwritable = Mutex<String?>(nil)

    /// Opens (creating and migrating when needed) the database at `path`.
    package init(path: String) throws(ServerDatabaseError) {
        var config = Configuration()
        config.busyMode = .timeout(5)
        // WAL + synchronous NORMAL: a commit survives a crash of the server process; only an OS crash or
        // power loss can drop the last commits (clients then re-upload: uploads are idempotent).
        // 1 KiB pages: each upload dirties about one page per report in the random-keyed indexes (id, position),
        // so smaller pages cut the bytes written to the WAL per commit (only effective on a new file).
        // No automatic checkpoints: they would run (with an fsync) inside some unlucky upload's commit;
        // `checkpoint()` runs them from a background service instead (see `WALCheckpointService`).
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA page_size = 1024; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864")
        }
        self.path = path
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try Self.migrator.migrate(pool)
        } catch {
            throw .wrapping(error, operation: "open \(path)")
        }
        meter = StorageLoadMeter(poolSize: 1 + config.maximumReaderCount)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The pool now: storage calls in progress against the writer and the readers.
    package var poolLoad: ServerMetrics.DatabasePoolLoad { meter.load }

    /// Runs `updates` in one transaction on the writer, counted by the pool meter (waiting for the writer, then holding
    /// it). GRDB returns only after the commit succeeded (a failed commit throws and rolls back), so what the caller
    /// reports is committed; any failure becomes `ServerDatabaseError.failed` naming `operation`.
    func write<T: Sendable>(_ operation: String, _ updates: @Sendable (Database) throws -> T) async throws(ServerDatabaseError) -> T {
        let call = meter.call()
        defer { call.end() }
        do {
            let result = try await pool.write { db in call.connected(); return try updates(db) }
            noteWrite(nil)
            return result
        } catch {
            noteWrite(error)
            throw .wrapping(error, operation: operation)
        }
    }

    /// Records how the last write ended: a refusal of the database or its disk marks the storage unwritable, a success
    /// clears the mark (other failures, such as a constraint, say nothing about the disk).
    func noteWrite(_ error: (any Error)?) {
        guard let error else {
            if unwritable.withLock(visibleToThreadSanitizerAs: self, { $0 }) != nil {
                unwritable.withLock(visibleToThreadSanitizerAs: self) { $0 = nil }
            }
            return
        }
        guard let sqlite = error as? DatabaseError,
              [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_CORRUPT, .SQLITE_NOTADB].contains(sqlite.resultCode)
        else { return }
        unwritable.withLock(visibleToThreadSanitizerAs: self) { $0 = "\(sqlite.message ?? "\(sqlite.resultCode)") (\(path))" }
    }

    /// Ready when a read works and, after a write was refused (full disk, read-only file), when a probe write of 64 KiB
    /// commits again: the mark then clears, so `/readyz` recovers without waiting for traffic it turned away.
    package func checkReady() async throws(ServerDatabaseError) {
        _ = try await latestNowcastIssue()
        guard let reason = unwritable.withLock(visibleToThreadSanitizerAs: self, { $0 }) else { return }
        do {
            try await write("probe a write") { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS readiness_probe (filler BLOB)")
                try db.execute(sql: "INSERT INTO readiness_probe VALUES (zeroblob(65536))")
            }
            try await write("probe a write") { db in try db.execute(sql: "DELETE FROM readiness_probe") }
        } catch {
            throw .failed(operation: "write", cause: "the database refuses writes: \(reason)")
        }
    }

    /// `write` for the synchronous callers (`eddy-server keys`, the tick epoch at start).
    func writeNow<T>(_ operation: String, _ updates: (Database) throws -> T) throws(ServerDatabaseError) -> T {
        let call = meter.call()
        defer { call.end() }
        do { return try pool.write { db in call.connected(); return try updates(db) } } catch {
            throw .wrapping(error, operation: operation)
        }
    }

    /// Runs `value` on a reader, counted by the pool meter; failures become `ServerDatabaseError.failed`.
    func read<T: Sendable>(_ operation: String, _ value: @Sendable (Database) throws -> T) async throws(ServerDatabaseError) -> T {
        let call = meter.call()
        defer { call.end() }
        do { return try await pool.read { db in call.connected(); return try value(db) } } catch {
            throw .wrapping(error, operation: operation)
        }
    }

    /// `read` for the synchronous callers.
    func readNow<T>(_ operation: String, _ value: (Database) throws -> T) throws(ServerDatabaseError) -> T {
        let call = meter.call()
        defer { call.end() }
        do { return try pool.read { db in call.connected(); return try value(db) } } catch {
            throw .wrapping(error, operation: operation)
        }
    }

    /// Upkeep: a passive WAL checkpoint.
    package func maintain(now: Double) throws(ServerDatabaseError) { try checkpoint() }

    /// Retention: deletes reports that left their tile before `exitBefore`, 10,000 a transaction so uploads wait
    /// for at most one short write.
    package func purgeReports(exitBefore: Double) async throws(ServerDatabaseError) -> Int {
        var total = 0
        while true {
            let deleted = try await write("purge old reports") { db -> Int in
                try db.execute(sql: """
                    DELETE FROM observations WHERE rowid IN (SELECT rowid FROM observations WHERE exit_time < ? LIMIT 10000)
                    """, arguments: [exitBefore])
                return db.changesCount
            }
            total += deleted
            if deleted < 10_000 { return total }
        }
    }

    /// One process owns the file: its own clock is the database's.
    package var clockOffsetSeconds: Double { 0 }

    /// Nothing to release (the pool closes with the object).
    package func shutdown() async {}

    /// Copies committed WAL frames into the database file without blocking writers (PASSIVE checkpoint),
    /// on a connection of its own so uploads never wait for it.
    package func checkpoint() throws(ServerDatabaseError) {
        do { try checkpointer.inDatabase { db in _ = try db.checkpoint(.passive) } } catch {
            throw .wrapping(error, operation: "checkpoint the WAL")
        }
    }

    private var checkpointer: DatabaseQueue {
        get throws { try checkpointConnection.withLock(visibleToThreadSanitizerAs: self) { queue in
            if let queue { return queue }
            let opened = try DatabaseQueue(path: path)
            queue = opened
            return opened
        } }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE api_keys (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, airline TEXT NOT NULL,
                    label TEXT NOT NULL, active INTEGER NOT NULL, created_at REAL NOT NULL);
                CREATE TABLE reporters (
                    airline TEXT NOT NULL, user_id TEXT NOT NULL, reporter_id TEXT NOT NULL UNIQUE,
                    PRIMARY KEY (airline, user_id));
                CREATE TABLE sessions (
                    token TEXT PRIMARY KEY, key_id INTEGER NOT NULL REFERENCES api_keys(id), airline TEXT NOT NULL,
                    reporter_id TEXT NOT NULL, expires_at REAL NOT NULL, created_at REAL NOT NULL);
                CREATE TABLE observations (
                    rowid INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, h3 INTEGER NOT NULL, layer INTEGER NOT NULL,
                    lat REAL NOT NULL, lng REAL NOT NULL, enter_time REAL NOT NULL, exit_time REAL NOT NULL,
                    edr_peak REAL NOT NULL, edr_median REAL NOT NULL, reporter_class TEXT NOT NULL, reporter_id TEXT NOT NULL,
                    tick INTEGER NOT NULL, received_at REAL NOT NULL);
                CREATE INDEX observations_tick ON observations(tick);
                CREATE INDEX observations_lat ON observations(lat, lng);
                CREATE TABLE nowcast (
                    issue_time REAL NOT NULL, h3 INTEGER NOT NULL, layer INTEGER NOT NULL, lat REAL NOT NULL, lng REAL NOT NULL,
                    forecast_hour INTEGER NOT NULL, edr REAL NOT NULL, tick INTEGER NOT NULL,
                    PRIMARY KEY (issue_time, h3, layer, forecast_hour));
                CREATE TABLE nowcast_issues (issue_time REAL PRIMARY KEY, tick INTEGER NOT NULL);
                CREATE TABLE flights (
                    flight_id TEXT PRIMARY KEY, reporter_id TEXT NOT NULL, aircraft_type TEXT NOT NULL,
                    lat REAL NOT NULL, lng REAL NOT NULL, altitude_feet REAL NOT NULL, heading REAL NOT NULL,
                    speed_knots REAL NOT NULL, time REAL NOT NULL, updated_at REAL NOT NULL);
                """)
        }
        // v2: each report's altitude source, 90 % altitude uncertainty and layer-uncertain flag (NULL: not sent, as by
        // older clients), and the fleet's geometric − pressure altitude offsets: the newest observation of each
        // reporter per H3 resolution-3 cell × layer (docs/protocol.md "Fleet altitude assistance").
        migrator.registerMigration("v2-report-altitude-fleet-offsets") { db in
            try db.execute(sql: """
                ALTER TABLE observations ADD COLUMN altitude_source TEXT;
                ALTER TABLE observations ADD COLUMN altitude_u90_ft REAL;
                ALTER TABLE observations ADD COLUMN layer_uncertain INTEGER;
                CREATE TABLE altitude_offsets (
                    reporter_id TEXT NOT NULL, h3 INTEGER NOT NULL, layer INTEGER NOT NULL, time REAL NOT NULL,
                    lat REAL NOT NULL, lng REAL NOT NULL, pressure_altitude_feet REAL NOT NULL, offset_feet REAL NOT NULL,
                    uncertainty_feet REAL NOT NULL, received_at REAL NOT NULL,
                    PRIMARY KEY (reporter_id, h3, layer));
                CREATE INDEX altitude_offsets_cell ON altitude_offsets(h3, layer, time);
                CREATE INDEX altitude_offsets_time ON altitude_offsets(time);
                """)
        }
        // v3 (issue 13): live flights never carry the pilot's identity. Each uploader's flight (reporter × the client's
        // flight id) gets a random public id, the only id served; the flight number and the uploader's airline are kept
        // so that only the same airline sees the number. Live positions expire within minutes, so the old table is
        // dropped rather than converted.
        migrator.registerMigration("v3-private-live-flights") { db in
            try db.execute(sql: """
                DROP TABLE flights;
                CREATE TABLE flights (
                    reporter_id TEXT NOT NULL, flight_id TEXT NOT NULL, public_id TEXT NOT NULL UNIQUE, airline TEXT NOT NULL,
                    flight_number TEXT, aircraft_type TEXT NOT NULL, lat REAL NOT NULL, lng REAL NOT NULL,
                    altitude_feet REAL NOT NULL, heading REAL NOT NULL, speed_knots REAL NOT NULL, time REAL NOT NULL,
                    updated_at REAL NOT NULL, PRIMARY KEY (reporter_id, flight_id));
                CREATE INDEX flights_reporter ON flights(reporter_id, updated_at);
                """)
        }
        // v4 (issue 14): API keys are stored hashed (SHA-256; docs/fleet-server.md "Keys"), with the shown prefix
        // in its own column; the keys issued before are hashed in place, so they keep working.
        migrator.registerMigration("v4-hashed-api-keys") { db in
            try db.execute(sql: "ALTER TABLE api_keys ADD COLUMN key_prefix TEXT NOT NULL DEFAULT ''")
            for row in try Row.fetchAll(db, sql: "SELECT id, key FROM api_keys") {
                let id: Int64 = row["id"], key: String = row["key"]
                guard !key.hasPrefix("sha256:") else { continue }
                try db.execute(sql: "UPDATE api_keys SET key = ?, key_prefix = ? WHERE id = ?",
                               arguments: [StorageSupport.apiKeyHash(key), StorageSupport.apiKeyPrefix(key), id])
            }
        }
        // v5 (issue 30): fetches are served in pages in the order exit time, then rowid; a global fetch reads its 6-h
        // window through this index in that order, page after page, instead of scanning the table (rowid is part of
        // every SQLite index).
        migrator.registerMigration("v5-observations-by-exit-time") { db in
            try db.execute(sql: "CREATE INDEX observations_exit ON observations(exit_time)")
        }
        // v6 (issue 30): key expiry, last use and the sessions a key opened (`keys list`).
        migrator.registerMigration("v6-api-key-expiry-and-use") { db in
            try db.execute(sql: """
                ALTER TABLE api_keys ADD COLUMN expires_at REAL;
                ALTER TABLE api_keys ADD COLUMN last_used_at REAL;
                ALTER TABLE api_keys ADD COLUMN sessions_started INTEGER NOT NULL DEFAULT 0
                """)
        }
        // v7 (issue 31): pilot reports (PIREPs, AIREPs) and their cells (PilotReports/PilotReportStorage.swift).
        migrator.registerMigration("v7-pilot-reports") { db in try db.execute(sql: PilotReportSchema.sqlite) }
        // v8 (issue 31): forecast-grid cells (GTG, WAFS; Forecast/ForecastGridStore.swift).
        migrator.registerMigration("v8-forecast-grids") { db in try db.execute(sql: ForecastGridSchema.sqlite) }
        // v9 (issue 31, the blend): each nowcast cell's provenance; cells issued before are the fleet's (Blend/).
        migrator.registerMigration("v9-nowcast-provenance") { db in try db.execute(sql: NowcastProvenanceSchema.sqlite) }
        return migrator
    }

    // MARK: meta

    /// The tick epoch (Unix seconds), set once when the database is created.
    package func tickEpoch(now: Double) throws(ServerDatabaseError) -> Double {
        try writeNow("read the tick epoch") { db in
            if let value = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'tick_epoch'"), let epoch = Double(value) {
                return epoch
            }
            let epoch = now.rounded(.down)
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('tick_epoch', ?)", arguments: [String(epoch)])
            return epoch
        }
    }

    // MARK: observations

    /// Inserts the upload's reports (ignoring ids already held) in one transaction, stored with the reporter id the
    /// upload names (its live flight's public id, else its fallback id); returns the ids that were new.
    package func insertReports(_ upload: ReportUpload) async throws(ServerDatabaseError) -> Set<UUID> {
        try await write("store uploaded reports") { db in
            let served = try String.fetchOne(db, sql: """
                SELECT public_id FROM flights WHERE reporter_id = ? AND updated_at >= ? ORDER BY updated_at DESC LIMIT 1
                """, arguments: [upload.reporterId, upload.liveFlightUpdatedSince]) ?? upload.fallbackPublicId
            let statement = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO observations
                (id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class, reporter_id, tick, received_at,
                 altitude_source, altitude_u90_ft, layer_uncertain)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var fresh = Set<UUID>()
            for row in upload.rows {
                let r = row.report
                try statement.execute(arguments: [
                    Self.blob(r.id), Int64(bitPattern: r.tile.h3), r.tile.layer, row.center.lat, row.center.lng,
                    r.enterTime, r.exitTime, r.edrPeak, r.edrMedian, r.reporterClass.rawValue, served, upload.tick, upload.receivedAt,
                    r.altitudeSource?.rawValue, r.altitudeU90Feet, r.layerUncertain,
                ])
                if db.changesCount > 0 { fresh.insert(r.id) }
            }
            return fresh
        }
    }

    /// The `WHERE` clause and arguments of `query` (without its limit), with the index to read: a delta reads through the
    /// tick index (few rows), an area fetch through the latitude index (the box's band), a global one through the
    /// exit-time index (the window, already in the fetch order).
    static func observationSelection(_ query: ObservationQuery) -> (sql: String, arguments: StatementArguments) {
        let index = query.minTick != nil ? "observations_tick" : query.boundingBox != nil ? "observations_lat" : "observations_exit"
        var sql = "FROM observations INDEXED BY \(index) WHERE exit_time >= ? AND layer BETWEEN ? AND ?"
        var arguments: StatementArguments = [max(query.minExitTime, query.after?.exitTime ?? -.infinity), query.minLayer, query.maxLayer]
        if let after = query.after {
            sql += " AND (exit_time > ? OR rowid > ?)"
            arguments += [after.exitTime, after.sequence]
        }
        if let minTick = query.minTick {
            sql += " AND tick >= ?"
            arguments += [minTick]
        }
        if let box = query.boundingBox {
            sql += " AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ?"
            arguments += [box.minLat, box.maxLat, box.minLng, box.maxLng]
        }
        return (sql, arguments)
    }

    /// The observations `query` selects, in the fetch order (exit time, then rowid), with their tiles' centres.
    package func observations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> [StoredObservation] {
        let selection = Self.observationSelection(query)
        return try await read("read observations") { db in
            var result: [StoredObservation] = []
            let cursor = try Row.fetchCursor(db, sql: """
                SELECT id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class, reporter_id, tick,
                    altitude_source, altitude_u90_ft, layer_uncertain, rowid
                \(selection.sql) ORDER BY exit_time, rowid\(query.limit.map { " LIMIT \($0)" } ?? "")
                """, arguments: selection.arguments)
            while let row = try cursor.next() {
                let idBlob: Data = row[0]
                guard let id = Self.uuid(idBlob), let reporterClass = AircraftClass(rawValue: row[9]) else { continue }
                let h3: Int64 = row[1]
                // Stored values were validated at ingest; a source this build does not know reads as not recorded.
                let sourceName: String? = row[12]
                let layerUncertain: Int64? = row[14]
                let report = TileReport(
                    id: id, tile: TileID(h3: UInt64(bitPattern: h3), layer: row[2]), enterTime: row[5], exitTime: row[6],
                    edrPeak: row[7], edrMedian: row[8], reporterClass: reporterClass,
                    altitudeSource: sourceName.flatMap(AltitudeSource.init(rawValue:)), altitudeU90Feet: row[13],
                    layerUncertain: layerUncertain.map { $0 != 0 })
                result.append(StoredObservation(observation: Observation(report: report, reporterId: row[10], tick: row[11]),
                                                center: GeoPoint(lat: row[3], lng: row[4]),
                                                position: ObservationPosition(exitTime: row[6], sequence: row[15])))
            }
            return result
        }
    }

    /// Whether `query` selects any observation.
    package func hasObservations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> Bool {
        let selection = Self.observationSelection(query)
        return try await read("read observations") { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 \(selection.sql))", arguments: selection.arguments) ?? false
        }
    }

    /// Tiles (cell, layer, edrPeak, exitTime) of observations with exit time in `[from, to]`, for the nowcast.
    package func nowcastInputs(from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredNowcastInput] {
        try await read("read the nowcast's inputs") { db in
            try Row.fetchAll(db, sql: "SELECT h3, layer, exit_time, edr_peak FROM observations WHERE exit_time BETWEEN ? AND ?",
                             arguments: [from, to]).map { row in
                let h3: Int64 = row[0]
                return StoredNowcastInput(cell: UInt64(bitPattern: h3), layer: row[1], exitTime: row[2], edrPeak: row[3])
            }
        }
    }

    // MARK: nowcast

    /// Latest issue (time, tick), nil before the first.
    package func latestNowcastIssue() async throws(ServerDatabaseError) -> (issueTime: Double, tick: Int)? {
        try await read("read the latest nowcast issue") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT issue_time, tick FROM nowcast_issues ORDER BY issue_time DESC LIMIT 1")
            else { return nil }
            return (row[0], row[1])
        }
    }

    /// Stores an issue, replacing every older one.
    package func storeNowcast(issueTime: Double, tick: Int, cells: [StoredNowcastCell]) async throws(ServerDatabaseError) {
        try await write("store a nowcast issue") { db in
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM nowcast_issues WHERE issue_time >= ?", arguments: [issueTime]) ?? 0 > 0 {
                return   // another request issued it first
            }
            try db.execute(sql: "DELETE FROM nowcast")
            let statement = try db.cachedStatement(sql: """
                INSERT INTO nowcast (issue_time, h3, layer, lat, lng, forecast_hour, edr, tick, provenance)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for cell in cells {
                try statement.execute(arguments: [
                    issueTime, Int64(bitPattern: cell.cell), cell.layer, cell.center.lat, cell.center.lng, cell.forecastHour, cell.edr, tick,
                    cell.provenance.rawValue,
                ])
            }
            try db.execute(sql: "INSERT INTO nowcast_issues (issue_time, tick) VALUES (?, ?)", arguments: [issueTime, tick])
        }
    }

    /// The stored nowcast cells in the layer range and box, ordered by cell, layer and forecast hour: those after
    /// `after`, at most `limit`.
    package func nowcastCells(minLayer: Int, maxLayer: Int, boundingBox: GeoBoundingBox?, after: NowcastPosition?, limit: Int?)
        async throws(ServerDatabaseError) -> [IssuedNowcastCell] {
        var sql = "SELECT issue_time, h3, layer, lat, lng, forecast_hour, edr, provenance FROM nowcast WHERE layer BETWEEN ? AND ?"
        var arguments: StatementArguments = [minLayer, maxLayer]
        if let box = boundingBox {
            sql += " AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ?"
            arguments += [box.minLat, box.maxLat, box.minLng, box.maxLng]
        }
        if let after {
            sql += " AND (h3, layer, forecast_hour) > (?, ?, ?)"
            arguments += [after.cell, after.layer, after.forecastHour]
        }
        sql += " ORDER BY h3, layer, forecast_hour" + (limit.map { " LIMIT \($0)" } ?? "")
        let (statement, values) = (sql, arguments)
        return try await read("read the nowcast") { db in
            try Row.fetchAll(db, sql: statement, arguments: values).map { row in
                let h3: Int64 = row[1]
                return IssuedNowcastCell(issueTime: row[0], cell: StoredNowcastCell(
                    cell: UInt64(bitPattern: h3), layer: row[2], forecastHour: row[5], edr: row[6], center: GeoPoint(lat: row[3], lng: row[4]),
                    provenance: NowcastProvenanceSchema.provenance(row[7])))
            }
        }
    }

    // MARK: flights

    /// Writes a position upload in one transaction: the flight row (one per uploader × client flight id; an existing
    /// row keeps its public id), the drop of expired flights, the altitude offset (see `storeAltitudeOffset`) and the
    /// drop of old offsets.
    package func storePosition(_ write: PositionWrite) async throws(ServerDatabaseError) {
        try await self.write("store a live position") { db in
            let flight = write.flight
            try db.execute(sql: """
                INSERT INTO flights (reporter_id, flight_id, public_id, airline, flight_number, aircraft_type, lat, lng, altitude_feet,
                    heading, speed_knots, time, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(reporter_id, flight_id) DO UPDATE SET airline = excluded.airline,
                    flight_number = excluded.flight_number, aircraft_type = excluded.aircraft_type,
                    lat = excluded.lat, lng = excluded.lng, altitude_feet = excluded.altitude_feet, heading = excluded.heading,
                    speed_knots = excluded.speed_knots, time = excluded.time, updated_at = excluded.updated_at
                """, arguments: [
                    flight.reporterId, flight.clientFlightId, flight.publicId, flight.airline, flight.flightNumber, flight.aircraftType,
                    flight.latitude, flight.longitude, flight.altitudeFeet, flight.headingDegrees, flight.speedKnots,
                    flight.time, flight.updatedAt,
                ])
            try db.execute(sql: "DELETE FROM flights WHERE updated_at < ?", arguments: [write.dropFlightsUpdatedBefore])
            if let offset = write.altitudeOffset { try Self.storeAltitudeOffset(offset, db: db) }
            if let cutoff = write.dropAltitudeOffsetsMeasuredBefore {
                try db.execute(sql: "DELETE FROM altitude_offsets WHERE time < ?", arguments: [cutoff])
            }
        }
    }

    /// The flights updated at or after `updatedSince`, ordered by public id: those after `afterPublicId`, at most `limit`.
    package func liveFlights(updatedSince: Double, afterPublicId: String?, limit: Int?) async throws(ServerDatabaseError) -> [StoredFlight] {
        try await read("read live flights") { db in
            try Row.fetchAll(db, sql: """
                SELECT reporter_id, flight_id, public_id, airline, flight_number, aircraft_type, lat, lng, altitude_feet, heading,
                    speed_knots, time, updated_at
                FROM flights WHERE updated_at >= ? AND public_id > ? ORDER BY public_id\(limit.map { " LIMIT \($0)" } ?? "")
                """, arguments: [updatedSince, afterPublicId ?? ""]).map { row in
                StoredFlight(
                    reporterId: row[0], clientFlightId: row[1], publicId: row[2], airline: row[3], flightNumber: row[4],
                    aircraftType: row[5], latitude: row[6], longitude: row[7], altitudeFeet: row[8], headingDegrees: row[9],
                    speedKnots: row[10], time: row[11], updatedAt: row[12])
            }
        }
    }

    // MARK: fleet altitude offsets

    /// Keeps `offset` as its reporter's newest in its cell × layer (an older one there is replaced; a newer one already
    /// held wins).
    static func storeAltitudeOffset(_ offset: StoredAltitudeOffset, db: Database) throws {
        let observation = offset.observation
        try db.execute(sql: """
            INSERT INTO altitude_offsets (reporter_id, h3, layer, time, lat, lng, pressure_altitude_feet, offset_feet,
                uncertainty_feet, received_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (reporter_id, h3, layer) DO UPDATE SET time = excluded.time, lat = excluded.lat,
                lng = excluded.lng, pressure_altitude_feet = excluded.pressure_altitude_feet,
                offset_feet = excluded.offset_feet, uncertainty_feet = excluded.uncertainty_feet,
                received_at = excluded.received_at
            WHERE excluded.time >= altitude_offsets.time
            """, arguments: [
                offset.reporterId, Int64(bitPattern: offset.cell), offset.layer, observation.time, observation.latitudeDegrees,
                observation.longitudeDegrees, observation.pressureAltitudeFeet, observation.offsetFeet,
                observation.uncertaintyFeet, offset.receivedAt,
            ])
    }

    /// The stored offset observations (one per reporter × cell × layer) in `cells` (all cells when nil) and the
    /// layer range, measured at or after `oldestTime`.
    package func altitudeOffsetObservations(
        cells: [UInt64]?, minLayer: Int, maxLayer: Int, oldestTime: Double
    ) async throws(ServerDatabaseError) -> [AltitudeOffsetAggregation.Input] {
        try await read("read fleet altitude offsets") { db in
            var sql = """
                SELECT h3, layer, offset_feet, uncertainty_feet, time FROM altitude_offsets
                WHERE layer BETWEEN ? AND ? AND time >= ?
                """
            var arguments: StatementArguments = [minLayer, maxLayer, oldestTime]
            if let cells {
                if cells.isEmpty { return [] }
                sql += " AND h3 IN (SELECT value FROM json_each(?))"
                arguments += ["[" + cells.map { String(Int64(bitPattern: $0)) }.joined(separator: ",") + "]"]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let h3: Int64 = row[0]
                return AltitudeOffsetAggregation.Input(
                    cell: UInt64(bitPattern: h3), layer: row[1], offsetFeet: row[2], uncertaintyFeet: row[3], time: row[4])
            }
        }
    }

    /// A UUID as its 16 bytes (the `observations.id` column).
    static func blob(_ id: UUID) -> Data { withUnsafeBytes(of: id.uuid) { Data($0) } }

    /// A UUID from 16 bytes; nil for any other length.
    static func uuid(_ data: Data) -> UUID? {
        guard data.count == 16 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { target in data.withUnsafeBytes { target.copyMemory(from: $0) } }
        return UUID(uuid: bytes)
    }

}
#endif
