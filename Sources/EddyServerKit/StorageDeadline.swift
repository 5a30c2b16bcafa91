#if Tools
import EddySupport
import Synchronization

/// How long a storage call may wait for the database (`eddy-server serve --database-*`; docs/fleet-server.md "Failing
/// fast").
package struct DatabaseTimeouts: Sendable, Equatable {
    /// Opening one TCP connection to the database, seconds.
    package var connectSeconds: Double = 5
    /// Waiting for a connection of the pool, seconds: when every connection is in use (or an opening one hangs), a call
    /// gives up after this, so requests and `/readyz` answer 503 instead of waiting for the database.
    package var connectionWaitSeconds: Double = 5
    /// One statement, seconds (PostgreSQL's `statement_timeout`); the call's work once it has its connection gets this
    /// plus `graceSeconds`, so that a connection that died without the client noticing cannot hold a request forever.
    package var querySeconds: Double = 30
    /// What the client-side deadline adds to `querySeconds` (the database's own timeout, with its clearer message,
    /// normally comes first).
    package static let graceSeconds = 2.0

    /// The defaults: 5 s to connect, 5 s to get a connection, 30 s a statement.
    package init() {}

    /// Whether every value is a positive, finite number of seconds.
    package var isValid: Bool {
        [connectSeconds, connectionWaitSeconds, querySeconds].allSatisfy { $0.isFinite && $0 > 0 }
    }
}

/// A storage call that ran out of time: no connection came, or the work did not end.
package struct StorageDeadlineExpired: Error, CustomStringConvertible {
    /// Whether the call had its connection when the time ran out.
    package var hadConnection: Bool
    /// The limit that was passed, seconds.
    package var seconds: Double

    /// What happened and what it likely means.
    package var description: String {
        hadConnection
            ? "the database did not finish within \(seconds) s (a lock, an overloaded server, or a connection that died)"
            : "no database connection within \(seconds) s (is the database up and reachable?)"
    }
}

/// Runs storage work against two deadlines: one for getting a connection, one for the work once it has it.
///
/// The work runs in a task of its own. When a deadline passes first, the caller gets `StorageDeadlineExpired` at once
/// and the task is cancelled and left to end by itself: a PostgresNIO call on a connection that died unnoticed may never
/// end (issue 30 saw a fetch hang for 13 minutes after a database restart), but the request must. Cancelling the caller
/// (graceful shutdown escalating) ends the call the same way, with `CancellationError`.
package enum StorageDeadline {
    /// Runs `body`, which calls `connected` once it holds its connection; `meter` sees the call wait, hold a connection
    /// and end (when the work really ends, also after a deadline: until then it may hold the connection).
    package static func run<T: Sendable>(
        connectionWaitSeconds: Double, workSeconds: Double, meter: StorageLoadMeter,
        _ body: @escaping @Sendable (_ connected: @escaping @Sendable () -> Void) async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation, connectionWaitSeconds: connectionWaitSeconds, workSeconds: workSeconds, meter: meter, body)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The work, its timer and the caller's continuation; whichever finishes first resumes the caller.
    final class Race<T: Sendable>: Sendable {
        struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var outcome: Result<T, any Error>?
            var finished = false
            var connectedAt: ContinuousClock.Instant?
            var worker: Task<Void, Never>?
            var timer: Task<Void, Never>?
        }

        private let state = Mutex(State())

        func start(
            _ continuation: CheckedContinuation<T, any Error>, connectionWaitSeconds: Double, workSeconds: Double, meter: StorageLoadMeter,
            _ body: @escaping @Sendable (_ connected: @escaping @Sendable () -> Void) async throws -> T
        ) {
            let call = meter.call()
            let worker = Task {
                defer { call.end() }
                do {
                    let value = try await body {
                        call.connected()
                        self.markConnected()
                    }
                    self.finish(.success(value))
                } catch {
                    self.finish(.failure(error))
                }
            }
            let timer = Task { await self.watch(connectionWaitSeconds: connectionWaitSeconds, workSeconds: workSeconds) }
            let settled = state.withLock(visibleToThreadSanitizerAs: self) { state -> Result<T, any Error>? in
                state.worker = worker
                state.timer = timer
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let settled {
                worker.cancel()
                timer.cancel()
                continuation.resume(with: settled)
            }
        }

        /// Notes when the work got its connection (its own deadline counts from then; a later call changes nothing).
        func markConnected() {
            state.withLock(visibleToThreadSanitizerAs: self) { state in
                if state.connectedAt == nil { state.connectedAt = .now }
            }
        }

        /// Sleeps through the deadlines; fails the call when one passes before the work ends.
        func watch(connectionWaitSeconds: Double, workSeconds: Double) async {
            do {
                try await Task.sleep(for: .seconds(connectionWaitSeconds))
                guard let connectedAt = state.withLock(visibleToThreadSanitizerAs: self, { $0.connectedAt }) else {
                    finish(.failure(StorageDeadlineExpired(hadConnection: false, seconds: connectionWaitSeconds)))
                    return
                }
                try await Task.sleep(until: connectedAt + .seconds(workSeconds), clock: .continuous)
                finish(.failure(StorageDeadlineExpired(hadConnection: true, seconds: workSeconds)))
            } catch {
                // Cancelled: the call ended first.
            }
        }

        /// Resumes the caller with `outcome` unless it was resumed already; stops the other party.
        func finish(_ outcome: Result<T, any Error>) {
            let (continuation, worker, timer) = state.withLock(visibleToThreadSanitizerAs: self) { state in
                guard !state.finished else { return (nil, nil, nil) as (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?) }
                state.finished = true
                state.outcome = outcome
                defer { state.continuation = nil }
                return (state.continuation, state.worker, state.timer)
            }
            // Outside the lock: resuming and cancelling run other code.
            continuation?.resume(with: outcome)
            timer?.cancel()
            if case .failure = outcome { worker?.cancel() }
        }
    }
}
#endif
