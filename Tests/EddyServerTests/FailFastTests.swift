#if Tools
import EddyH3
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import PostgresNIO
import Testing

@testable import EddyServerKit

/// Fail fast when the database goes away (issue 30, deliverable 2), on a real PostgreSQL stopped with `pg_ctl stop -m
/// fast` in the middle of the test and started again (`PostgresFaultCluster`: a cluster of the test's own).
@Suite(.serialized) struct FailFastTests {
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue
    /// Short limits, so the test waits seconds: 2 s to connect, 3 s for a connection of the pool, 4 s a statement.
    static let timeouts: DatabaseTimeouts = {
        var timeouts = DatabaseTimeouts()
        timeouts.connectSeconds = 2
        timeouts.connectionWaitSeconds = 3
        timeouts.querySeconds = 4
        return timeouts
    }()
    /// How long an answer may take once the database is gone: the connection wait, and slack for a loaded machine.
    static let failFastSeconds = 3.0 + 5

    static func json(_ value: some Encodable) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }

    /// A fresh database on `cluster`, opened with the short timeouts.
    static func storage(on cluster: PostgresFaultCluster) async throws -> PostgresServerStorage {
        guard case .postgres(let server) = try DatabaseLocation(parsing: cluster.url) else { throw StorageTestError("not postgres") }
        let name = "eddy_fault_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let fresh = try await PostgresServerStorage.createDatabase(named: name, on: server, logger: StorageBackend.quiet)
        return try await PostgresServerStorage.open(fresh, now: Date().timeIntervalSince1970, logger: StorageBackend.quiet,
                                                    maximumConnections: 4, timeouts: timeouts)
    }

    /// A fresh database on `cluster` with one key for DAL, and the in-process server on it.
    static func server(on cluster: PostgresFaultCluster) async throws -> (PostgresServerStorage, String, some ApplicationProtocol) {
        let storage = try await storage(on: cluster)
        let key = try await storage.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        let service = try SyncService(database: storage, options: ServerOptions(), logger: StorageBackend.quiet)
        return (storage, key, EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil))
    }

    /// A connection of its own to `location`, outside any storage's pool and meter (to hold locks).
    static func locker(_ location: PostgresLocation) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            on: PostgresClient.defaultEventLoopGroup.next(), configuration: PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.username, password: nil, database: location.database,
                tls: .disable), id: 1, logger: StorageBackend.quiet).get()
    }

    /// Seconds `body` took, and its result.
    static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = ContinuousClock.now
        let value = try await body()
        let elapsed = ContinuousClock.now - start
        return (value, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test func requestsAndReadyzAnswer503WithinSecondsOfTheDatabaseGoingAwayAndRecoverWhenItReturns() async throws {
        let cluster = try await PostgresFaultCluster.start()
        defer { cluster.destroy() }
        let (storage, key, app) = try await Self.server(on: cluster)
        let exit = Date().timeIntervalSince1970 - 100
        let reports = (0..<3).map { _ in
            TileReport(id: UUID(), tile: TileID(h3: Self.cell, layer: 35), enterTime: exit - 60, exitTime: exit, edrPeak: 0.3,
                       edrMedian: 0.1, reporterClass: .medium)
        }
        try await app.test(.router) { client in
            let session = try await client.execute(uri: "/v1/session", method: .post, body: Self.json(
                SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")))
            let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: session.body)).token
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)

            try await cluster.stopFast()
            let (ready, readySeconds) = try await Self.timed { try await client.execute(uri: "/readyz", method: .get) }
            #expect(ready.status == .serviceUnavailable)
            #expect(readySeconds < Self.failFastSeconds, "/readyz took \(readySeconds) s")
            let (upload, uploadSeconds) = try await Self.timed {
                try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports)))
            }
            #expect(upload.status == .serviceUnavailable)
            #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: upload.body)) == APIError.storageFailed.body)
            #expect(uploadSeconds < Self.failFastSeconds, "the upload took \(uploadSeconds) s")
            // Every refused request is counted as the 5xx it was (the outage shows on the error-rate alert).
            let scraped = try PrometheusText(String(buffer: try await client.execute(uri: "/metrics", method: .get).body))
            #expect(scraped.value("eddy_http_requests_total", ["route": "/readyz", "method": "GET", "status": "503"]) == 1)
            #expect(scraped.value("eddy_http_requests_total", ["route": "/v1/reports", "method": "POST", "status": "503"]) == 1)
            // Nothing is open and nothing waits once the requests have been answered (the calls that gave up are
            // cancelled; their lease requests end within moments).
            var idle = storage.poolLoad
            for _ in 0..<300 where idle != .init(connectionsInUse: 0, requestsWaiting: 0, poolSize: 4) {
                try await Task.sleep(for: .milliseconds(10))
                idle = storage.poolLoad
            }
            #expect(idle == .init(connectionsInUse: 0, requestsWaiting: 0, poolSize: 4))

            try await cluster.startAgain()
            var recovered = false
            let (_, recoverySeconds) = try await Self.timed {
                for _ in 0..<60 where !recovered {
                    recovered = try await client.execute(uri: "/readyz", method: .get).status == .ok
                    if !recovered { try await Task.sleep(for: .milliseconds(500)) }
                }
            }
            #expect(recovered && recoverySeconds < 30, "ready again after \(recoverySeconds) s")
            let retried = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports)))
            #expect(retried.status == .ok)
            #expect(try JSONDecoder().decode(ReportBatchAck.self, from: Data(buffer: retried.body)).newCount == 3)
        }
        await storage.shutdown()
    }

    /// `eddy-server serve` ends within its shutdown timeout after SIGTERM, whatever the database does: with a request held
    /// in the database by a lock, and with the database stopped while a request waits for a connection (issue 30 saw
    /// SIGTERM wait 13 minutes, then for the database to come back). The limits to wait for the database are long here
    /// (120 s), so only the shutdown's bound can end those requests.
    @Test func gracefulShutdownIsBoundedWhateverTheDatabaseDoes() async throws {
        let cluster = try await PostgresFaultCluster.start()
        defer { cluster.destroy() }
        let binary = PostgresFaultCluster.root.appendingPathComponent(".build/debug/eddy-server").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build eddy-server first (swift build)")
        guard case .postgres(let server) = try DatabaseLocation(parsing: cluster.url) else { throw StorageTestError("not postgres") }
        let name = "eddy_fault_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let location = try await PostgresServerStorage.createDatabase(named: name, on: server, logger: StorageBackend.quiet)
        let setup = try await PostgresServerStorage.open(location, now: Date().timeIntervalSince1970, logger: StorageBackend.quiet)
        let key = try await setup.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        await setup.shutdown()
        let shutdownTimeout = 3.0
        let fetchBody = String(decoding: try JSONEncoder().encode(DeltaFetchRequest(dataType: .turbulence, area: .global)), as: UTF8.self)
        let sessionBody = String(decoding: try JSONEncoder().encode(
            SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")), as: UTF8.self)

        /// Starts the server, opens a session, starts a fetch that will wait in the database after `stall`, sends SIGTERM;
        /// returns how long the server took to exit, its status, and whether the fetch ended.
        func shutDown(while stall: () async throws -> Void) async throws -> (seconds: Double, status: Int32?, fetchEnded: Bool) {
            let serve = try Subprocess([binary, "serve", "--database", "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database)", "--port", "0", "--log-level", "error",
                                        "--shutdown-timeout", String(shutdownTimeout), "--database-wait-timeout", "120",
                                        "--database-query-timeout", "120"])
            defer { serve.send(SIGKILL); _ = serve.exitStatus(); serve.removeFiles() }
            let base = try await serve.eddyServerBaseURL()
            func curl(_ path: String, _ body: String, token: String? = nil) throws -> Subprocess {
                try Subprocess(["curl", "-s", "-m", "150", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
                                "-H", "X-Eddy-Client-Version: 1.0.0"] + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [])
                               + ["-d", body, base + path])
            }
            let sessionCall = try Subprocess(["curl", "-s", "-m", "30", "-H", "Content-Type: application/json", "-d", sessionBody,
                                              base + "/v1/session"])
            _ = sessionCall.waitForExit()
            let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(sessionCall.standardOutput.utf8)).token
            sessionCall.removeFiles()
            try await stall()
            let fetch = try curl("/v1/fetch", fetchBody, token: token)
            defer { fetch.send(SIGKILL); _ = fetch.exitStatus(); fetch.removeFiles() }
            try await Task.sleep(for: .seconds(1.5))   // the fetch reaches the database and waits there
            #expect(fetch.exitStatus() == nil, "the fetch did not wait: \(fetch.standardOutput)")
            serve.send(SIGTERM)
            let (status, seconds) = try await Self.timed { () async throws -> Int32? in
                var status: Int32?
                for _ in 0..<600 where status == nil {   // ≤ 30 s
                    status = serve.exitStatus()
                    if status == nil { try await Task.sleep(for: .milliseconds(50)) }
                }
                return status
            }
            var fetchEnded = false
            for _ in 0..<100 where !fetchEnded {
                fetchEnded = fetch.exitStatus() != nil
                if !fetchEnded { try await Task.sleep(for: .milliseconds(50)) }
            }
            return (seconds, status, fetchEnded)
        }

        // A request held by a lock in the database.
        let locker = try await Self.locker(location)
        let locked = try await shutDown {
            try await locker.query("BEGIN", logger: StorageBackend.quiet)
            try await locker.query("LOCK TABLE observations IN ACCESS EXCLUSIVE MODE", logger: StorageBackend.quiet)
        }
        try? await locker.close()
        #expect(locked.status == 0, "exit status \(String(describing: locked.status)) after \(locked.seconds) s")
        #expect(locked.seconds < shutdownTimeout + 5, "shutdown with a request held by a lock took \(locked.seconds) s")
        #expect(locked.fetchEnded)

        // The database stopped while a request waits for a connection.
        let stopped = try await shutDown { try await cluster.stopFast() }
        #expect(stopped.status == 0, "exit status \(String(describing: stopped.status)) after \(stopped.seconds) s")
        #expect(stopped.seconds < shutdownTimeout + 5, "shutdown with the database stopped took \(stopped.seconds) s")
        #expect(stopped.fetchEnded)
    }

    /// The clock comparison times its query on the connection it got: when the database comes back after an outage, the
    /// seconds spent waiting for a connection do not show up as a lead of the database's clock (issue 30 logged "5.5 /
    /// 13.7 / 27 s behind the database" after an outage, and ticks shifted with it).
    @Test func theClockComparisonLeavesOutTheWaitForAConnection() async throws {
        let cluster = try await PostgresFaultCluster.start()
        defer { cluster.destroy() }
        guard case .postgres(let server) = try DatabaseLocation(parsing: cluster.url) else { throw StorageTestError("not postgres") }
        var patient = Self.timeouts
        patient.connectionWaitSeconds = 30
        let storage = try await PostgresServerStorage.open(server, now: Date().timeIntervalSince1970, logger: StorageBackend.quiet,
                                                           maximumConnections: 2, timeouts: patient)
        #expect(storage.clockOffsetSeconds == 0)   // one host, one clock
        try await cluster.stopFast()
        let measuring = Task { try await Self.timed { try await storage.measureClockOffset() } }
        try await Task.sleep(for: .seconds(4))
        try await cluster.startAgain()
        let (_, seconds) = try await measuring.value
        #expect(seconds > 4, "the comparison did not wait for the database: \(seconds) s")
        #expect(storage.clockOffsetSeconds == 0, "an outage of \(seconds) s became a clock lead of \(storage.clockOffsetSeconds) s")
        await storage.shutdown()
    }

    /// A fetch waiting in the database (a lock held elsewhere) when the database stops ends — answered 503 — instead of
    /// hanging on its connection; the gauges show it holding its connection while it waits and nothing after.
    @Test func aRequestInFlightWhenTheDatabaseStopsEnds() async throws {
        let cluster = try await PostgresFaultCluster.start()
        defer { cluster.destroy() }
        let (storage, key, app) = try await Self.server(on: cluster)
        let locker = try await Self.locker(storage.location)
        try await app.test(.router) { client in
            let session = try await client.execute(uri: "/v1/session", method: .post, body: Self.json(
                SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")))
            let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: session.body)).token
            try await locker.query("BEGIN", logger: StorageBackend.quiet)
            try await locker.query("LOCK TABLE observations IN ACCESS EXCLUSIVE MODE", logger: StorageBackend.quiet)
            let fetch = try Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global))
            let inFlight = Task {
                try await Self.timed {
                    try await client.execute(uri: "/v1/fetch", method: .post, headers: [.authorization: "Bearer \(token)"], body: fetch)
                }
            }
            var held = false
            for _ in 0..<300 where !held {   // ≤ 3 s: the fetch has its connection and waits for the lock
                held = storage.poolLoad.connectionsInUse == 1
                if !held { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(held, "the fetch never held a connection: \(storage.poolLoad)")
            try await cluster.stopFast()
            let (answer, seconds) = try await inFlight.value
            #expect(answer.status == .serviceUnavailable)
            // Bounded by the statement limit and its grace at most (PostgreSQL ends the session at once, normally).
            #expect(seconds < Self.timeouts.querySeconds + DatabaseTimeouts.graceSeconds + 5, "the fetch took \(seconds) s")
            var idle = storage.poolLoad
            for _ in 0..<300 where idle.connectionsInUse + idle.requestsWaiting > 0 {
                try await Task.sleep(for: .milliseconds(10))
                idle = storage.poolLoad
            }
            #expect(idle.connectionsInUse == 0 && idle.requestsWaiting == 0, "\(idle)")
        }
        try? await locker.close()
        await storage.shutdown()
    }
}

/// Ticks never step backwards (issue 30): a tick already answered stays the floor, whatever the clock the ticks are
/// counted on does next (the database clock's measured lead shrinking, here the server's own clock set back).
@Suite struct MonotonicTickTests {
    @Test(arguments: StorageBackend.allCases) func ticksNeverStepBackwards(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        let storage = try await backend.makeStorage(now: clock.now())
        let service = try SyncService(database: storage, clock: clock, options: ServerOptions(), logger: StorageBackend.quiet)
        clock.advance(by: 600)
        #expect(service.currentTick() == 10)
        clock.advance(by: -150)   // 7.5 ticks after the epoch
        #expect(service.currentTick() == 10)
        clock.advance(by: 200)    // 10.8
        #expect(service.currentTick() == 10)
        clock.advance(by: 20)     // 11.2
        #expect(service.currentTick() == 11)
        await storage.shutdown()
    }
}
#endif
