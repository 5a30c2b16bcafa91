#if Tools
import Foundation
package import Hummingbird
import HummingbirdCore
package import Logging
import NIOCore
package import ServiceLifecycle
import UnixSignals

/// Builds the Hummingbird application `eddy-server serve` runs (and the in-process router tests test).
package enum EddyServerApplication {
    /// Length of the listening socket's queue of connections not yet accepted (the kernel caps it at somaxconn).
    package static let listenBacklog = 4096

    /// The application serving `service` on `host:port` (0 picks a free port), checkpointing the WAL every
    /// `checkpointInterval` and probing the database every `DatabaseProbeService.interval` (neither when nil);
    /// `onListening` gets the bound port once the server accepts connections. `readiness` is what `GET /readyz` and the
    /// probe ask (nil: the service's database answers a trivial query).
    package static func make(
        service: SyncService, host: String = "127.0.0.1", port: Int = 0, logger: Logger,
        checkpointInterval: Duration? = .seconds(1), readiness: ReadinessProbe? = nil,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        service.metrics.observe(storage: service.database)
        var services: [any Service] = []
        if let checkpointInterval {
            services.append(WALCheckpointService(database: service.database, interval: checkpointInterval, logger: logger,
                                                 retentionSeconds: service.options.retentionSeconds, metrics: service.metrics))
            services.append(DatabaseProbeService(probe: readiness ?? .database(service.database), metrics: service.metrics))
        }
        let timeouts = service.options.connectionTimeouts
        return Application(
            router: HTTPRoutes(service: service, readiness: readiness).router(),
            // Header, body and idle limits on every connection, and JSON answers to unparsable heads (ConnectionLimits.swift).
            server: .http1(configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [ConnectionLimitsHandler(timeouts: timeouts, logger: logger)])),
            // A burst of connections waits in the kernel's accept queue: with Hummingbird's default of 256, 10,000
            // simultaneous clients overflowed it and thousands were reset or never answered (docs/reliability.md
            // "Limits"); Linux caps the value at net.core.somaxconn (4096 by default).
            configuration: .init(address: .hostname(host, port: port), serverName: "eddy-server", backlog: Self.listenBacklog),
            services: services,
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

extension EddyServerApplication {
    /// Seconds the process may take after the graceful-shutdown limit (cancelled requests ending, the storage closing)
    /// before the watchdog ends it.
    package static let shutdownGraceSeconds = 10.0

    /// Runs `application` until SIGTERM or SIGINT, then shuts it down within bounds (`eddy-server serve`): requests
    /// still running after `shutdownTimeoutSeconds` are cancelled (storage calls end at once: `StorageDeadline`), and
    /// if the process has not finished `shutdownGraceSeconds` after that, whatever the database does, a watchdog logs
    /// it and exits with status 1. Only for the `eddy-server` process: the watchdog ends the whole process.
    package static func runUntilSignalled(_ application: some Service, shutdownTimeoutSeconds: Double, logger: Logger) async throws {
        let watchdog = ShutdownWatchdog(limitSeconds: shutdownTimeoutSeconds + shutdownGraceSeconds, logger: logger)
        // Shut down in reverse order: the watchdog starts its clock first, then the server drains.
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: application), .init(service: watchdog)], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(shutdownTimeoutSeconds)
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Ends the process `limitSeconds` after graceful shutdown began, if it is still running then.
struct ShutdownWatchdog: Service, CustomStringConvertible {
    /// The longest a shutdown may take, seconds.
    let limitSeconds: Double
    /// Where the overrun is logged.
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "ShutdownWatchdog" }

    /// Waits for graceful shutdown, then arms a timer on a thread of its own (not one the stuck work could hold).
    func run() async throws {
        try? await gracefulShutdown()
        let (limit, logger) = (limitSeconds, logger)
        logger.notice("eddy-server stopping: graceful shutdown began", metadata: [
            "limit_seconds": "\(limit - EddyServerApplication.shutdownGraceSeconds)",
        ])
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: limit)
            logger.critical("shutdown did not finish within \(limit) s; exiting")
            exit(1)
        }
    }
}

/// Logs a run of upkeep failures without a line a second (issue 30: "storage upkeep failed" repeated every second of an
/// outage, at warning): the first failure at error, then at most one reminder a minute with the count so far, and one
/// notice when upkeep works again.
struct UpkeepFailureLog {
    /// Where the lines go.
    let logger: Logger
    /// Failures since the last success.
    private(set) var count = 0
    /// When the current run of failures started, and when it was last logged (Unix seconds).
    private var since = 0.0, lastLogged = -Double.infinity
    /// Least time between two reminders, seconds.
    static let reminderSeconds = 60.0

    /// Creates the log.
    init(logger: Logger) { self.logger = logger }

    /// A failed round.
    mutating func failed(_ error: any Error, now: Double) {
        count += 1
        if count == 1 { since = now }
        guard now - lastLogged >= Self.reminderSeconds else { return }
        lastLogged = now
        logger.error(count == 1 ? "storage upkeep failed" : "storage upkeep still failing", metadata: [
            "error": "\(error)", "failures": "\(count)", "since_seconds": "\(Int(now - since))",
        ])
    }

    /// A round that worked (one line when it ends a run of failures).
    mutating func succeeded(now: Double) {
        guard count > 0 else { return }
        logger.notice("storage upkeep works again", metadata: ["failures": "\(count)", "seconds": "\(Int(now - since))"])
        (count, lastLogged) = (0, -Double.infinity)
    }
}

/// Runs the storage's upkeep every `interval`, next to the HTTP server, until graceful shutdown: passive WAL
/// checkpoints on SQLite (which turns automatic checkpoints off; see `SQLiteServerStorage.init`), partitions ahead on
/// PostgreSQL.
package struct WALCheckpointService: Service, CustomStringConvertible {
    /// The storage to keep up.
    let database: any ServerStorage
    /// Time between checkpoints.
    let interval: Duration
    /// Where failures are logged.
    let logger: Logger
    /// Reports older than this (by exit time) are purged once an hour, from the first round on, seconds; nil keeps all.
    let retentionSeconds: Double?
    /// Where each round's outcome is counted (`eddy_storage_upkeep_runs_total`); nil counts nothing.
    let metrics: ServerMetrics?
    /// Time between retention purges, seconds.
    static let purgeIntervalSeconds = 3600.0

    /// Creates the service.
    package init(database: any ServerStorage, interval: Duration, logger: Logger, retentionSeconds: Double? = nil,
                 metrics: ServerMetrics? = nil) {
        self.database = database
        self.interval = interval
        self.logger = logger
        self.retentionSeconds = retentionSeconds
        self.metrics = metrics
    }

    /// The name ServiceLifecycle logs.
    package var description: String { "WALCheckpointService" }

    /// Checkpoints every `interval` until graceful shutdown or cancellation.
    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var lastPurge = -Double.infinity
            var failures = UpkeepFailureLog(logger: logger)
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                let now = Date().timeIntervalSince1970
                do {
                    try await database.maintain(now: now)
                    failures.succeeded(now: now)
                    metrics?.recordUpkeep(.maintain, failed: false)
                } catch {
                    metrics?.recordUpkeep(.maintain, failed: true)
                    failures.failed(error, now: now)
                }
                if let retentionSeconds, now - lastPurge >= Self.purgeIntervalSeconds {
                    lastPurge = now
                    do {
                        let purged = try await database.purgeReports(exitBefore: now - retentionSeconds)
                        metrics?.recordUpkeep(.purge, failed: false)
                        if purged > 0 { logger.info("retention: purged \(purged) reports older than \(retentionSeconds / 86_400) days") }
                    } catch {
                        metrics?.recordUpkeep(.purge, failed: true)
                        logger.warning("retention purge failed: \(error)")
                    }
                }
            }
        }
    }
}

/// Asks the database whether it answers (the `GET /readyz` check) when the server starts and every ``interval`` after,
/// until graceful shutdown, and sets `eddy_database_up` from the outcome: the gauge follows the database even when
/// nothing polls `/readyz`.
package struct DatabaseProbeService: Service, CustomStringConvertible {
    /// Time between probes.
    package static let interval: Duration = .seconds(5)
    /// The check.
    let probe: ReadinessProbe
    /// Where the outcome goes.
    let metrics: ServerMetrics

    /// Creates the service.
    package init(probe: ReadinessProbe, metrics: ServerMetrics) {
        self.probe = probe
        self.metrics = metrics
    }

    /// The name ServiceLifecycle logs.
    package var description: String { "DatabaseProbeService" }

    /// Probes, then waits ``interval``, until graceful shutdown or cancellation (a probe is bounded by the storage's
    /// deadlines: `--database-wait-timeout` on PostgreSQL).
    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await probe.check()
                    metrics.setDatabaseUp(true)
                } catch {
                    // A probe cut short by the shutdown says nothing about the database.
                    if !Task.isCancelled { metrics.setDatabaseUp(false) }
                }
                try await Task.sleep(for: Self.interval)
            }
        }
    }
}
#endif
