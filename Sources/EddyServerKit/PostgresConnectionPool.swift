#if Tools
import EddySupport
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The server's PostgreSQL connections: at most `maximumConnections`, each made by `PostgresConnectionPool.connect`
/// with a `PostgresReadGate` next to its socket (docs/fleet-server.md "The read gate").
///
/// PostgresNIO's own `PostgresClient` cannot carry the gate (it makes its channels itself and offers no hook on them),
/// so this small pool replaces it. A call takes an idle connection, or opens one when fewer than `maximumConnections`
/// are open, or waits for one to come back. While the database cannot be reached, a call that opens a connection
/// tries again until it gets one, so it recovers as soon as the database is back. Connections that closed — the
/// database restarted, a query broke the connection — are dropped when they come back or are taken. Waiting and trying
/// end by cancellation (`StorageDeadline` cancels a call that waited too long: 503). No I/O runs under the lock.
final class PostgresConnectionPool: Sendable {
    /// What `connect` needs: where, who, TLS, and the limits.
    struct Settings: Sendable {
        /// The server and database.
        var location: PostgresLocation
        /// TLS from `sslmode` (`PostgresConnectionSettings.connectionTLS`).
        var tls: PostgresConnection.Configuration.TLS
        /// TCP connect plus start-up (TLS, login) limit, seconds.
        var connectSeconds: Double
        /// PostgreSQL's `statement_timeout` on every connection, seconds.
        var statementSeconds: Double
    }

    /// A waiting call's turn: a connection handed back by another call, or room to open one of its own.
    enum Turn: Sendable {
        case connection(PostgresConnection)
        case room
    }

    struct State {
        /// Connections open and not in use, most recently used last.
        var idle: [PostgresConnection] = []
        /// Every connection open or being opened (idle, in use, connecting): at most `maximumConnections`.
        var openCount = 0
        /// Every open connection by id, so that shutdown can close those in use too.
        var open: [Int: PostgresConnection] = [:]
        /// Calls waiting for a turn, oldest first.
        var waiters: [(id: Int, continuation: CheckedContinuation<Turn, any Error>)] = []
        var nextID = 1
        var isShutDown = false
        /// Whether the last attempt to open a connection failed (so that an outage is logged once).
        var connectFailing = false
    }

    /// How to connect.
    let settings: Settings
    /// Connections the pool may open at once.
    let maximumConnections: Int
    let logger: Logger
    private let state = Mutex(State())

    /// A pool of at most `maximumConnections` connections made with `settings`; it opens none until a call needs one.
    init(settings: Settings, maximumConnections: Int, logger: Logger) {
        self.settings = settings
        self.maximumConnections = max(1, maximumConnections)
        self.logger = logger
    }

    /// A pool dropped without `shutdown()` (tests do) closes what is open; each connection lives until its close has
    /// finished (PostgresNIO asserts that a connection it frees is closed).
    deinit {
        let connections = state.withLock(visibleToThreadSanitizerAs: self) { Array($0.open.values) }
        for connection in connections {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Connections open now (idle or in use, not those being opened).
    var openConnectionCount: Int { state.withLock(visibleToThreadSanitizerAs: self) { $0.open.count } }

    /// Runs `body` on a connection of the pool and gives the connection back (dropped if it closed meanwhile).
    func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection = try await take()
        do {
            let result = try await body(connection)
            giveBack(connection)
            return result
        } catch {
            giveBack(connection)
            throw error
        }
    }

    /// Closes every connection (those in use too: their calls fail) and fails every waiting call; later calls fail at
    /// once. Returns when every close has finished.
    func shutdown() async {
        let (connections, waiters) = state.withLock(visibleToThreadSanitizerAs: self) { state in
            state.isShutDown = true
            defer {
                state.openCount -= state.open.count
                state.open.removeAll()
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (Array(state.open.values), state.waiters.map(\.continuation))
        }
        for waiter in waiters { waiter.resume(throwing: PostgresPoolClosed()) }
        await withTaskGroup(of: Void.self) { group in
            for connection in connections { group.addTask { try? await connection.close() } }
        }
    }

    /// An idle open connection, a new one, or (when `maximumConnections` are open) the next that comes back. The choice
    /// and the joining of the queue happen under one lock, so a connection given back meanwhile is never missed.
    func take() async throws -> PostgresConnection {
        let id = state.withLock(visibleToThreadSanitizerAs: self) { state in
            state.nextID += 1
            return state.nextID
        }
        let turn = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Turn, any Error>) in
                let now = state.withLock(visibleToThreadSanitizerAs: self) { state -> Result<Turn, any Error>? in
                    if state.isShutDown { return .failure(PostgresPoolClosed()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    while let connection = state.idle.popLast() {
                        if !connection.isClosed { return .success(.connection(connection)) }
                        Self.forget(connection, in: &state)
                    }
                    if state.openCount < maximumConnections {
                        state.openCount += 1
                        return .success(.room)
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock(visibleToThreadSanitizerAs: self) { state -> CheckedContinuation<Turn, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
        switch turn {
        case .connection(let connection): return connection
        case .room: return try await openConnection()
        }
    }

    /// Gives `connection` to the oldest waiting call, or keeps it idle; a closed one (or any after shutdown) is closed
    /// and its room given to a waiting call.
    func giveBack(_ connection: PostgresConnection) {
        enum Outcome { case handed(CheckedContinuation<Turn, any Error>, Turn), kept, close(CheckedContinuation<Turn, any Error>?) }
        let outcome = state.withLock(visibleToThreadSanitizerAs: self) { state -> Outcome in
            if connection.isClosed || state.isShutDown {
                Self.forget(connection, in: &state)
                guard !state.isShutDown, !state.waiters.isEmpty else { return .close(nil) }
                state.openCount += 1
                return .close(state.waiters.removeFirst().continuation)
            }
            if !state.waiters.isEmpty { return .handed(state.waiters.removeFirst().continuation, .connection(connection)) }
            state.idle.append(connection)
            return .kept
        }
        switch outcome {
        case .handed(let waiter, let turn): waiter.resume(returning: turn)
        case .kept: break
        case .close(let waiter):
            waiter?.resume(returning: .room)
            if !connection.isClosed { Task { try? await connection.close() } }
        }
    }

    /// Opens a connection in the room this call holds, trying again (50 ms, doubling to 1 s apart) while the database
    /// cannot be reached, until it succeeds, the pool shuts down or the call is cancelled (`StorageDeadline` cancels it
    /// at the connection wait limit, and the caller answers 503); then the room goes to a waiting call.
    private func openConnection() async throws -> PostgresConnection {
        var pauseSeconds = 0.05
        do {
            while true {
                try Task.checkCancellation()
                let id = state.withLock(visibleToThreadSanitizerAs: self) { state in
                    state.nextID += 1
                    return state.nextID
                }
                do {
                    let connection = try await Self.connect(settings, id: id, logger: logger)
                    noteConnectOutcome(failure: nil)
                    let kept = state.withLock(visibleToThreadSanitizerAs: self) { state -> Bool in
                        guard !state.isShutDown else { return false }
                        state.open[id] = connection
                        return true
                    }
                    if kept { return connection }
                    try? await connection.close()
                    throw PostgresPoolClosed()
                } catch let closed as PostgresPoolClosed {
                    throw closed
                } catch {
                    noteConnectOutcome(failure: error)
                    if state.withLock(visibleToThreadSanitizerAs: self, { $0.isShutDown }) { throw PostgresPoolClosed() }
                    try await Task.sleep(for: .seconds(pauseSeconds))
                    pauseSeconds = min(1, pauseSeconds * 2)
                }
            }
        } catch {
            let waiter = state.withLock(visibleToThreadSanitizerAs: self) { state -> CheckedContinuation<Turn, any Error>? in
                state.openCount -= 1
                guard !state.isShutDown, !state.waiters.isEmpty else { return nil }
                state.openCount += 1
                return state.waiters.removeFirst().continuation
            }
            waiter?.resume(returning: .room)
            throw error
        }
    }

    /// Logs the first failure to open a connection after a success (a warning naming the cause) and the first success
    /// after failures, not every attempt of an outage.
    private func noteConnectOutcome(failure: (any Error)?) {
        let wasFailing = state.withLock(visibleToThreadSanitizerAs: self) { state in
            defer { state.connectFailing = failure != nil }
            return state.connectFailing
        }
        if let failure, !wasFailing {
            logger.warning("cannot open a database connection; trying again while calls wait", metadata: [
                "error": "\(PostgresConnectionSettings.explain(failure, location: settings.location))",
            ])
        } else if failure == nil, wasFailing {
            logger.notice("database connections open again")
        }
    }

    /// Drops a closed (or closing) connection from the bookkeeping and frees its room.
    private static func forget(_ connection: PostgresConnection, in state: inout State) {
        if state.open.removeValue(forKey: connection.id) != nil { state.openCount -= 1 }
    }

    /// Opens one gated connection: TCP (within `connectSeconds`), a `PostgresReadGate` in the pipeline before the
    /// channel is active, then PostgresNIO's start-up (TLS, login, `statement_timeout`) on that channel, within
    /// `connectSeconds` again.
    static func connect(_ settings: Settings, id: Int, logger: Logger) async throws -> PostgresConnection {
        let location = settings.location
        let connectTimeout = TimeAmount.milliseconds(Int64(settings.connectSeconds * 1000))
        let channel = try await ClientBootstrap(group: PostgresClient.defaultEventLoopGroup)
            .connectTimeout(connectTimeout)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(PostgresReadGate()) }
            }
            .connect(host: location.host, port: location.port).get()
        var configuration = PostgresConnection.Configuration(
            establishedChannel: channel, tls: settings.tls, username: location.username, password: location.password,
            database: location.database)
        // On an established channel PostgresNIO bounds the start-up by this, and names the TLS server only when told.
        configuration.options.connectTimeout = connectTimeout
        configuration.options.tlsServerName = (try? SocketAddress(ipAddress: location.host, port: 0)) == nil ? location.host : nil
        // The server ends any statement that runs longer (SQLSTATE 57014).
        configuration.options.additionalStartupParameters = [("statement_timeout", String(Int(settings.statementSeconds * 1000)))]
        do {
            return try await PostgresConnection.connect(on: channel.eventLoop, configuration: configuration, id: id, logger: logger).get()
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

/// A storage call after the pool was shut down.
struct PostgresPoolClosed: Error, CustomStringConvertible {
    var description: String { "the database connection pool is shut down (the server is stopping)" }
}
#endif
