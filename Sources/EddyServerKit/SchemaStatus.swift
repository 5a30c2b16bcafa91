#if Tools
import EddyProtocol
import EddyVocabulary
import Foundation
import GRDB
package import Logging
import PostgresNIO

/// What `eddy-server --version` says: the build, the wire protocol and the schema versions it migrates to.
package enum ServerVersion {
    /// The build's version (`MAJOR.MINOR.PATCH`).
    package static var number: String { EddyVersion.current }
    /// `eddy-server 1.0.0 (wire protocol 1; schema: SQLite 5 migrations, PostgreSQL version 3)`.
    package static var description: String {
        "eddy-server \(number) (wire protocol \(EddyWire.version); schema: SQLite \(SQLiteServerStorage.migrator.migrations.count) "
            + "migrations, PostgreSQL version \(PostgresServerStorage.schemaVersion))"
    }
}

/// The schema migrations of a database, as `eddy-server migrate --status` and `--dry-run` report them.
package struct MigrationStatus: Sendable, Equatable {
    /// The migrations applied, oldest first (SQLite: identifiers; PostgreSQL: versions).
    package var applied: [String]
    /// The migrations this build would apply, in order.
    package var pending: [String]
    /// Dry run only: seconds the pending migrations took before they were undone.
    package var dryRunSeconds: Double?

    /// The report printed by `eddy-server migrate`.
    package var text: String {
        var lines = ["applied: \(applied.isEmpty ? "none" : applied.joined(separator: ", "))",
                     "pending: \(pending.isEmpty ? "none (the schema is current)" : pending.joined(separator: ", "))"]
        if let dryRunSeconds {
            lines.append(pending.isEmpty ? "dry run: nothing to apply"
                : String(format: "dry run: the pending migrations applied in %.3f s and were undone; nothing changed", dryRunSeconds))
        }
        return lines.joined(separator: "\n")
    }
}

extension SQLiteServerStorage {
    /// The migrations of the SQLite file at `path` (read only; a missing file has every migration pending). With
    /// `dryRun`, the pending ones are applied to a copy of the file (`VACUUM INTO`), timed, and the copy removed.
    package static func migrationStatus(path: String, dryRun: Bool) throws(ServerDatabaseError) -> MigrationStatus {
        let all = migrator.migrations
        guard FileManager.default.fileExists(atPath: path) else {
            return MigrationStatus(applied: [], pending: all, dryRunSeconds: dryRun ? try dryRunCopy(of: nil) : nil)
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let applied = try queue.read { db in try migrator.appliedIdentifiers(db) }
            var status = MigrationStatus(applied: all.filter(applied.contains), pending: all.filter { !applied.contains($0) })
            if dryRun { status.dryRunSeconds = try dryRunCopy(of: queue) }
            try queue.close()
            return status
        } catch {
            throw .wrapping(error, operation: "read the schema of \(path)")
        }
    }

    /// Copies the database of `queue` (nil: an empty one) to a temporary file, migrates the copy and removes it;
    /// returns the seconds the migrations took.
    static func dryRunCopy(of queue: DatabaseQueue?) throws(ServerDatabaseError) -> Double {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-migrate-dry-run-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        do {
            try queue?.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy]) }
            let target = try DatabaseQueue(path: copy)
            let started = Date()
            try migrator.migrate(target)
            let seconds = Date().timeIntervalSince(started)
            try target.close()
            return seconds
        } catch {
            throw .wrapping(error, operation: "dry-run the migrations on a copy")
        }
    }
}

extension PostgresServerStorage {
    /// The migrations of the database at `location` (`schema_version`; nothing changed). With `dryRun`, the pending
    /// ones run in one transaction that is rolled back (PostgreSQL's DDL is transactional), timed.
    package static func migrationStatus(
        _ location: PostgresLocation, dryRun: Bool, logger: Logger, timeouts: DatabaseTimeouts = .init()
    ) async throws(PostgresStorageError) -> MigrationStatus {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: try PostgresConnectionSettings.connectionTLS(location))
        configuration.options.connectTimeout = .milliseconds(Int64(timeouts.connectSeconds * 1000))
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: configuration, id: 0, logger: logger).get()
        } catch {
            throw PostgresStorageError(location: location.redacted, problem: PostgresConnectionSettings.explain(error, location: location))
        }
        do {
            var applied: Set<Int> = []
            let exists = try await connection.query("SELECT to_regclass('schema_version') IS NOT NULL", logger: logger)
            var hasTable = false
            for try await value in exists.decode(Bool.self) { hasTable = value }
            if hasTable {
                let rows = try await connection.query("SELECT version FROM schema_version", logger: logger)
                for try await version in rows.decode(Int.self) { applied.insert(version) }
            }
            let pending = migrations.filter { !applied.contains($0.version) }
            var status = MigrationStatus(applied: migrations.map(\.version).filter(applied.contains).map { "\($0)" },
                                         pending: pending.map { "\($0.version)" })
            if dryRun {
                let started = Date()
                try await connection.query("BEGIN", logger: logger)
                do {
                    if !hasTable {
                        try await connection.query(
                            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                            logger: logger)
                    }
                    for migration in pending {
                        for statement in migration.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                    }
                    status.dryRunSeconds = Date().timeIntervalSince(started)
                    try await connection.query("ROLLBACK", logger: logger)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
            try await connection.close()
            return status
        } catch {
            try? await connection.close()
            throw PostgresStorageError(location: location.redacted, problem: "the schema could not be read or dry-run: "
                + PostgresServerStorage.cause(of: error))
        }
    }
}
#endif
