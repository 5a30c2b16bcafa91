#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
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
    /// The connections (each with a `PostgresReadGate`; PostgresNIO's `PostgresClient` cannot carry one).
    let pool: PostgresConnectionPool
    let location: PostgresLocation
    let logger: Logger
    let epoch: Double
    /// Storage calls in progress (each holds or waits for one of the pool's connections), for `/metrics`.
    let meter: StorageLoadMeter
    /// How long calls wait for the database.
    let timeouts: DatabaseTimeouts
    /// The day (Unix day number) up to which partitions exist, so `maintain` acts once a day.
    let partitionsReadyThrough = Mutex<Int>(Int.min)
    /// The database clock's lead over the system clock (0 within the 1-s dead band) and when it was last measured.
    let clockOffset = Mutex<(seconds: Double, measuredAt: Double)>((0, -Double.infinity))
    /// Time between clock-offset measurements, seconds.
    static let clockOffsetIntervalSeconds = 30.0
    /// A clock comparison whose query took longer than this (seconds) is not used: its midpoint could be off by half.
    static let clockRoundTripLimitSeconds = 1.0
    /// Days of partitions created ahead of today.
    static let partitionDaysAhead = 2
    /// Seconds in a partition.
    static let partitionSeconds = 86_400.0

    private init(pool: PostgresConnectionPool, location: PostgresLocation, logger: Logger, epoch: Double, timeouts: DatabaseTimeouts) {
        self.pool = pool
        self.timeouts = timeouts
        self.meter = StorageLoadMeter(poolSize: pool.maximumConnections)
        self.location = location
        self.logger = logger
        self.epoch = epoch
    }

    /// Connects (failing fast with what to do when the server is unreachable or refuses the login), migrates, creates
    /// the partitions around `now` and reads (or sets) the tick epoch. `maximumConnections` sizes the pool; `timeouts`
    /// bound every wait for the database.
    package static func open(
        _ location: PostgresLocation, now: Double, logger: Logger, maximumConnections: Int = 16, timeouts: DatabaseTimeouts = .init()
    ) async throws(PostgresStorageError) -> PostgresServerStorage {
        let tls = try PostgresConnectionSettings.connectionTLS(location)
        // One direct connection first, so that a typo in --database fails at start with what to do.
        var probeConfiguration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: tls)
        probeConfiguration.options.connectTimeout = .milliseconds(Int64(timeouts.connectSeconds * 1000))
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: probeConfiguration, id: 0, logger: logger).get()
        } catch {
            throw PostgresStorageError(location: location.redacted, problem: PostgresConnectionSettings.explain(error, location: location))
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
            throw PostgresStorageError(location: location.redacted, problem: PostgresConnectionSettings.explain(error, location: location))
        }
        // The server ends any statement that runs longer (SQLSTATE 57014), on every connection of the pool.
        let settings = PostgresConnectionPool.Settings(
            location: location, tls: tls, connectSeconds: timeouts.connectSeconds, statementSeconds: timeouts.querySeconds)
        let pool = PostgresConnectionPool(settings: settings, maximumConnections: maximumConnections, logger: logger)
        let storage = PostgresServerStorage(pool: pool, location: location, logger: logger, epoch: epoch, timeouts: timeouts)
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
            database: location.database, tls: try PostgresConnectionSettings.connectionTLS(location))
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
            throw PostgresStorageError(location: location.redacted, problem: PostgresConnectionSettings.explain(error, location: location))
        }
        var created = location
        created.database = name
        return created
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
        let pool = self.pool
        do {
            return try await StorageDeadline.run(
                connectionWaitSeconds: timeouts.connectionWaitSeconds, workSeconds: timeouts.querySeconds + DatabaseTimeouts.graceSeconds,
                meter: meter
            ) { connected in
                try await pool.withConnection { connection in
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

    /// Closes every connection of the pool (calls still running fail; they answer 503).
    package func shutdown() async {
        await pool.shutdown()
    }
}
#endif
