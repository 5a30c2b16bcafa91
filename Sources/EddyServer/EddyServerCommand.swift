#if Tools
import ArgumentParser
import EddyProtocol
import EddyServerKit
import EddySupport
import Foundation
import Hummingbird
import Logging

/// `eddy-server`: the reference sync server (serve, keys, openapi): argument parsing and start-up; the server is `EddyServerKit`.
@main
struct EddyServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eddy-server",
        abstract: "Eddy reference sync server (Hummingbird 2; SQLite or PostgreSQL).",
        version: ServerVersion.description,
        subcommands: [Serve.self, Keys.self, Migrate.self, IngestPilotReports.self, IngestForecast.self, Verify.self, PrintOpenAPI.self],
        defaultSubcommand: Serve.self
    )
}

/// Options shared by every subcommand that opens the database.
struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: "SQLite database path (created when missing); same as --database sqlite:PATH.")
    var db: String?
    @Option(name: .long, help: ArgumentHelp(
        "Where the data lives: sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DB (default sqlite:eddy-server.sqlite).",
        valueName: "url"))
    var database: String?
    @Option(help: "PostgreSQL: connections the pool of this instance may open.")
    var databasePoolSize: Int = 16
    @Option(help: "PostgreSQL: seconds to open one connection.")
    var databaseConnectTimeout: Double = DatabaseTimeouts().connectSeconds
    @Option(help: "PostgreSQL: seconds a request waits for a connection of the pool; then it is answered 503 (database down or pool full).")
    var databaseWaitTimeout: Double = DatabaseTimeouts().connectionWaitSeconds
    @Option(help: "PostgreSQL: seconds one statement may run (statement_timeout); a request that needs longer is answered 503.")
    var databaseQueryTimeout: Double = DatabaseTimeouts().querySeconds
    @Option(help: ArgumentHelp(
        "Settings file: one `option = value` a line (also EDDY_SERVER_CONFIG); EDDY_SERVER_<OPTION> variables override it, flags override both.",
        valueName: "path"))
    var config: String?

    mutating func validate() throws {
        if db != nil, database != nil { throw ValidationError("give --db or --database, not both") }
        // Exit status 2 with the reason, as for a database that cannot be opened (docs/fleet-server.md; ArgumentParser's
        // validation errors exit 64).
        do { _ = try location } catch {
            FileHandle.standardError.write(Data("eddy-server: \(error)\n".utf8))
            throw ExitCode(2)
        }
        guard (1...1000).contains(databasePoolSize) else { throw ValidationError("--database-pool-size must be 1...1000") }
        guard timeouts.isValid else {
            throw ValidationError("--database-connect-timeout, --database-wait-timeout and --database-query-timeout must be positive seconds")
        }
    }

    /// The timeouts from the command line.
    var timeouts: DatabaseTimeouts {
        var timeouts = DatabaseTimeouts()
        timeouts.connectSeconds = databaseConnectTimeout
        timeouts.connectionWaitSeconds = databaseWaitTimeout
        timeouts.querySeconds = databaseQueryTimeout
        return timeouts
    }

    /// The parsed location.
    var location: DatabaseLocation {
        get throws {
            if let database { return try DatabaseLocation(parsing: database) }
            return .sqlite(path: db ?? "eddy-server.sqlite")
        }
    }

    /// The location with what PostgreSQL's URL leaves open taken from the environment as libpq does (`PGPASSWORD`,
    /// `PGPASSFILE` or `~/.pgpass`, `PGSSLMODE`, `PGSSLROOTCERT`; `PostgresEnvironment`).
    var completedLocation: DatabaseLocation {
        get throws {
            guard case .postgres(let location) = try location else { return try location }
            return .postgres(try PostgresEnvironment.current.complete(location))
        }
    }

    /// Opens the storage (SQLite: creating the file; PostgreSQL: connecting, failing with what to do, and migrating).
    func open(logger: Logger) async throws -> any ServerStorage {
        switch try completedLocation {
        case .sqlite(let path): try SQLiteServerStorage(path: path)
        case .postgres(let location):
            try await PostgresServerStorage.open(
                location, now: SystemEpochClock().now(), logger: logger, maximumConnections: databasePoolSize, timeouts: timeouts)
        }
    }
}

extension DatabaseOption {
    /// Opens the storage, runs `body` on it and closes it (the `keys` subcommands).
    func with<T: Sendable>(_ body: (any ServerStorage) async throws -> T) async throws -> T {
        let storage = try await open(logger: quietLogger)
        do {
            let result = try await body(storage)
            await storage.shutdown()
            return result
        } catch {
            await storage.shutdown()
            throw error
        }
    }
}

/// Logs only errors (the `keys` subcommands print their own output; the pool warns when a lease races its start).
let quietLogger: Logger = {
    var logger = Logger(label: "eddy-server")
    logger.logLevel = .error
    return logger
}()

/// `eddy-server serve`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the sync API (default).")

    @OptionGroup var database: DatabaseOption
    @Option(help: "Address to bind (loopback by default).") var host: String = "127.0.0.1"
    @Option(help: "TCP port (0 picks a free one; the chosen port is printed).") var port: Int = 8080
    @Option(help: "Tick length, seconds.") var tickSeconds: Double = 60
    @Option(help: "A delta fetch whose sinceTick is older than this many ticks gets a full answer.")
    var fullRefreshAfterTicks: Int = ServerSettings.defaults.fullRefreshAfterTicks
    @Option(help: "Session lifetime, seconds.") var sessionTtl: Double = 3600
    @Option(help: "Requests per session per minute (0 disables).") var rateLimit: Double = 600
    @Option(help: "Requests a session may burst.") var rateBurst: Int = 60
    @Option(help: "Oldest accepted client version.") var minClientVersion: String = "1.0.0"
    @Option(help: "Nowcast issue interval, seconds.") var nowcastInterval: Double = 3600
    @Option(help: "Largest request body, bytes.") var maxRequestBytes: Int = 1 << 20
    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).") var logLevel: String = "info"
    @Option(help: "Log format: text (swift-log lines) or json (one JSON object a line, for log collectors).") var logFormat: String = "text"
    @Flag(help: "Log every request at info (the access log: method, path, status, ms, reporter; API keys in queries as ***).")
    var accessLog = false
    @Option(help: "Client threshold: below this ground speed after landing, clients may enter low power mode, knots.")
    var lowPowerSpeedKnots: Double = ClientThresholds.serverDefaults.lowPowerSpeedKnots ?? 30
    @Option(help: "Client threshold: time on the ground and slow before low power mode, seconds.")
    var lowPowerSeconds: Double = ClientThresholds.serverDefaults.lowPowerAfterSeconds ?? 300
    @Option(help: "Client threshold: a climb this far above the ground altitude counts as in the air, feet.")
    var inAirAltitudeFeet: Double = ClientThresholds.serverDefaults.inAirAltitudeFeet ?? 500
    @Option(help: "Client threshold: at or above this ground speed the aircraft counts as in the air, knots.")
    var inAirSpeedKnots: Double = ClientThresholds.serverDefaults.inAirSpeedKnots ?? 50
    @Option(help: "Client threshold: fixes with a worse horizontal accuracy (68 %) are not used, metres.")
    var maxHorizontalAccuracyMeters: Double = ClientThresholds.serverDefaults.maximumHorizontalAccuracyMeters ?? 50
    @Option(help: "Client threshold: fixes with a worse vertical accuracy (68 %) have their GNSS altitude ignored, metres.")
    var maxVerticalAccuracyMeters: Double = ClientThresholds.serverDefaults.maximumVerticalAccuracyMeters ?? 100
    @Flag(help: "Send no client thresholds (behave like a server older than them; tests).") var noClientThresholds = false
    @Flag(help: "Enable /v1/_test/* fault injection (tests only).") var testHooks = false
    @Flag(help: "Do not serve GET /metrics (Prometheus text; on by default, unauthenticated).") var noMetrics = false
    @Option(help: "Retention: reports that left their tile more than this many days ago are purged hourly (0 keeps every report).")
    var retentionDays: Double = 30
    @Option(help: "Seconds a graceful shutdown (SIGTERM, SIGINT) may take; requests still running are then cancelled, and the process exits at the latest 10 s later.")
    var shutdownTimeout: Double = 30
    @Option(help: "Most items (observations, nowcast cells, live flights) in one fetch answer; larger answers come in pages.")
    var maxAnswerItems: Int = ServerOptions().maxItemsPerAnswer
    @Option(help: "Requests per API key per minute, over all its sessions (0 disables).")
    var keyRateLimit: Double = ServerOptions().keyRateLimitPerMinute
    @Option(help: "Requests an API key may burst.") var keyRateBurst: Int = ServerOptions().keyRateLimitBurst
    @Option(help: "Seconds a new connection has to send a whole request head.")
    var headerTimeout: Double = ConnectionTimeouts().headerSeconds
    @Option(help: "Seconds a request's body has to arrive, from its head.") var bodyTimeout: Double = ConnectionTimeouts().bodySeconds
    @Option(help: "Seconds a kept-alive connection may wait for its next request (keep it above the load balancer's idle timeout).")
    var idleTimeout: Double = ConnectionTimeouts().idleSeconds
    @Option(help: ArgumentHelp("Watch this folder for PIREP/AIREP files (raw lines or the AWC aircraft-report CSV) and ingest new or changed ones.",
                               valueName: "folder"))
    var pilotReportsFolder: String?
    @Option(help: "Seconds between two looks at --pilot-reports-folder (it is polled).") var pilotReportsPollSeconds: Double = 60
    @Option(help: ArgumentHelp("Station table for the watched folder's /OV locations (CSV id,latitude_deg,longitude_deg[,variation_deg]).",
                               valueName: "csv"))
    var stations: String?
    @Option(help: ArgumentHelp("Watch this folder for GRIB2 turbulence forecasts (GTG, WAFS) and ingest new or changed files.", valueName: "folder"))
    var forecastFolder: String?
    @Option(help: "Seconds between two looks at --forecast-folder (it is polled).") var forecastPollSeconds: Double = 60

    mutating func validate() throws {
        guard WireVersion(minClientVersion) != nil else { throw ValidationError("--min-client-version must look like 1.2.3") }
        guard tickSeconds > 0, sessionTtl > 0, nowcastInterval > 0 else { throw ValidationError("durations must be positive") }
        guard fullRefreshAfterTicks >= 1 else { throw ValidationError("--full-refresh-after-ticks must be at least 1") }
        // Clients fetch up to 6 h back and the nowcast looks back 6 h: a shorter retention would starve them.
        guard retentionDays.isFinite, retentionDays == 0 || retentionDays >= 0.25 else {
            throw ValidationError("--retention-days must be 0 (keep every report) or at least 0.25 (the 6-h history clients fetch)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard shutdownTimeout.isFinite, shutdownTimeout > 0 else { throw ValidationError("--shutdown-timeout must be positive seconds") }
        guard maxAnswerItems >= 1 else { throw ValidationError("--max-answer-items must be at least 1") }
        guard keyRateLimit.isFinite, keyRateBurst >= 1 else { throw ValidationError("--key-rate-limit must be a number and --key-rate-burst at least 1") }
        guard connectionTimeouts.isValid else {
            throw ValidationError("--header-timeout, --body-timeout and --idle-timeout must be positive seconds")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard LogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json, not \(logFormat)") }
        guard thresholds.isValid else {
            throw ValidationError("client thresholds (--low-power-*, --in-air-*, --max-*-accuracy-meters) must be positive numbers")
        }
        guard pilotReportsPollSeconds.isFinite, pilotReportsPollSeconds > 0 else {
            throw ValidationError("--pilot-reports-poll-seconds must be positive seconds")
        }
        guard forecastPollSeconds.isFinite, forecastPollSeconds > 0 else { throw ValidationError("--forecast-poll-seconds must be positive seconds") }
    }

    /// The connection limits from the command line.
    var connectionTimeouts: ConnectionTimeouts {
        var timeouts = ConnectionTimeouts()
        (timeouts.headerSeconds, timeouts.bodySeconds, timeouts.idleSeconds) = (headerTimeout, bodyTimeout, idleTimeout)
        return timeouts
    }

    /// The client thresholds from the command line.
    var thresholds: ClientThresholds {
        ClientThresholds(
            lowPowerSpeedKnots: lowPowerSpeedKnots, lowPowerAfterSeconds: lowPowerSeconds, inAirAltitudeFeet: inAirAltitudeFeet,
            inAirSpeedKnots: inAirSpeedKnots, maximumHorizontalAccuracyMeters: maxHorizontalAccuracyMeters,
            maximumVerticalAccuracyMeters: maxVerticalAccuracyMeters)
    }

    func run() async throws {
        let started = Date()
        if LogFormat(rawValue: logFormat) == .json {
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }
        }
        let logger = {
            var logger = Logger(label: "eddy-server")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return logger
        }()
        var options = ServerOptions()
        options.tickSeconds = tickSeconds
        options.sessionTTLSeconds = sessionTtl
        options.rateLimitPerMinute = rateLimit
        options.rateLimitBurst = rateBurst
        options.minimumClientVersion = WireVersion(minClientVersion)!
        options.nowcastIntervalSeconds = nowcastInterval
        options.testHooks = testHooks
        options.metricsEnabled = !noMetrics
        options.retentionSeconds = retentionDays > 0 ? retentionDays * 86_400 : nil
        options.settings.tickSeconds = tickSeconds
        options.settings.fullRefreshAfterTicks = fullRefreshAfterTicks
        options.settings.maxRequestBytes = maxRequestBytes
        options.settings.thresholds = noClientThresholds ? nil : thresholds
        options.maxItemsPerAnswer = maxAnswerItems
        options.keyRateLimitPerMinute = keyRateLimit
        options.keyRateLimitBurst = keyRateBurst
        options.connectionTimeouts = connectionTimeouts
        options.accessLog = accessLog
        let storage: any ServerStorage
        do { storage = try await database.open(logger: logger) } catch {
            FileHandle.standardError.write(Data("eddy-server: cannot open the database: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let service = try SyncService(database: storage, options: options, logger: logger)
        let watcher = try pilotReportWatcher(storage: storage, logger: logger)
        let forecastWatcher = try forecastGridWatcher(storage: storage, logger: logger)
        let (host, port) = (host, port)
        let startLine: Logger.Metadata = [
            "version": "\(ServerVersion.number)", "database": "\((try? database.location.redacted) ?? "-")",
            "pool_size": "\(database.databasePoolSize)", "max_answer_items": "\(maxAnswerItems)",
            "key_rate_limit_per_minute": "\(keyRateLimit)", "session_rate_limit_per_minute": "\(rateLimit)",
            "header_timeout_s": "\(headerTimeout)", "body_timeout_s": "\(bodyTimeout)", "idle_timeout_s": "\(idleTimeout)",
            "shutdown_timeout_s": "\(shutdownTimeout)", "access_log": "\(accessLog)", "log_format": "\(logFormat)",
        ]
        let app = EddyServerApplication.make(service: service, host: host, port: port, logger: logger) { bound in
            FileHandle.standardOutput.write(Data("eddy-server listening on \(host):\(bound)\n".utf8))
            var metadata = startLine
            metadata["address"] = "\(host):\(bound)"
            logger.notice("eddy-server started", metadata: metadata)
        }
        let pollSeconds = pilotReportsPollSeconds
        let forecastPollSeconds = forecastPollSeconds
        let watching = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await watcher?.run(pollSeconds: pollSeconds) }
                group.addTask { await forecastWatcher?.run(pollSeconds: forecastPollSeconds) }
            }
        }
        defer { watching.cancel() }
        do { try await EddyServerApplication.runUntilSignalled(app, shutdownTimeoutSeconds: shutdownTimeout, logger: logger) } catch {
            watching.cancel()
            await storage.shutdown()
            logger.error("eddy-server stopped by an error", metadata: ["error": "\(error)"])
            throw error
        }
        watching.cancel()
        await storage.shutdown()
        logger.notice("eddy-server stopped", metadata: ["uptime_s": "\(Int(Date().timeIntervalSince(started)))"])
    }
}

extension Serve {
    /// The watcher of `--pilot-reports-folder` (nil without one); a station table that cannot be read stops the start.
    func pilotReportWatcher(storage: any ServerStorage, logger: Logger) throws -> PilotReportFolderWatcher? {
        guard let folder = pilotReportsFolder else { return nil }
        guard let reportStorage = storage as? any PilotReportStorage else {
            throw ValidationError("--pilot-reports-folder: this database backend cannot store pilot reports")
        }
        let table = try PilotReportOptions.stationTable(path: stations)
        logger.notice("watching for pilot reports", metadata: [
            "folder": "\(folder)", "poll_s": "\(pilotReportsPollSeconds)", "stations": "\(table?.count ?? 0)"])
        return PilotReportIngester(storage: reportStorage, stations: table).folderWatcher(folder: folder, logger: logger)
    }

    /// The watcher of `--forecast-folder` (nil without one).
    func forecastGridWatcher(storage: any ServerStorage, logger: Logger) throws -> IngestFolderWatcher<ForecastIngestSummary>? {
        guard let folder = forecastFolder else { return nil }
        guard let store = storage as? any ForecastGridStore else {
            throw ValidationError("--forecast-folder: this database backend cannot store forecast grids")
        }
        logger.notice("watching for forecast grids", metadata: ["folder": "\(folder)", "poll_s": "\(forecastPollSeconds)"])
        return ForecastGridIngester(storage: store).folderWatcher(folder: folder, logger: logger)
    }
}

/// `eddy-server keys add|list|revoke`.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage API keys (stored hashed: a key is shown once, when made).", subcommands: [Add.self, List.self, Revoke.self, Rotate.self])

    /// `keys add`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key for an airline; prints the key once.")
        @OptionGroup var database: DatabaseOption
        @Option(help: "Airline ICAO code (3 characters).") var airline: String
        @Option(help: "Label for the operator.") var label: String = ""
        @Option(help: "Days until the key expires (its sessions then get 403 keyExpired); never when not given.")
        var expiresInDays: Double?

        func run() async throws {
            guard airline.count == 3, airline.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw ValidationError("--airline must be a 3-character ICAO code in upper case, e.g. DAL")
            }
            if let days = expiresInDays, !(days.isFinite && days > 0) { throw ValidationError("--expires-in-days must be a positive number") }
            let now = SystemEpochClock().now()
            let expiresAt = expiresInDays.map { now + $0 * 86_400 }
            let (key, record) = try await database.with { try await $0.addKey(airline: airline, label: label, now: now, expiresAt: expiresAt) }
            print("id \(record.id) airline \(record.airline) key \(key)" + (expiresAt.map { " expires \(Keys.time($0))" } ?? ""))
        }
    }

    /// `keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List keys (prefix only, never the full key): id, airline, prefix, state, label, expiry, last use, sessions opened.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let now = SystemEpochClock().now()
            for key in try await database.with({ try await $0.listKeys() }) {
                let state = !key.active ? "revoked" : key.isUsable(at: now) ? "active" : "expired"
                print("\(key.id)\t\(key.airline)\t\(key.prefix)…\t\(state)\t\(key.label)\t"
                    + "expires \(key.expiresAt.map(Keys.time) ?? "never")\tlast used \(key.lastUsedAt.map(Keys.time) ?? "never")\t"
                    + "sessions \(key.sessionsStarted)")
            }
        }
    }

    /// A time as `keys` prints it: ISO 8601, UTC, to the second.
    static func time(_ seconds: Double) -> String { Date(timeIntervalSince1970: seconds).formatted(.iso8601) }

    /// `keys rotate`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a key: a new key for the same airline and label, printed once; the old one is revoked unless --keep-old.")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "Key id (from `keys list`).") var id: Int64
        @Flag(help: "Keep the old key active while devices get the new one (revoke it later with `keys revoke ID`).")
        var keepOld = false

        func run() async throws {
            let (key, record) = try await database.with {
                try await $0.rotateKey(id: id, revokingOld: !keepOld, now: SystemEpochClock().now())
            }
            print("id \(record.id) airline \(record.airline) key \(key)")
            print(keepOld ? "old key \(id) still active: revoke it with `eddy-server keys revoke \(id)` once devices have the new one"
                          : "revoked \(id)")
        }
    }

    /// `keys revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key: its sessions get 403 from now on.")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "Key id (from `keys list`).") var id: Int64

        func run() async throws {
            try await database.with { try await $0.revokeKey(id: id) }
            print("revoked \(id)")
        }
    }
}

/// `eddy-server openapi`: prints the OpenAPI document the server serves at `/openapi.yaml`.
struct PrintOpenAPI: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "openapi", abstract: "Print the OpenAPI 3.1 document.")
    func run() { print(OpenAPIDocument.yaml, terminator: "") }
}
#endif
