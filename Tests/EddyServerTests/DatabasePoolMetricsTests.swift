#if Tools
import EddySupport
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@testable import EddyServerKit

/// The database-pool gauges of `/metrics` (`eddy_database_connections_in_use`, `_requests_waiting`, `_pool_size`)
/// follow the storage calls really in progress, on both database backends (`StorageLoadMeter`, `ServerStorage.poolLoad`).
@Suite struct DatabasePoolMetricsTests {
    /// Calls count as waiting until the pool hands them a connection, then as using it, until they end; repeated
    /// reports change nothing.
    @Test func theMeterCountsCallsHoldingAConnectionAndCallsWaitingForOne() {
        let meter = StorageLoadMeter(poolSize: 4)
        #expect(meter.load == .init(connectionsInUse: 0, requestsWaiting: 0, poolSize: 4))
        let calls = (0..<6).map { _ in meter.call() }
        #expect(meter.load == .init(connectionsInUse: 0, requestsWaiting: 6, poolSize: 4))
        for call in calls.prefix(4) { call.connected(); call.connected() }
        #expect(meter.load == .init(connectionsInUse: 4, requestsWaiting: 2, poolSize: 4))
        for call in calls.prefix(3) { call.end(); call.end() }
        #expect(meter.load == .init(connectionsInUse: 1, requestsWaiting: 2, poolSize: 4))
        calls[5].end()   // gave up waiting
        calls[5].connected()
        #expect(meter.load == .init(connectionsInUse: 1, requestsWaiting: 1, poolSize: 4))
        for call in calls { call.end() }
        #expect(meter.load == .init(connectionsInUse: 0, requestsWaiting: 0, poolSize: 4))
    }

    /// A storage call blocked in the database shows in the service's `/metrics` text, and nothing once it has finished:
    /// on PostgreSQL it holds its connection and waits for a table lock (one connection in use); on SQLite it waits for
    /// the one writer, which the blocker holds (one request waiting: before the gauges were measured, every call in
    /// progress counted as a connection in use). Not for `InMemoryServerStorage`: it has no connections, and a call holds its lock
    /// only while it computes, so nothing can block it (its gauges: `theInMemoryStorageCountsItsCallsOnItsOneLock`).
    @Test(arguments: StorageBackend.databases) func aBlockedStorageCallShowsInTheGauges(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage()
        let service = try SyncService(database: storage, clock: SystemEpochClock(), options: ServerOptions(), logger: StorageBackend.quiet)
        var idle = try PrometheusText(service.metrics.exposition())
        #expect(idle.value("eddy_database_connections_in_use") == 0)
        #expect(idle.value("eddy_database_requests_waiting") == 0)
        #expect(idle.value("eddy_database_pool_size") == Double(storage.poolLoad.poolSize ?? -1))

        let blocker = try await Blocker(holding: storage)
        let blocked = Task { try await storage.expireAllSessions(now: 1) }
        let gauge = backend == .sqlite ? "eddy_database_requests_waiting" : "eddy_database_connections_in_use"
        var seen: Double?
        for _ in 0..<2000 {   // ≤ 20 s: the call reaches the database and waits on the blocker
            seen = try PrometheusText(service.metrics.exposition()).value(gauge)
            if seen == 1 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(seen == 1, "the blocked call never showed in \(gauge)")
        let other = backend == .sqlite ? "eddy_database_connections_in_use" : "eddy_database_requests_waiting"
        #expect(try PrometheusText(service.metrics.exposition()).value(other) == 0)
        try await blocker.release()
        try await blocked.value
        idle = try PrometheusText(service.metrics.exposition())
        #expect(idle.value("eddy_database_connections_in_use") == 0)
        #expect(idle.value("eddy_database_requests_waiting") == 0)
        await storage.shutdown()
    }

    /// Holds the `sessions` table (PostgreSQL: an exclusive table lock in an open transaction) or the writer (SQLite:
    /// a write that waits) outside the meter, so that a storage call writing to it waits in the database.
    final class Blocker: Sendable {
        private let release: AsyncStream<Void>.Continuation
        private let holder: Task<Void, any Error>

        init(holding storage: any ServerStorage) async throws {
            let (gate, release) = AsyncStream<Void>.makeStream()
            let (held, heldSignal) = AsyncStream<Void>.makeStream()
            self.release = release
            if let postgres = storage as? PostgresServerStorage {
                holder = Task {
                    try await postgres.pool.withConnection { connection in
                        try await connection.withTransaction(logger: StorageBackend.quiet) { connection in
                            try await connection.query("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE", logger: StorageBackend.quiet)
                            heldSignal.yield()
                            for await _ in gate { break }
                        }
                    }
                }
            } else if let sqlite = storage as? SQLiteServerStorage {
                let semaphore = DispatchSemaphore(value: 0)
                holder = Task {
                    let waiting = Task.detached {
                        try await sqlite.pool.write { _ in
                            heldSignal.yield()
                            semaphore.wait()   // GRDB's writer queue, not the cooperative pool
                        }
                    }
                    for await _ in gate { break }
                    semaphore.signal()
                    try await waiting.value
                }
            } else {
                throw StorageTestError("unknown storage \(type(of: storage))")
            }
            for await _ in held { break }
        }

        func release() async throws {
            release.yield()
            release.finish()
            try await holder.value
        }
    }
}

/// `InMemoryServerStorage` has one lock and no connections: its gauges show a pool of one, and calls that have
/// finished leave nothing in use.
@Suite struct InMemoryPoolGaugeTests {
    @Test func theInMemoryStorageCountsItsCallsOnItsOneLock() async throws {
        let storage: any ServerStorage = InMemoryServerStorage()
        let service = try SyncService(database: storage, clock: SystemEpochClock(), options: ServerOptions(), logger: StorageBackend.quiet)
        #expect(storage.poolLoad == .init(connectionsInUse: 0, requestsWaiting: 0, poolSize: 1))
        try await withThrowingTaskGroup { group in
            for i in 0..<64 { group.addTask { _ = try await storage.addKey(airline: "DAL", label: "k\(i)", now: 1) } }
            try await group.waitForAll()
        }
        #expect(try await storage.listKeys().count == 64)
        let text = try PrometheusText(service.metrics.exposition())
        #expect(text.value("eddy_database_pool_size") == 1)
        #expect(text.value("eddy_database_connections_in_use") == 0)
        #expect(text.value("eddy_database_requests_waiting") == 0)
    }
}
#endif
