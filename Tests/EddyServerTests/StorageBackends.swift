#if Tools
import Foundation
import Logging
import Testing

@testable import EddyServerKit

/// The storage backends every server suite runs against (`@Test(arguments: StorageBackend.allCases)`): SQLite, PostgreSQL
/// and in memory.
///
/// PostgreSQL cases need `EDDY_TEST_POSTGRES_URL` (a running server, e.g. `scripts/pg_cluster.sh start`; `make test`
/// starts one). Without it they are skipped (cancelled, reported as skipped) — except under `CI=true`, where they fail.
enum StorageBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// SQLite in a temporary folder.
    case sqlite
    /// A fresh database per test on the server `EDDY_TEST_POSTGRES_URL` names (skipped when unset, failing under CI=true).
    case postgres
    /// `InMemoryServerStorage`: this process's memory.
    case memory

    var testDescription: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgres (EDDY_TEST_POSTGRES_URL; skipped when unset, fails when unset under CI=true)"
        case .memory: "memory"
        }
    }

    /// The backends that keep their data in a database (with connections, a pool and commits that can fail).
    static let databases: [StorageBackend] = [.sqlite, .postgres]

    /// A logger that drops everything.
    static let quiet = Logger(label: "storage-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Opens a fresh, empty storage of this backend (the test is cancelled as skipped for PostgreSQL without a URL).
    func makeStorage(now: Double = Date().timeIntervalSince1970) async throws -> any ServerStorage {
        switch self {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-storage-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return try SQLiteServerStorage(path: dir.appendingPathComponent("s.sqlite").path)
        case .postgres:
            let environment = ProcessInfo.processInfo.environment
            guard let url = environment["EDDY_TEST_POSTGRES_URL"], !url.isEmpty else {
                if environment["CI"] == "true" {
                    throw StorageTestError("EDDY_TEST_POSTGRES_URL is unset under CI=true: the PostgreSQL cases cannot run "
                        + "(make test-unit starts a cluster with scripts/pg_cluster.sh and sets it)")
                }
                try Test.cancel("EDDY_TEST_POSTGRES_URL is unset: PostgreSQL case skipped (scripts/pg_cluster.sh start)")
            }
            guard case .postgres(let server) = try DatabaseLocation(parsing: url) else {
                throw StorageTestError("EDDY_TEST_POSTGRES_URL must be a postgres:// URL, got \(url)")
            }
            let name = "eddy_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let fresh = try await PostgresServerStorage.createDatabase(named: name, on: server, logger: Self.quiet)
            return try await PostgresServerStorage.open(fresh, now: now, logger: Self.quiet, maximumConnections: 4)
        case .memory:
            return InMemoryServerStorage()
        }
    }
}

/// A test set-up failure with its reason.
struct StorageTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
#endif
