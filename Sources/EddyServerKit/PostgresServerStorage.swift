import EddyProtocol
import EddySupport
import EddyVocabulary
package import Foundation
package import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// A PostgreSQL database that cannot be used at start: unreachable, refused login, or failed migration.
package struct PostgresStorageError: Error, CustomStringConvertible {
    /// The server and database (password left out).
    package var location: String
    /// What went wrong and what to do.
    package var problem: String
    /// The message shown at start.
    package var description: String { "PostgreSQL \(location): \(problem)" }
}

/// The server's PostgreSQL storage (docs/fleet-server.md): several stateless `eddy-server` instances on one database.
///
/// Reports go into `observations`, range-partitioned by exit time (one partition a day, created ahead by `maintain`),
/// with B-trees on (tick) for delta fetches and (lat, lng) for area fetches in every partition. Report ids are made
/// unique across instances by `report_ids` (a plain table: a unique index on a partitioned table must contain the
/// partition key); an upload inserts there with `ON CONFLICT DO NOTHING` and stores only the ids that were new, in
/// one statement. Every write runs in an explicit transaction and returns only after `COMMIT` succeeded (`write`), so
/// nothing is acknowledged that is not committed. The tick epoch is a row of `meta` (first instance wins), so
/// instances count the same ticks.
package final class PostgresServerStorage: ServerStorage {
    let client: PostgresClient
    let location: PostgresLocation
    let logger: Logger
    let epoch: Double
    private let runTask: Task<Void, Never>
    /// Storage calls in progress (each holds or waits for one of the pool's connections), for `/metrics`.
    let meter: StorageLoadMeter
    /// How long calls wait for the database.
    let timeouts: DatabaseTimeouts
    /// The day (Unix day number) up to which partitions exist, so `maintain` acts once a day.
    private let partitionsReadyThrough = Mutex<Int>(Int.min)
    /// The database clock's lead over the system clock (0 within the 1-s dead band) and when it was last measured.
    private let clockOffset = Mutex<(seconds: Double, measuredAt: Double)>((0, -Double.infinity))
    /// Time between clock-offset measurements, seconds.
    static let clockOffsetIntervalSeconds = 30.0
    /// A clock comparison whose query took longer than this (seconds) is not used: its midpoint could be off by half.
    static let clockRoundTripLimitSeconds = 1.0
    /// Days of partitions created ahead of today.
    static let partitionDaysAhead = 2
    /// Seconds in a partition.
    static let partitionSeconds = 86_400.0

    private init(client: PostgresClient, location: PostgresLocation, logger: Logger, epoch: Double, runTask: Task<Void, Never>,
                 maximumConnections: Int, timeouts: DatabaseTimeouts) {
        self.client = client
        self.timeouts = timeouts
        self.meter = StorageLoadMeter(poolSize: maximumConnections)
        self.location = location
        self.logger = logger
        self.epoch = epoch
        self.runTask = runTask
    }

    /// Connects (failing fast with what to do when the server is unreachable or refuses the login), migrates, creates
    /// the partitions around `now` and reads (or sets) the tick epoch. `maximumConnections` sizes the pool; `timeouts`
    /// bound every wait for the database.
    package static func open(
        _ location: PostgresLocation, now: Double, logger: Logger, maximumConnections: Int = 16, timeouts: DatabaseTimeouts = .init()
    ) async throws(PostgresStorageError) -> PostgresServerStorage {
        let tls = try Self.connectionTLS(location)
        // One direct connection first: PostgresClient's pool retries an unreachable server forever, which would make a
        // typo in --database hang instead of fail.
        var probeConfiguration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: tls)
        probeConfiguration.options.connectTimeout = .milliseconds(Int64(timeouts.connectSeconds * 1000))
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: probeConfiguration, id: 0, logger: logger).get()
        } catch {
            throw PostgresStorageError(location: location.redacted, problem: Self.explain(error))
        }
        // Schema, epoch and today's partitions on that connection, before the pool runs.
        let epoch: Double
        do {
            try await Self.migrate(connection, logger: logger)
            epoch = try await Self.readEpoch(connection, now: now, logger: logger)
            try await Self.createPartitions(connection, around: now, logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw PostgresStorageError(location: location.redacted, problem: Self.explain(error))
        }
        let clientTLS: PostgresClient.Configuration.TLS = location.requireTLS ? .require(.makeClientConfiguration()) : .disable
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: clientTLS)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = .seconds(timeouts.connectSeconds)
        // The server ends any statement that runs longer (SQLSTATE 57014), on every connection of the pool.
        configuration.options.additionalStartupParameters = [("statement_timeout", String(Int(timeouts.querySeconds * 1000)))]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Started immediately, so the pool is running before the first query below leases from it.
        let runTask = Task.immediate { await client.run() }
        let storage = PostgresServerStorage(client: client, location: location, logger: logger, epoch: epoch, runTask: runTask,
                                            maximumConnections: maximumConnections, timeouts: timeouts)
        storage.partitionsReadyThrough.withLock(visibleToThreadSanitizerAs: storage) { $0 = Self.lastPartitionDay(around: now) }
        do { try await storage.measureClockOffset() } catch {
            logger.warning("could not compare this host's clock with the database's (ticks use this host's clock): \(error)")
        }
        return storage
    }

    /// Creates an empty database `name` on the server of `location` (tests and benchmarks: one per test) and returns
    /// its location. `name` must be a plain identifier (letters, digits, underscores).
    package static func createDatabase(named name: String, on location: PostgresLocation, logger: Logger) async throws(PostgresStorageError)
        -> PostgresLocation {
        guard !name.isEmpty, name.count <= 63, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw PostgresStorageError(location: location.redacted, problem: "database name \(name) must be letters, digits and _")
        }
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: try Self.connectionTLS(location))
        do {
            let connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: configuration, id: 0, logger: logger).get()
            do {
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch let error as PostgresStorageError {
            throw error
        } catch {
            throw PostgresStorageError(location: location.redacted, problem: Self.explain(error))
        }
        var created = location
        created.database = name
        return created
    }

    /// The TLS of a direct connection to `location` (`sslmode=require`: TLS with the system's trust store).
    static func connectionTLS(_ location: PostgresLocation) throws(PostgresStorageError) -> PostgresConnection.Configuration.TLS {
        guard location.requireTLS else { return .disable }
        do { return .require(try NIOSSLContext(configuration: .makeClientConfiguration())) } catch {
            throw PostgresStorageError(location: location.redacted, problem: "cannot set up TLS: \(error)")
        }
    }

    /// What an error from connecting or migrating means, with what to do.
    static func explain(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] {
                let code = psql.serverInfo?[.sqlState] ?? ""
                let hint: String
                switch code {
                case "28P01", "28000": hint = "check the user and password in --database"
                case "3D000": hint = "create the database first (createdb) or fix its name in --database"
                default: hint = "check the server's log"
                }
                return "\(message) (SQLSTATE \(code)); \(hint)"
            }
            return "cannot connect (\(psql.code)); is PostgreSQL running and listening on that host and port? "
                + "Start it, or fix host/port in --database"
        }
        return "\(error); is PostgreSQL running and listening on that host and port? Start it, or fix --database"
    }

    package func tickEpoch(now: Double) -> Double { epoch }

    /// The pool now: storage calls in progress, against `maximumConnections`.
    package var poolLoad: ServerMetrics.DatabasePoolLoad { meter.load }

    /// Runs `body` inside a transaction on one pooled connection and returns only after `COMMIT` succeeded, counted
    /// by the pool meter. Every write goes through here: in autocommit mode the commit happens after the statement's
    /// rows have been read, and an error it raises (a deferred constraint, a full disk) never reached the caller, so
    /// ids an upload returned were acknowledged although nothing was stored (issue 30). Failures become
    /// `ServerDatabaseError.failed` naming `operation` and the database's own message.
    func write<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws(ServerDatabaseError) -> Result {
        let logger = self.logger
        return try await withConnection(operation) { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs the reads of `body` (one statement each: nothing to commit) on one pooled connection; failures become
    /// `ServerDatabaseError.failed`.
    func read<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws(ServerDatabaseError) -> Result {
        try await withConnection(operation, body)
    }

    /// Runs `body` on a connection of the pool within the deadlines of `timeouts` (`StorageDeadline`: a connection
    /// within `connectionWaitSeconds`, the work within `querySeconds` plus a grace after), counted by the pool meter
    /// from the moment the pool hands the connection over.
    func withConnection<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws(ServerDatabaseError) -> Result {
        let client = self.client
        do {
            return try await StorageDeadline.run(
                connectionWaitSeconds: timeouts.connectionWaitSeconds, workSeconds: timeouts.querySeconds + DatabaseTimeouts.graceSeconds,
                meter: meter
            ) { connected in
                try await client.withConnection { connection in
                    connected()
                    return try await body(connection)
                }
            }
        } catch {
            throw .wrapping(error, operation: operation, cause: Self.cause(of:))
        }
    }

    /// What went wrong in the database, for the error log: the server's message and SQLSTATE, or what happened to the
    /// connection. Never the query's values (PostgresNIO's own descriptions leave them out on purpose; so does this).
    static func cause(of error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let commit = transaction.commitError { return "COMMIT failed: \(cause(of: commit))" }
            if let begin = transaction.beginError { return "BEGIN failed: \(cause(of: begin))" }
            if let closure = transaction.closureError {
                let rollback = transaction.rollbackError.map { "; ROLLBACK failed too: \(cause(of: $0))" } ?? ""
                return cause(of: closure) + rollback
            }
            return "transaction failed"
        }
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(psql.serverInfo?[.sqlState] ?? "?"))"
            }
            return "connection: \(psql.code)"
        }
        return String(describing: error)
    }

    deinit { runTask.cancel() }

    package func shutdown() async {
        runTask.cancel()
        _ = await runTask.value
    }

    // MARK: schema

    /// Migrations in order; `schema_version` holds the applied ones. Each runs in a transaction holding an advisory
    /// lock, so instances starting together apply it once.
    static let migrations: [(version: Int, sql: [String])] = [
        (1, [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            """
            CREATE TABLE api_keys (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, key TEXT NOT NULL UNIQUE, airline TEXT NOT NULL,
                label TEXT NOT NULL, active BOOLEAN NOT NULL, created_at DOUBLE PRECISION NOT NULL)
            """,
            """
            CREATE TABLE reporters (
                airline TEXT NOT NULL, user_id TEXT NOT NULL, reporter_id TEXT NOT NULL UNIQUE, PRIMARY KEY (airline, user_id))
            """,
            """
            CREATE TABLE sessions (
                token TEXT PRIMARY KEY, key_id BIGINT NOT NULL REFERENCES api_keys(id), airline TEXT NOT NULL,
                reporter_id TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL, created_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX sessions_expiry ON sessions (expires_at)",
            "CREATE TABLE report_ids (id UUID PRIMARY KEY)",
            "CREATE SEQUENCE observations_seq",
            """
            CREATE TABLE observations (
                seq BIGINT NOT NULL DEFAULT nextval('observations_seq'), id UUID NOT NULL, h3 BIGINT NOT NULL,
                layer INTEGER NOT NULL, lat DOUBLE PRECISION NOT NULL, lng DOUBLE PRECISION NOT NULL,
                enter_time DOUBLE PRECISION NOT NULL, exit_time DOUBLE PRECISION NOT NULL, edr_peak DOUBLE PRECISION NOT NULL,
                edr_median DOUBLE PRECISION NOT NULL, reporter_class TEXT NOT NULL, reporter_id TEXT NOT NULL,
                tick BIGINT NOT NULL, received_at DOUBLE PRECISION NOT NULL, altitude_source TEXT,
                altitude_u90_ft DOUBLE PRECISION, layer_uncertain BOOLEAN
            ) PARTITION BY RANGE (exit_time)
            """,
            "CREATE TABLE observations_default PARTITION OF observations DEFAULT",
            "CREATE INDEX observations_tick ON observations (tick)",
            "CREATE INDEX observations_lat ON observations (lat, lng)",
            """
            CREATE TABLE nowcast (
                issue_time DOUBLE PRECISION NOT NULL, h3 BIGINT NOT NULL, layer INTEGER NOT NULL, lat DOUBLE PRECISION NOT NULL,
                lng DOUBLE PRECISION NOT NULL, forecast_hour INTEGER NOT NULL, edr DOUBLE PRECISION NOT NULL, tick BIGINT NOT NULL,
                PRIMARY KEY (issue_time, h3, layer, forecast_hour))
            """,
            "CREATE TABLE nowcast_issues (issue_time DOUBLE PRECISION PRIMARY KEY, tick BIGINT NOT NULL)",
            """
            CREATE TABLE flights (
                reporter_id TEXT NOT NULL, flight_id TEXT NOT NULL, public_id TEXT NOT NULL UNIQUE, airline TEXT NOT NULL,
                flight_number TEXT, aircraft_type TEXT NOT NULL, lat DOUBLE PRECISION NOT NULL, lng DOUBLE PRECISION NOT NULL,
                altitude_feet DOUBLE PRECISION NOT NULL, heading DOUBLE PRECISION NOT NULL, speed_knots DOUBLE PRECISION NOT NULL,
                time DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (reporter_id, flight_id))
            """,
            "CREATE INDEX flights_reporter ON flights (reporter_id, updated_at)",
            "CREATE INDEX flights_updated ON flights (updated_at)",
            """
            CREATE TABLE altitude_offsets (
                reporter_id TEXT NOT NULL, h3 BIGINT NOT NULL, layer INTEGER NOT NULL, time DOUBLE PRECISION NOT NULL,
                lat DOUBLE PRECISION NOT NULL, lng DOUBLE PRECISION NOT NULL, pressure_altitude_feet DOUBLE PRECISION NOT NULL,
                offset_feet DOUBLE PRECISION NOT NULL, uncertainty_feet DOUBLE PRECISION NOT NULL,
                received_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (reporter_id, h3, layer))
            """,
            "CREATE INDEX altitude_offsets_cell ON altitude_offsets (h3, layer, time)",
            "CREATE INDEX altitude_offsets_time ON altitude_offsets (time)",
        ]),
        // API keys stored hashed (SHA-256; docs/fleet-server.md "Keys"), the shown prefix in its own column; keys
        // issued before are hashed in place (PostgreSQL's own sha256()), so they keep working.
        (2, [
            "ALTER TABLE api_keys ADD COLUMN key_prefix TEXT NOT NULL DEFAULT ''",
            """
            UPDATE api_keys SET key_prefix = left(key, 10), key = 'sha256:' || encode(sha256(convert_to(key, 'UTF8')), 'hex')
            WHERE key NOT LIKE 'sha256:%'
            """,
        ]),
        // Fetches are served in pages in the order exit time, then seq (issue 30): a global fetch reads its window
        // through this index in that order (an index range per page, in the partitions the window touches).
        (3, ["CREATE INDEX observations_exit ON observations (exit_time, seq)"]),
    ]

    /// The newest schema version this build knows.
    static var schemaVersion: Int { migrations.last?.version ?? 0 }

    /// Applies the migrations not yet applied (idempotent; safe with several instances starting at once).
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
            """, logger: logger)
        for migration in migrations {
            try await connection.withTransaction(logger: logger) { connection in
                // 0x6564_6479 is "eddy": one lock for every eddy-server migrating this database.
                try await connection.query("SELECT pg_advisory_xact_lock(1701077113)", logger: logger)
                let rows = try await connection.query(
                    "SELECT count(*) FROM schema_version WHERE version = \(migration.version)", logger: logger)
                var applied = false
                for try await count in rows.decode(Int64.self) { applied = count > 0 }
                if applied { return }
                for statement in migration.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("INSERT INTO schema_version (version) VALUES (\(migration.version))", logger: logger)
                logger.info("PostgreSQL schema migrated", metadata: ["version": "\(migration.version)"])
            }
        }
    }

    /// The stored tick epoch, set by the first instance to open the database.
    static func readEpoch(_ connection: PostgresConnection, now: Double, logger: Logger) async throws -> Double {
        let proposed = String(now.rounded(.down))
        try await connection.query(
            "INSERT INTO meta (key, value) VALUES ('tick_epoch', \(proposed)) ON CONFLICT (key) DO NOTHING", logger: logger)
        let rows = try await connection.query("SELECT value FROM meta WHERE key = 'tick_epoch'", logger: logger)
        for try await value in rows.decode(String.self) {
            if let epoch = Double(value) { return epoch }
        }
        throw PostgresStorageError(location: "meta", problem: "the stored tick epoch is not a number")
    }

    /// Partition name of the day starting at `day` × 86,400 s.
    static func partitionName(day: Int) -> String { "observations_d\(day)" }

    /// The last day (Unix day number) that gets a partition when the server runs at `now`.
    static func lastPartitionDay(around now: Double) -> Int {
        guard now.isFinite, abs(now) < 1e11 else { return Int.max }
        return Int((now / partitionSeconds).rounded(.down)) + partitionDaysAhead
    }

    /// Creates the daily partitions from yesterday to `partitionDaysAhead` days after `now` (idempotent).
    static func createPartitions(_ connection: PostgresConnection, around now: Double, logger: Logger) async throws {
        let last = lastPartitionDay(around: now)
        guard last != Int.max else { return }
        for day in (last - partitionDaysAhead - 1)...last {
            let from = Double(day) * partitionSeconds, to = Double(day + 1) * partitionSeconds
            do {
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE TABLE IF NOT EXISTS \(partitionName(day: day)) PARTITION OF observations
                    FOR VALUES FROM (\(from)) TO (\(to))
                    """), logger: logger)
            } catch {
                // Rows of that day already in the default partition (partitions were not created ahead in time):
                // they stay there and are still found; the next days get their partitions.
                logger.warning("partition for day \(day) not created: \(String(reflecting: error))")
            }
        }
    }

    /// The database clock's lead over this process's system clock when beyond 1 s (measured every 30 s by `maintain`).
    package var clockOffsetSeconds: Double { clockOffset.withLock(visibleToThreadSanitizerAs: self) { $0.seconds } }

    /// Measures the database clock against the system clock: the midpoint of the round trip against the server's
    /// `clock_timestamp()`. Within ±1 s (hosts kept by NTP) the offset is taken as 0, so ticks never flicker.
    func measureClockOffset() async throws(ServerDatabaseError) {
        let logger = self.logger
        // Timed on the connection, once the pool has handed it over: the wait for a connection (long after an outage)
        // is not a difference between the clocks.
        let (before, database, after) = try await read("compare the clocks") { connection in
            let before = Date().timeIntervalSince1970
            let rows = try await connection.query("SELECT extract(epoch FROM clock_timestamp())::float8", logger: logger)
            var database = before
            for try await value in rows.decode(Double.self) { database = value }
            return (before, database, Date().timeIntervalSince1970)
        }
        // The midpoint is within half the round trip of the truth; beyond the 1-s dead band it could invent a lead, so a
        // slow round trip keeps the offset measured before.
        guard after - before <= Self.clockRoundTripLimitSeconds else {
            clockOffset.withLock(visibleToThreadSanitizerAs: self) { $0.measuredAt = after }
            logger.info("clock comparison with the database skipped: its round trip took \(after - before) s")
            return
        }
        let lead = database - (before + after) / 2
        clockOffset.withLock(visibleToThreadSanitizerAs: self) { $0 = (abs(lead) > 1 ? lead : 0, after) }
        if abs(lead) > 1 { logger.warning("this host's clock is \(lead) s behind the database's: ticks follow the database") }
    }

    /// Creates tomorrow's partitions once a day; measures the clock offset every 30 s.
    package func maintain(now: Double) async throws(ServerDatabaseError) {
        let measuredAt = clockOffset.withLock(visibleToThreadSanitizerAs: self) { $0.measuredAt }
        if Date().timeIntervalSince1970 - measuredAt >= Self.clockOffsetIntervalSeconds {
            try await measureClockOffset()
        }
        let last = Self.lastPartitionDay(around: now)
        if partitionsReadyThrough.withLock(visibleToThreadSanitizerAs: self, { $0 >= last }) { return }
        let logger = self.logger
        try await read("create partitions ahead") { connection in try await Self.createPartitions(connection, around: now, logger: logger) }
        partitionsReadyThrough.withLock(visibleToThreadSanitizerAs: self) { $0 = max($0, last) }
    }

    /// Retention: drops the daily partitions that end before `exitBefore` whole (no row-by-row delete, no bloat),
    /// deletes older rows from the partition it cuts and from the default partition, and forgets the upload ids of
    /// everything deleted.
    package func purgeReports(exitBefore: Double) async throws(ServerDatabaseError) -> Int {
        guard exitBefore.isFinite else { return 0 }
        let logger = self.logger
        // Saturating: `--retention-days 1e300` puts the horizon at -8.6e304 s, beyond Int.
        let lastWholeDay = Int(saturating: exitBefore / Self.partitionSeconds, rounding: .down) - 1
        return try await write("purge old reports") { connection in
            var total = 0
            let partitions = try await connection.query("""
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'observations'
                """, logger: logger)
            var whole: [String] = []
            for try await name in partitions.decode(String.self) {
                guard name.hasPrefix("observations_d"), let day = Int(name.dropFirst("observations_d".count)),
                      day <= lastWholeDay else { continue }
                whole.append(name)
            }
            for name in whole {
                let counted = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(name)"), logger: logger)
                for try await n in counted.decode(Int64.self) { total += Int(n) }
                try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM report_ids r USING \(name) o WHERE r.id = o.id"),
                                           logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(name)"), logger: logger)
            }
            let rest = try await connection.query("""
                WITH gone AS (DELETE FROM observations WHERE exit_time < \(exitBefore) RETURNING id),
                     ids AS (DELETE FROM report_ids r USING gone g WHERE r.id = g.id RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger)
            for try await n in rest.decode(Int64.self) { total += Int(n) }
            return total
        }
    }

    // MARK: keys

    package func addKey(airline: String, label: String, now: Double) async throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        let key = StorageSupport.newAPIKey()
        let logger = self.logger
        let id = try await write("add an API key") { connection -> Int64 in
            let rows = try await connection.query("""
                INSERT INTO api_keys (key, key_prefix, airline, label, active, created_at)
                VALUES (\(StorageSupport.apiKeyHash(key)), \(StorageSupport.apiKeyPrefix(key)), \(airline), \(label), TRUE, \(now))
                RETURNING id
                """, logger: logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            return id
        }
        return (key, APIKeyRecord(id: id, airline: airline, label: label, prefix: StorageSupport.apiKeyPrefix(key), active: true,
                                  createdAt: now))
    }

    package func listKeys() async throws(ServerDatabaseError) -> [APIKeyRecord] {
        try await read("list the API keys") { connection in
            var result: [APIKeyRecord] = []
            let rows = try await connection.query("SELECT id, key_prefix, airline, label, active, created_at FROM api_keys ORDER BY id", logger: self.logger)
            for try await (id, prefix, airline, label, active, createdAt) in rows.decode((Int64, String, String, String, Bool, Double).self) {
                result.append(APIKeyRecord(id: id, airline: airline, label: label, prefix: prefix, active: active, createdAt: createdAt))
            }
            return result
        }
    }

    package func revokeKey(id: Int64) async throws(ServerDatabaseError) {
        let logger = self.logger
        try await write("revoke an API key") { connection in
            let rows = try await connection.query("UPDATE api_keys SET active = FALSE WHERE id = \(id) RETURNING id", logger: logger)
            var found = false
            for try await _ in rows.decode(Int64.self) { found = true }
            if !found { throw ServerDatabaseError.unknownKey(id) }
        }
    }

    package func lookupKey(_ key: String) async throws(ServerDatabaseError) -> (id: Int64, airline: String, active: Bool)? {
        try await read("look up an API key") { connection in
            let rows = try await connection.query(
                "SELECT id, airline, active FROM api_keys WHERE key = \(StorageSupport.apiKeyHash(key))", logger: self.logger)
            for try await (id, airline, active) in rows.decode((Int64, String, Bool).self) { return (id, airline, active) }
            return nil
        }
    }

    // MARK: sessions

    package func openSession(keyId: Int64, airline: String, userId: String, now: Double, ttl: Double) async throws(ServerDatabaseError) -> SessionRecord {
        let token = StorageSupport.randomHex(bytes: 32)
        let candidate = "r_" + StorageSupport.randomHex(bytes: 8)
        let logger = self.logger
        let reporterId: String = try await write("open a session") { connection in
            try await connection.query("""
                INSERT INTO reporters (airline, user_id, reporter_id) VALUES (\(airline), \(userId), \(candidate))
                ON CONFLICT (airline, user_id) DO NOTHING
                """, logger: logger)
            var reporter = candidate
            let rows = try await connection.query(
                "SELECT reporter_id FROM reporters WHERE airline = \(airline) AND user_id = \(userId)", logger: logger)
            for try await value in rows.decode(String.self) { reporter = value }
            try await connection.query("DELETE FROM sessions WHERE expires_at < \(now - StorageSupport.forgetSessionsExpiredSeconds)", logger: logger)
            try await connection.query("""
                INSERT INTO sessions (token, key_id, airline, reporter_id, expires_at, created_at)
                VALUES (\(token), \(keyId), \(airline), \(reporter), \(now + ttl), \(now))
                """, logger: logger)
            return reporter
        }
        return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporterId, expiresAt: now + ttl, keyActive: true)
    }

    package func session(token: String) async throws(ServerDatabaseError) -> SessionRecord? {
        try await read("look up a session") { connection in
            let rows = try await connection.query("""
                SELECT s.token, s.key_id, s.airline, s.reporter_id, s.expires_at, k.active
                FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.token = \(token)
                """, logger: self.logger)
            for try await (token, keyId, airline, reporter, expires, active) in rows.decode((String, Int64, String, String, Double, Bool).self) {
                return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporter, expiresAt: expires, keyActive: active)
            }
            return nil
        }
    }

    package func expireAllSessions(now: Double) async throws(ServerDatabaseError) {
        let logger = self.logger
        try await write("expire the sessions") { connection in
            _ = try await connection.query("UPDATE sessions SET expires_at = \(now - 1)", logger: logger)
        }
    }

    // MARK: observations

    /// One statement: the served reporter id (the uploader's live flight, else a fresh random id), the new ids claimed
    /// in `report_ids` (`ON CONFLICT DO NOTHING`, so a report uploaded to two instances is stored once), and the rows
    /// of those ids inserted from arrays (one statement per batch, between `BEGIN` and `COMMIT`; the new ids are
    /// returned only once the commit succeeded). Nullable columns travel as sentinels ('' , NaN, -1) turned back into
    /// NULL by NULLIF.
    package func insertReports(_ upload: ReportUpload) async throws(ServerDatabaseError) -> Set<UUID> {
        let rows = upload.rows
        if rows.isEmpty { return [] }
        let (ids, h3, layer, lat, lng, enter, exit, peak, median, classes, sources, u90, uncertain) = Self.columns(of: rows)
        let (reporterId, since, fallback) = (upload.reporterId, upload.liveFlightUpdatedSince, upload.fallbackPublicId)
        let (tick, now) = (Int64(upload.tick), upload.receivedAt)
        let logger = self.logger
        // In a transaction: the ids are returned (and acknowledged) only once COMMIT has succeeded.
        return try await write("store uploaded reports") { connection -> Set<UUID> in
            let result = try await connection.query("""
                WITH served AS (
                    SELECT COALESCE((SELECT public_id FROM flights WHERE reporter_id = \(reporterId) AND updated_at >= \(since)
                                     ORDER BY updated_at DESC LIMIT 1), \(fallback)) AS id),
                fresh AS (INSERT INTO report_ids (id) SELECT unnest(\(ids)::uuid[]) ON CONFLICT DO NOTHING RETURNING id)
                INSERT INTO observations (id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class,
                    reporter_id, tick, received_at, altitude_source, altitude_u90_ft, layer_uncertain)
                SELECT t.id, t.h3, t.layer, t.lat, t.lng, t.enter_time, t.exit_time, t.edr_peak, t.edr_median, t.class,
                    (SELECT id FROM served), \(tick), \(now), NULLIF(t.source, ''), NULLIF(t.u90, 'NaN'::float8),
                    CASE t.uncertain WHEN -1 THEN NULL ELSE t.uncertain = 1 END
                FROM unnest(\(ids)::uuid[], \(h3)::int8[], \(layer)::int8[], \(lat)::float8[], \(lng)::float8[], \(enter)::float8[],
                            \(exit)::float8[], \(peak)::float8[], \(median)::float8[], \(classes)::text[], \(sources)::text[],
                            \(u90)::float8[], \(uncertain)::int8[])
                    AS t(id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, class, source, u90, uncertain)
                WHERE t.id IN (SELECT id FROM fresh)
                RETURNING id
                """, logger: logger)
            var fresh = Set<UUID>()
            for try await id in result.decode(UUID.self) { fresh.insert(id) }
            return fresh
        }
    }

    /// The upload's rows as one array per column (bound with `unnest`).
    static func columns(of rows: [IngestRow]) -> (
        ids: [UUID], h3: [Int64], layer: [Int64], lat: [Double], lng: [Double], enter: [Double], exit: [Double], peak: [Double],
        median: [Double], classes: [String], sources: [String], u90: [Double], uncertain: [Int64]
    ) {
        var ids: [UUID] = [], h3: [Int64] = [], layer: [Int64] = [], lat: [Double] = [], lng: [Double] = []
        var enter: [Double] = [], exit: [Double] = [], peak: [Double] = [], median: [Double] = [], classes: [String] = []
        var sources: [String] = [], u90: [Double] = [], uncertain: [Int64] = []
        for row in rows {
            let r = row.report
            ids.append(r.id); h3.append(Int64(bitPattern: r.tile.h3)); layer.append(Int64(r.tile.layer))
            lat.append(row.center.lat); lng.append(row.center.lng); enter.append(r.enterTime); exit.append(r.exitTime)
            peak.append(r.edrPeak); median.append(r.edrMedian); classes.append(r.reporterClass.rawValue)
            sources.append(r.altitudeSource?.rawValue ?? ""); u90.append(r.altitudeU90Feet ?? .nan)
            uncertain.append(r.layerUncertain.map { $0 ? 1 : 0 } ?? -1)
        }
        return (ids, h3, layer, lat, lng, enter, exit, peak, median, classes, sources, u90, uncertain)
    }

    /// The fetch query and its binds (shared by `observations` and `hasObservations`).
    func observationQuery(_ query: ObservationQuery, columns: String, suffix: String) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(query.minExitTime)
        binds.append(Int64(query.minLayer))
        binds.append(Int64(query.maxLayer))
        var sql = "SELECT \(columns) FROM observations WHERE exit_time >= $1 AND layer BETWEEN $2 AND $3"
        if let after = query.after {
            binds.append(after.exitTime)
            binds.append(after.sequence)
            sql += " AND (exit_time, seq) > ($\(binds.count - 1), $\(binds.count))"
        }
        if let minTick = query.minTick {
            binds.append(Int64(minTick))
            sql += " AND tick >= $\(binds.count)"
        }
        if let box = query.boundingBox {
            for value in [box.minLat, box.maxLat, box.minLng, box.maxLng] { binds.append(value) }
            let n = binds.count
            sql += " AND lat BETWEEN $\(n - 3) AND $\(n - 2) AND lng BETWEEN $\(n - 1) AND $\(n)"
        }
        return PostgresQuery(unsafeSQL: sql + suffix, binds: binds)
    }

    package func observations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> [StoredObservation] {
        let statement = observationQuery(query, columns: """
            id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class, reporter_id, tick,
            altitude_source, altitude_u90_ft, layer_uncertain, seq
            """, suffix: " ORDER BY exit_time, seq" + (query.limit.map { " LIMIT \($0)" } ?? ""))
        return try await read("read observations") { connection in
            let rows = try await connection.query(statement, logger: self.logger)
            var result: [StoredObservation] = []
            for try await row in rows {
                let (id, h3, layer, lat, lng, enter, exit, peak, median, className, reporter, tick, source, u90, uncertain, seq) = try row.decode(
                    (UUID, Int64, Int, Double, Double, Double, Double, Double, Double, String, String, Int64, String?, Double?, Bool?, Int64).self)
                guard let reporterClass = AircraftClass(rawValue: className) else { continue }
                let report = TileReport(
                    id: id, tile: TileID(h3: UInt64(bitPattern: h3), layer: layer), enterTime: enter, exitTime: exit,
                    edrPeak: peak, edrMedian: median, reporterClass: reporterClass,
                    altitudeSource: source.flatMap(AltitudeSource.init(rawValue:)), altitudeU90Feet: u90, layerUncertain: uncertain)
                result.append(StoredObservation(observation: Observation(report: report, reporterId: reporter, tick: Int(tick)),
                                                center: GeoPoint(lat: lat, lng: lng),
                                                position: ObservationPosition(exitTime: exit, sequence: seq)))
            }
            return result
        }
    }

    package func hasObservations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> Bool {
        let statement = observationQuery(query, columns: "1", suffix: " LIMIT 1")
        return try await read("read observations") { connection in
            let rows = try await connection.query(statement, logger: self.logger)
            for try await _ in rows { return true }
            return false
        }
    }

    package func nowcastInputs(from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredNowcastInput] {
        try await read("read the nowcast's inputs") { connection in
            let rows = try await connection.query(
                "SELECT h3, layer, exit_time, edr_peak FROM observations WHERE exit_time BETWEEN \(from) AND \(to)", logger: self.logger)
            var result: [StoredNowcastInput] = []
            for try await (h3, layer, exit, peak) in rows.decode((Int64, Int, Double, Double).self) {
                result.append(StoredNowcastInput(cell: UInt64(bitPattern: h3), layer: layer, exitTime: exit, edrPeak: peak))
            }
            return result
        }
    }

    // MARK: nowcast

    package func latestNowcastIssue() async throws(ServerDatabaseError) -> (issueTime: Double, tick: Int)? {
        try await read("read the latest nowcast issue") { connection in
            let rows = try await connection.query("SELECT issue_time, tick FROM nowcast_issues ORDER BY issue_time DESC LIMIT 1", logger: self.logger)
            for try await (time, tick) in rows.decode((Double, Int64).self) { return (time, Int(tick)) }
            return nil
        }
    }

    package func storeNowcast(issueTime: Double, tick: Int, cells: [StoredNowcastCell]) async throws(ServerDatabaseError) {
        let h3 = cells.map { Int64(bitPattern: $0.cell) }, layer = cells.map { Int64($0.layer) }
        let lat = cells.map(\.center.lat), lng = cells.map(\.center.lng)
        let hour = cells.map { Int64($0.forecastHour) }, edr = cells.map(\.edr)
        let logger = self.logger
        try await write("store a nowcast issue") { connection in
            // One issuer at a time across instances; the others find the issue stored and leave.
            try await connection.query("SELECT pg_advisory_xact_lock(1701077114)", logger: logger)
            let rows = try await connection.query("SELECT count(*) FROM nowcast_issues WHERE issue_time >= \(issueTime)", logger: logger)
            var existing: Int64 = 0
            for try await count in rows.decode(Int64.self) { existing = count }
            if existing > 0 { return }
            try await connection.query("DELETE FROM nowcast", logger: logger)
            try await connection.query("""
                INSERT INTO nowcast (issue_time, h3, layer, lat, lng, forecast_hour, edr, tick)
                SELECT \(issueTime), t.h3, t.layer, t.lat, t.lng, t.hour, t.edr, \(Int64(tick))
                FROM unnest(\(h3)::int8[], \(layer)::int8[], \(lat)::float8[], \(lng)::float8[], \(hour)::int8[], \(edr)::float8[])
                    AS t(h3, layer, lat, lng, hour, edr)
                """, logger: logger)
            try await connection.query("INSERT INTO nowcast_issues (issue_time, tick) VALUES (\(issueTime), \(Int64(tick)))", logger: logger)
        }
    }

    package func nowcastCells(minLayer: Int, maxLayer: Int, boundingBox: GeoBoundingBox?, after: NowcastPosition?, limit: Int?)
        async throws(ServerDatabaseError) -> [IssuedNowcastCell] {
        var binds = PostgresBindings()
        binds.append(Int64(minLayer))
        binds.append(Int64(maxLayer))
        var sql = "SELECT issue_time, h3, layer, lat, lng, forecast_hour, edr FROM nowcast WHERE layer BETWEEN $1 AND $2"
        if let box = boundingBox {
            for value in [box.minLat, box.maxLat, box.minLng, box.maxLng] { binds.append(value) }
            sql += " AND lat BETWEEN $3 AND $4 AND lng BETWEEN $5 AND $6"
        }
        if let after {
            binds.append(after.cell)
            binds.append(Int64(after.layer))
            binds.append(Int64(after.forecastHour))
            sql += " AND (h3, layer, forecast_hour) > ($\(binds.count - 2), $\(binds.count - 1), $\(binds.count))"
        }
        sql += " ORDER BY h3, layer, forecast_hour" + (limit.map { " LIMIT \($0)" } ?? "")
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await read("read the nowcast") { connection in
            let rows = try await connection.query(query, logger: self.logger)
            var result: [IssuedNowcastCell] = []
            for try await (issueTime, h3, layer, lat, lng, hour, edr) in rows.decode((Double, Int64, Int, Double, Double, Int, Double).self) {
                result.append(IssuedNowcastCell(issueTime: issueTime, cell: StoredNowcastCell(
                    cell: UInt64(bitPattern: h3), layer: layer, forecastHour: hour, edr: edr, center: GeoPoint(lat: lat, lng: lng))))
            }
            return result
        }
    }

    // MARK: flights

    package func storePosition(_ write: PositionWrite) async throws(ServerDatabaseError) {
        let logger = self.logger
        let flight = write.flight
        try await self.write("store a live position") { connection in
            try await connection.query("""
                INSERT INTO flights (reporter_id, flight_id, public_id, airline, flight_number, aircraft_type, lat, lng, altitude_feet,
                    heading, speed_knots, time, updated_at)
                VALUES (\(flight.reporterId), \(flight.clientFlightId), \(flight.publicId), \(flight.airline), \(flight.flightNumber),
                    \(flight.aircraftType), \(flight.latitude), \(flight.longitude), \(flight.altitudeFeet), \(flight.headingDegrees),
                    \(flight.speedKnots), \(flight.time), \(flight.updatedAt))
                ON CONFLICT (reporter_id, flight_id) DO UPDATE SET airline = excluded.airline,
                    flight_number = excluded.flight_number, aircraft_type = excluded.aircraft_type,
                    lat = excluded.lat, lng = excluded.lng, altitude_feet = excluded.altitude_feet, heading = excluded.heading,
                    speed_knots = excluded.speed_knots, time = excluded.time, updated_at = excluded.updated_at
                """, logger: logger)
            try await connection.query("DELETE FROM flights WHERE updated_at < \(write.dropFlightsUpdatedBefore)", logger: logger)
            if let offset = write.altitudeOffset {
                let o = offset.observation
                try await connection.query("""
                    INSERT INTO altitude_offsets (reporter_id, h3, layer, time, lat, lng, pressure_altitude_feet, offset_feet,
                        uncertainty_feet, received_at)
                    VALUES (\(offset.reporterId), \(Int64(bitPattern: offset.cell)), \(Int64(offset.layer)), \(o.time),
                        \(o.latitudeDegrees), \(o.longitudeDegrees), \(o.pressureAltitudeFeet), \(o.offsetFeet), \(o.uncertaintyFeet),
                        \(offset.receivedAt))
                    ON CONFLICT (reporter_id, h3, layer) DO UPDATE SET time = excluded.time, lat = excluded.lat,
                        lng = excluded.lng, pressure_altitude_feet = excluded.pressure_altitude_feet,
                        offset_feet = excluded.offset_feet, uncertainty_feet = excluded.uncertainty_feet,
                        received_at = excluded.received_at
                    WHERE excluded.time >= altitude_offsets.time
                    """, logger: logger)
            }
            if let cutoff = write.dropAltitudeOffsetsMeasuredBefore {
                try await connection.query("DELETE FROM altitude_offsets WHERE time < \(cutoff)", logger: logger)
            }
        }
    }

    package func liveFlights(updatedSince: Double, afterPublicId: String?, limit: Int?) async throws(ServerDatabaseError) -> [StoredFlight] {
        let (after, limitClause) = (afterPublicId ?? "", limit.map { " LIMIT \($0)" } ?? "")
        return try await read("read live flights") { connection in
            let rows = try await connection.query("""
                SELECT reporter_id, flight_id, public_id, airline, flight_number, aircraft_type, lat, lng, altitude_feet, heading,
                    speed_knots, time, updated_at
                FROM flights WHERE updated_at >= \(updatedSince) AND public_id > \(after) ORDER BY public_id\(unescaped: limitClause)
                """, logger: self.logger)
            var result: [StoredFlight] = []
            for try await (reporter, clientId, publicId, airline, number, type, lat, lng, altitude, heading, speed, time, updatedAt)
                in rows.decode((String, String, String, String, String?, String, Double, Double, Double, Double, Double, Double, Double).self) {
                result.append(StoredFlight(
                    reporterId: reporter, clientFlightId: clientId, publicId: publicId, airline: airline, flightNumber: number,
                    aircraftType: type, latitude: lat, longitude: lng, altitudeFeet: altitude, headingDegrees: heading, speedKnots: speed,
                    time: time, updatedAt: updatedAt))
            }
            return result
        }
    }

    // MARK: fleet altitude offsets

    package func altitudeOffsetObservations(
        cells: [UInt64]?, minLayer: Int, maxLayer: Int, oldestTime: Double
    ) async throws(ServerDatabaseError) -> [AltitudeOffsetAggregation.Input] {
        var binds = PostgresBindings()
        binds.append(Int64(minLayer))
        binds.append(Int64(maxLayer))
        binds.append(oldestTime)
        var sql = "SELECT h3, layer, offset_feet, uncertainty_feet, time FROM altitude_offsets WHERE layer BETWEEN $1 AND $2 AND time >= $3"
        if let cells {
            if cells.isEmpty { return [] }
            binds.append(cells.map { Int64(bitPattern: $0) })
            sql += " AND h3 = ANY($4::int8[])"
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await read("read fleet altitude offsets") { connection in
            let rows = try await connection.query(query, logger: self.logger)
            var result: [AltitudeOffsetAggregation.Input] = []
            for try await (h3, layer, offset, uncertainty, time) in rows.decode((Int64, Int, Double, Double, Double).self) {
                result.append(AltitudeOffsetAggregation.Input(
                    cell: UInt64(bitPattern: h3), layer: layer, offsetFeet: offset, uncertaintyFeet: uncertainty, time: time))
            }
            return result
        }
    }
}
