#if Tools
import EddyH3
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import PostgresNIO
import Testing

@testable import EddyServerKit

/// Acknowledged means committed (issue 30, deliverable 1): an upload's `acceptedIds` / `newCount`, and the 200 of a
/// position upload, are sent only after the database committed the write; a failed commit is a 503 `storageFailed`
/// (logged at error level with the database's reason) that the client retries, and the retry stores everything.
///
/// The commit fails by a rule of the database itself that is checked only at COMMIT, after every statement of the
/// request succeeded — the failure the server cannot see before it commits:
/// - PostgreSQL: a `CREATE CONSTRAINT TRIGGER … DEFERRABLE INITIALLY DEFERRED` that raises (the issue's reproduction;
///   before the fix the upload was answered 200 with `newCount: 2` and nothing was stored);
/// - SQLite, which has no deferred triggers: a trigger that writes a row breaking a `DEFERRABLE INITIALLY DEFERRED`
///   foreign key, which SQLite checks only at COMMIT (and then refuses it: `FOREIGN KEY constraint failed`). A GRDB
///   commit hook (`TransactionObserver.databaseWillCommit` throwing) would fail the commit too, but it runs inside the
///   storage's own writer connection and would have to be installed through its internals; the deferred key is a plain
///   schema change made from another connection, like the PostgreSQL trigger, and fails the real COMMIT statement.
@Suite struct AcknowledgedMeansCommittedTests {
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue

    /// Installs (or removes) the commit-time failure on the tables uploads and positions write.
    static func refuseCommits(_ storage: any ServerStorage, _ refuse: Bool) async throws {
        if let postgres = storage as? PostgresServerStorage {
            let statements = refuse ? [
                """
                CREATE FUNCTION eddy_test_refuse_commit() RETURNS trigger LANGUAGE plpgsql
                AS $$ BEGIN RAISE EXCEPTION 'injected commit failure on %', TG_TABLE_NAME; END $$
                """,
                """
                CREATE CONSTRAINT TRIGGER eddy_test_refuse_commit AFTER INSERT ON report_ids
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION eddy_test_refuse_commit()
                """,
                """
                CREATE CONSTRAINT TRIGGER eddy_test_refuse_commit AFTER INSERT OR UPDATE ON flights
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION eddy_test_refuse_commit()
                """,
            ] : [
                "DROP TRIGGER eddy_test_refuse_commit ON report_ids",
                "DROP TRIGGER eddy_test_refuse_commit ON flights",
                "DROP FUNCTION eddy_test_refuse_commit()",
            ]
            for statement in statements {
                try await postgres.pool.withConnection { _ = try await $0.query(PostgresQuery(unsafeSQL: statement), logger: StorageBackend.quiet) }
            }
        } else if let sqlite = storage as? SQLiteServerStorage {
            // Another connection on the same file (foreign keys are on in GRDB's connections, the storage's included).
            let queue = try DatabaseQueue(path: sqlite.path)
            try await queue.write { db in
                if refuse {
                    try db.execute(sql: """
                        CREATE TABLE eddy_test_parent (id INTEGER PRIMARY KEY);
                        CREATE TABLE eddy_test_orphans (
                            parent INTEGER NOT NULL REFERENCES eddy_test_parent(id) DEFERRABLE INITIALLY DEFERRED);
                        CREATE TRIGGER eddy_test_refuse_commit_reports AFTER INSERT ON observations
                        BEGIN INSERT INTO eddy_test_orphans (parent) VALUES (1); END;
                        CREATE TRIGGER eddy_test_refuse_commit_flights AFTER INSERT ON flights
                        BEGIN INSERT INTO eddy_test_orphans (parent) VALUES (1); END;
                        """)
                } else {
                    try db.execute(sql: """
                        DROP TRIGGER eddy_test_refuse_commit_reports; DROP TRIGGER eddy_test_refuse_commit_flights;
                        DROP TABLE eddy_test_orphans; DROP TABLE eddy_test_parent;
                        """)
                }
            }
            try queue.close()
        } else {
            throw StorageTestError("no commit failure to inject into \(type(of: storage))")
        }
    }

    static func json(_ value: some Encodable) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }

    /// On the database backends (in memory, a call is its own transaction and has no commit that could fail).
    @Test(arguments: StorageBackend.databases)
    func aFailedCommitIsA503ThatAcknowledgesNothingAndTheRetryStoresEverything(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage()
        let domain = ServerDomain(storage: storage)
        let key = try await storage.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        let lines = CapturedLines()
        let logger = Logger(label: "commit-test") { _ in CapturingLogHandler(lines: lines) }
        let now = Date().timeIntervalSince1970.rounded(.down)
        let service = try SyncService(database: storage, clock: ManualEpochClock(start: now), options: ServerOptions(), logger: logger)
        let app = EddyServerApplication.make(service: service, logger: logger, checkpointInterval: nil)
        let reports = (0..<2).map { i in
            TileReport(id: UUID(), tile: TileID(h3: Self.cell, layer: 30 + i), enterTime: now - 160, exitTime: now - 100,
                       edrPeak: 0.3, edrMedian: 0.1, reporterClass: .medium)
        }
        let position = LiveFlight(flightID: "DAL1", latitude: 40, longitude: -100, altitudeFeet: 35_000, headingDegrees: 90,
                                  groundSpeedKnots: 450, aircraftType: "B738", time: now)
        let everything = ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)
        try await app.test(.router) { client in
            let session = try await client.execute(uri: "/v1/session", method: .post, body: Self.json(
                SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")))
            #expect(session.status == .ok)
            let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: session.body)).token
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]

            try await Self.refuseCommits(storage, true)
            let refused = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports)))
            #expect(refused.status == .serviceUnavailable)
            #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: refused.body)) == APIError.storageFailed.body)
            #expect(try await domain.observations(everything).isEmpty, "the refused commit stored something")
            let position503 = try await client.execute(uri: "/v1/position", method: .post, headers: auth, body: Self.json(position))
            #expect(position503.status == .serviceUnavailable)
            #expect(try await domain.flights(polygon: nil, now: now, expiry: 600, excludingReporter: "-", viewerAirline: "DAL").isEmpty)
            // Logged at error level, with the database's own reason.
            let failures = lines.all.filter { $0.level == .error && $0.metadata["operation"] != nil }
            #expect(failures.map { $0.metadata["operation"] } == ["store uploaded reports", "store a live position"])
            for failure in failures {
                let cause = failure.metadata["cause"] ?? ""
                #expect(backend == .postgres ? cause.contains("COMMIT failed: injected commit failure") : cause.contains("FOREIGN KEY constraint failed"),
                        "\(cause)")
            }

            // The client retries the same batch once the database accepts commits again: everything is stored and acknowledged.
            try await Self.refuseCommits(storage, false)
            let retried = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports)))
            #expect(retried.status == .ok)
            let ack = try JSONDecoder().decode(ReportBatchAck.self, from: Data(buffer: retried.body))
            #expect(ack.newCount == 2 && ack.duplicateCount == 0 && Set(ack.acceptedIds) == Set(reports.map(\.id)))
            #expect(try await Set(domain.observations(everything).map(\.report.id)) == Set(reports.map(\.id)))
            #expect(try await client.execute(uri: "/v1/position", method: .post, headers: auth, body: Self.json(position)).status == .ok)
            #expect(try await domain.flights(polygon: nil, now: now, expiry: 600, excludingReporter: "-", viewerAirline: "DAL").count == 1)
        }
        await storage.shutdown()
    }

    /// The writes an operator is told about (`eddy-server keys add|revoke`) follow the commit too: a refused commit throws
    /// instead of printing a key that was never stored.
    @Test func postgresKeyWritesReportOnlyCommittedChanges() async throws {
        let storage = try await StorageBackend.postgres.makeStorage()
        let postgres = try #require(storage as? PostgresServerStorage)
        let (_, kept) = try await storage.addKey(airline: "DAL", label: "kept", now: 1)
        for statement in [
            "CREATE FUNCTION eddy_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no keys today'; END $$",
            """
            CREATE CONSTRAINT TRIGGER eddy_test_refuse AFTER INSERT OR UPDATE ON api_keys
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION eddy_test_refuse()
            """,
        ] { try await postgres.pool.withConnection { _ = try await $0.query(PostgresQuery(unsafeSQL: statement), logger: StorageBackend.quiet) } }
        do {
            let added = try await storage.addKey(airline: "DAL", label: "lost", now: 2)
            Issue.record("a key was reported although its commit failed: \(added.record)")
        } catch {
            #expect(error.description.contains("COMMIT failed: no keys today"), "\(error)")
        }
        await #expect(throws: ServerDatabaseError.self) { try await storage.revokeKey(id: kept.id) }
        #expect(try await storage.listKeys() == [kept])
        await storage.shutdown()
    }
}
#endif
