import EddyClock
import EddyCore
import EddyH3
import EddyProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
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
        let storage = try await Self.storage(on: cluster)
        let key = try await storage.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        let service = try SyncService(database: storage, options: ServerOptions(), logger: StorageBackend.quiet)
        let app = EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil)
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
        let storage = try await Self.storage(on: cluster)
        let key = try await storage.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        let service = try SyncService(database: storage, options: ServerOptions(), logger: StorageBackend.quiet)
        let app = EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil)
        // The lock is taken on a connection of its own, outside the storage's pool and meter.
        let locker = try await PostgresConnection.connect(
            on: PostgresClient.defaultEventLoopGroup.next(), configuration: PostgresConnection.Configuration(
                host: storage.location.host, port: storage.location.port, username: storage.location.username, password: nil,
                database: storage.location.database, tls: .disable), id: 1, logger: StorageBackend.quiet).get()
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
