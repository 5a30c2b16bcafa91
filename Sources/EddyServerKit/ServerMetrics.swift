#if Tools
import EddySupport
import EddyVocabulary
import Foundation
package import Prometheus
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's operational metrics (served as Prometheus text at `GET /metrics`; docs/fleet-server.md "Metrics").
///
/// Every `SyncService` owns one: its own `PrometheusCollectorRegistry`, so a process running several servers (the tests
/// start dozens) counts each apart, and nothing calls swift-metrics' process-wide `MetricsSystem.bootstrap`. Every
/// family is made on that registry with its HELP text (``Family``), which `promtool check metrics` requires; a family
/// appears at its first observation unless said otherwise below.
///
/// Metric names (labels in braces):
/// - `eddy_http_requests_total{route,method,status}`: requests answered, by matched route (`unmatched` for a path no
///   route has), method and status code.
/// - `eddy_http_request_duration_seconds{route,method}`: latency histogram, handler start to response head.
/// - `eddy_http_requests_in_flight`: requests being handled now (from the start).
/// - `eddy_reports_ingested_total{outcome}`: reports accepted by `POST /v1/reports`, `new` or `duplicate`.
/// - `eddy_rejections_total{reason}`: refusals: one per rejected report (`report_invalid_cell`, `report_layer`,
///   `report_time_order`, `report_future`, `report_edr`) and one per refused request (the error body's code:
///   `badRequest`, `unauthorized`, `sessionExpired`, `apiKeyInvalid`, `keyRevoked`, `airlineMismatch`,
///   `clientTooOld`, `payloadTooLarge`, `rateLimited`).
/// - `eddy_rate_limited_total`: requests refused 429 by the per-session token bucket.
/// - `eddy_sessions_opened_total`: sessions started.
/// - `eddy_api_key_requests_total{key,airline,outcome}`: requests made with a known API key (a session start or map key
///   exchange once the key is looked up, any request of its sessions), by the key's row id (`eddy-server keys list`;
///   never the secret nor its prefix), its airline and `outcome`: `ok` (2xx, 3xx), `rate_limited` (429), `refused`
///   (403: revoked, expired, airline mismatch), `client_error` (other 4xx), `server_error` (5xx). Keys are issued by the
///   operator, so the series are few; past ``maxAPIKeySeries`` keys the rest are counted under `key="other"`.
/// - `eddy_database_connections_in_use`, `eddy_database_requests_waiting`, `eddy_database_pool_size`: the storage's
///   pool (`ServerStorage.poolLoad`, counted by `StorageLoadMeter`), as last reported
///   through ``setDatabasePool(connectionsInUse:requestsWaiting:poolSize:)`` or sampled at scrape time by
///   ``databasePoolSampler``; absent until the storage reports.
/// - `eddy_database_up`: 1 when the database answered the last readiness check (`GET /readyz` or the upkeep's probe,
///   `DatabaseProbeService`), 0 when it did not; absent before the first check.
/// - `eddy_database_clock_offset_seconds`: the database clock's lead over this host's clock that ticks follow
///   (`ServerStorage.clockOffsetSeconds`: 0 inside the ±1-s dead band), sampled at scrape time once
///   ``observe(storage:)`` ran.
/// - `eddy_storage_upkeep_runs_total{task,outcome}`: rounds of the background upkeep (`task` = `maintain` or `purge`,
///   `outcome` = `ok` or `failed`); the `failed` series exist at 0 from the start, so `increase()` sees the first one.
/// - `eddy_nowcast_verification_reports{system,layers,hour,outcome}`: fleet reports scored against each system's forecast
///   since the server started (`system` = `nowcast`, `forecast`, `persistence`; `layers` = `FL300-349`… or `all`; `hour`
///   0…6; `outcome` = `hit`, `miss`, `false_alarm`, `correct_negative`); `layers="all"` exists at 0 from the start.
/// - `eddy_nowcast_verification_score{system,layers,hour,score}`: `csi`, `pod`, `far`, `bias` of those counts (NaN while
///   undefined). Each nowcast issue verifies the issue `NowcastVerificationGauges.delayHours` before it (docs/nowcast.md
///   "Verification").
/// - `eddy_build_info{version,backend}`: always 1; the server's version (`EddyVersion.current`) and its storage
///   backend (`sqlite`, `postgres`, `memory`), once ``observe(storage:)`` ran.
/// - `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_cpu_seconds_total`,
///   `process_open_fds`, `process_max_fds`, `process_start_time_seconds`: this process, read from `/proc/self` at
///   scrape time (Linux; absent where `/proc` is missing), named as every Prometheus client library names them.
package final class ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    package let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory over `registry`. Metrics made through it carry no HELP text, which `promtool check
    /// metrics` refuses (the `/metrics` test runs it): add a ``Family`` here instead.
    package let factory: PrometheusMetricsFactory
    private let inFlight: Gauge
    private let sampler = Mutex<(@Sendable () -> DatabasePoolLoad?)?>(nil)
    private let clockOffsetSampler = Mutex<(@Sendable () -> Double)?>(nil)

    /// A storage backend's pool figures at one moment.
    package struct DatabasePoolLoad: Sendable, Equatable {
        /// Connections checked out and running a statement.
        package var connectionsInUse: Int
        /// Requests waiting for a connection (or, for a single serial queue, for their turn).
        package var requestsWaiting: Int
        /// Connections the pool may open (nil: not known).
        package var poolSize: Int?
        /// Creates the figures.
        package init(connectionsInUse: Int, requestsWaiting: Int, poolSize: Int? = nil) {
            self.connectionsInUse = connectionsInUse
            self.requestsWaiting = requestsWaiting
            self.poolSize = poolSize
        }
    }

    /// One metric family: its name and the HELP text `/metrics` prints for it (the same text at every use: the
    /// registry refuses a second text for one name).
    package struct Family: Sendable {
        /// The metric's name.
        package let name: String
        /// Its HELP line.
        package let help: String

        /// The registry's descriptor (the whole name as `metricName`: no namespace or unit is appended).
        var descriptor: MetricNameDescriptor { MetricNameDescriptor(metricName: name, unitName: "", helpText: help) }
    }

    /// Every family the server exposes (docs/fleet-server.md "Health and metrics" has the same table).
    package enum Families {
        /// Requests answered.
        package static let requests = Family(
            name: "eddy_http_requests_total", help: "HTTP requests answered, by matched route, method and status code.")
        /// Request latency.
        package static let requestDuration = Family(
            name: "eddy_http_request_duration_seconds", help: "Time from a request's head to its response's head, seconds.")
        /// Requests in progress.
        package static let inFlight = Family(name: "eddy_http_requests_in_flight", help: "HTTP requests being handled now.")
        /// Reports accepted.
        package static let ingested = Family(
            name: "eddy_reports_ingested_total", help: "Reports accepted by uploads: outcome new (stored) or duplicate (held already).")
        /// Refusals.
        package static let rejections = Family(
            name: "eddy_rejections_total", help: "Refusals: rejected reports (report_*) and refused requests (by error code).")
        /// 429s.
        package static let rateLimited = Family(
            name: "eddy_rate_limited_total", help: "Requests refused 429 by the per-session rate limit.")
        /// Sessions started.
        package static let sessions = Family(name: "eddy_sessions_opened_total", help: "Sessions started.")
        /// Requests per API key.
        package static let apiKeyRequests = Family(
            name: "eddy_api_key_requests_total",
            help: "Requests made with a known API key, by key row id (never the secret), airline and outcome.")
        /// Pool connections in use.
        package static let connectionsInUse = Family(
            name: "eddy_database_connections_in_use", help: "Connections of the storage's pool held by a storage call.")
        /// Storage calls waiting.
        package static let requestsWaiting = Family(
            name: "eddy_database_requests_waiting", help: "Storage calls waiting for a connection of the pool.")
        /// Pool size.
        package static let poolSize = Family(
            name: "eddy_database_pool_size", help: "Connections the storage's pool may open.")
        /// Whether the database answers.
        package static let databaseUp = Family(
            name: "eddy_database_up", help: "1 when the database answered the last readiness check, 0 when it did not.")
        /// The database clock's lead.
        package static let clockOffset = Family(
            name: "eddy_database_clock_offset_seconds",
            help: "Lead of the database's clock over this host's clock that ticks follow, seconds (0 within the 1-s dead band).")
        /// Upkeep rounds.
        package static let upkeepRuns = Family(
            name: "eddy_storage_upkeep_runs_total", help: "Rounds of the storage's background upkeep, by task and outcome.")
        /// Verification counts.
        package static let verificationCounts = Family(
            name: "eddy_nowcast_verification_reports",
            help: "Fleet reports scored against each system's forecast since start, by system, layer band, forecast hour and outcome.")
        /// Verification scores.
        package static let verificationScores = Family(
            name: "eddy_nowcast_verification_score",
            help: "CSI, POD, FAR and frequency bias of each system against the fleet reports that came after (NaN while undefined).")
        /// Version and backend.
        package static let buildInfo = Family(
            name: "eddy_build_info", help: "Always 1: the server's version and storage backend as labels.")
        /// Resident memory.
        package static let residentMemory = Family(
            name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
        /// Virtual memory.
        package static let virtualMemory = Family(
            name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        /// CPU time.
        package static let cpuSeconds = Family(
            name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        /// Open file descriptors.
        package static let openFDs = Family(name: "process_open_fds", help: "Number of open file descriptors.")
        /// The file-descriptor limit.
        package static let maxFDs = Family(name: "process_max_fds", help: "Maximum number of open file descriptors.")
        /// Start time.
        package static let startTime = Family(
            name: "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.")

        /// Every family above.
        package static let all: [Family] = [
            requests, requestDuration, inFlight, ingested, rejections, rateLimited, sessions, apiKeyRequests, connectionsInUse, requestsWaiting,
            poolSize, databaseUp, clockOffset, upkeepRuns, verificationCounts, verificationScores, buildInfo, residentMemory, virtualMemory,
            cpuSeconds, openFDs, maxFDs, startTime,
        ]
    }

    /// The upkeep tasks counted by `eddy_storage_upkeep_runs_total`.
    package enum UpkeepTask: String, Sendable, CaseIterable {
        /// `ServerStorage.maintain`: WAL checkpoint, partitions ahead, clock comparison.
        case maintain
        /// The hourly retention purge.
        case purge
    }

    /// Latency histogram buckets, seconds (1 ms to 10 s; the delta-fetch target is 50 ms at the 99th percentile).
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(10),
    ]

    /// Most API keys counted apart by `eddy_api_key_requests_total`; requests of further keys are counted under
    /// `key="other"`, `airline="other"` (a bound on the series should the operator issue many thousand keys).
    package let maxAPIKeySeries: Int
    /// The keys counted apart so far.
    private let apiKeysCounted = Mutex<Set<Int64>>([])

    /// Creates an empty registry with the server's metrics; `maxAPIKeySeries` bounds the per-key series.
    package init(maxAPIKeySeries: Int = 1_000) {
        self.maxAPIKeySeries = maxAPIKeySeries
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.latencyBuckets
        self.registry = registry
        self.factory = factory
        inFlight = registry.makeGauge(descriptor: Families.inFlight.descriptor)
        inFlight.set(to: 0)
        for task in UpkeepTask.allCases { _ = upkeepCounter(task, failed: true) }   // at 0 from the start
        addVerification([:])   // every system and hour over all layers, at 0 (scores NaN) from the start
    }

    /// The verification counts so far (``addVerification(_:)``).
    private let verificationTotals = Mutex<[NowcastVerification.Key: VerificationCounts]>([:])
    /// The issues verified so far.
    private let verifiedIssues = Mutex<Set<Double>>([])

    /// True the first time it is asked for `issueTime`: the caller verifies that issue (each issue is counted once).
    package func claimVerification(issueTime: Double) -> Bool {
        verifiedIssues.withLock(visibleToThreadSanitizerAs: self) { $0.insert(issueTime).inserted }
    }

    /// Adds verified counts and sets the verification gauges: per layer band, and over all layers (every system and
    /// forecast hour 0…6).
    package func addVerification(_ counts: [NowcastVerification.Key: VerificationCounts]) {
        let totals = verificationTotals.withLock(visibleToThreadSanitizerAs: self) { totals in
            for (key, count) in counts { totals[key, default: VerificationCounts()].add(count) }
            return totals
        }
        var overall: [NowcastVerification.Key: VerificationCounts] = [:]
        for system in NowcastVerification.System.allCases {
            for hour in 0...6 { overall[.init(system: system, layerBand: Int.min, forecastHour: hour)] = VerificationCounts() }
        }
        for (key, count) in totals {
            overall[.init(system: key.system, layerBand: Int.min, forecastHour: key.forecastHour), default: VerificationCounts()].add(count)
        }
        for (key, count) in Array(totals) + Array(overall) {
            let layers = key.layerBand == Int.min ? "all" : "FL\(key.layerBand * 10)-\(key.layerBand * 10 + 49)"
            let labels = [("system", key.system.rawValue), ("layers", layers), ("hour", String(key.forecastHour))]
            for (outcome, value) in [("hit", count.hits), ("miss", count.misses), ("false_alarm", count.falseAlarms),
                                     ("correct_negative", count.correctNegatives)] {
                gauge(Families.verificationCounts, labels + [("outcome", outcome)]).set(Int64(value))
            }
            for (score, value) in [("csi", count.csi), ("pod", count.pod), ("far", count.far), ("bias", count.bias)] {
                gauge(Families.verificationScores, labels + [("score", score)]).set(to: value ?? .nan)
            }
        }
    }

    /// The counter of `family` with `labels` (made at its first use).
    private func counter(_ family: Family, _ labels: [(String, String)] = []) -> Counter {
        labels.isEmpty ? registry.makeCounter(descriptor: family.descriptor) : registry.makeCounter(descriptor: family.descriptor, labels: labels)
    }

    /// The gauge of `family` with `labels` (made at its first use).
    private func gauge(_ family: Family, _ labels: [(String, String)] = []) -> Gauge {
        labels.isEmpty ? registry.makeGauge(descriptor: family.descriptor) : registry.makeGauge(descriptor: family.descriptor, labels: labels)
    }

    /// Feeds the database gauges at every scrape (a storage backend installs it; nil removes it).
    package var databasePoolSampler: (@Sendable () -> DatabasePoolLoad?)? {
        get { sampler.withLock(visibleToThreadSanitizerAs: self) { $0 } }
        set { sampler.withLock(visibleToThreadSanitizerAs: self) { $0 = newValue } }
    }

    /// Sets the database gauges now (a storage backend calls this when its pool changes, or from a timer).
    package func setDatabasePool(connectionsInUse: Int, requestsWaiting: Int, poolSize: Int? = nil) {
        gauge(Families.connectionsInUse).set(Int64(connectionsInUse))
        gauge(Families.requestsWaiting).set(Int64(requestsWaiting))
        if let poolSize { gauge(Families.poolSize).set(Int64(poolSize)) }
    }

    /// Describes the server's storage: `eddy_build_info` names its backend, and `eddy_database_clock_offset_seconds`
    /// follows its clock comparison from now on.
    package func observe(storage: any ServerStorage) {
        gauge(Families.buildInfo, [("version", EddyVersion.current), ("backend", Self.backendName(storage))]).set(to: 1)
        clockOffsetSampler.withLock(visibleToThreadSanitizerAs: self) { $0 = { [storage] in storage.clockOffsetSeconds } }
    }

    /// `sqlite`, `postgres`, `memory`, or the type's name for a backend this list does not know.
    static func backendName(_ storage: any ServerStorage) -> String {
        switch storage {
        case is SQLiteServerStorage: "sqlite"
        case is PostgresServerStorage: "postgres"
        case is InMemoryServerStorage: "memory"
        default: String(describing: type(of: storage))
        }
    }

    /// The outcome of a readiness check of the database (`eddy_database_up`).
    package func setDatabaseUp(_ up: Bool) {
        gauge(Families.databaseUp).set(to: up ? 1 : 0)
    }

    /// The counter of `task`'s rounds with outcome `failed` or `ok`.
    private func upkeepCounter(_ task: UpkeepTask, failed: Bool) -> Counter {
        counter(Families.upkeepRuns, [("task", task.rawValue), ("outcome", failed ? "failed" : "ok")])
    }

    /// One round of the storage's upkeep ended.
    package func recordUpkeep(_ task: UpkeepTask, failed: Bool) {
        upkeepCounter(task, failed: failed).increment()
    }

    /// One request answered: counts it and records its latency.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        counter(Families.requests, [("route", route), ("method", method), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Families.requestDuration.descriptor, labels: [("route", route), ("method", method)],
                                       buckets: Self.latencyBuckets)
            .recordNanoseconds(Self.nanoseconds(duration))
    }

    /// A request started (+1) or finished (−1).
    func requestInFlight(_ delta: Int) {
        // The in-flight count lives here and is recorded whole, so the gauge never shows a half-applied change.
        let now = inFlightCount.withLock(visibleToThreadSanitizerAs: self) { count in
            count += delta
            return count
        }
        inFlight.set(Int64(now))
    }
    private let inFlightCount = Mutex<Int>(0)

    /// Reports accepted by one upload.
    func recordIngest(new: Int, duplicate: Int) {
        if new > 0 { counter(Families.ingested, [("outcome", "new")]).increment(by: Int64(new)) }
        if duplicate > 0 { counter(Families.ingested, [("outcome", "duplicate")]).increment(by: Int64(duplicate)) }
    }

    /// One refusal (a rejected report or a refused request) for `reason`.
    func recordRejection(reason: String) {
        counter(Families.rejections, [("reason", reason)]).increment()
    }

    /// One request refused by the rate limiter.
    func recordRateLimited() {
        counter(Families.rateLimited).increment()
    }

    /// One session opened.
    func recordSessionOpened() {
        counter(Families.sessions).increment()
    }

    /// The `outcome` label of `eddy_api_key_requests_total` for a response status.
    static func apiKeyOutcome(status: Int) -> String {
        switch status {
        case 429: "rate_limited"
        case 403: "refused"
        case 400..<500: "client_error"
        case 500...: "server_error"
        default: "ok"
        }
    }

    /// One request made with `key`, answered `status`.
    func recordAPIKeyRequest(_ key: APIKeyNote, status: Int) {
        let counted = apiKeysCounted.withLock(visibleToThreadSanitizerAs: self) { counted in
            if counted.contains(key.id) { return true }
            guard counted.count < maxAPIKeySeries else { return false }
            counted.insert(key.id)
            return true
        }
        let labels = counted ? [("key", String(key.id)), ("airline", key.airline)] : [("key", "other"), ("airline", "other")]
        counter(Families.apiKeyRequests, labels + [("outcome", Self.apiKeyOutcome(status: status))]).increment()
    }

    /// The Prometheus text exposition (version 0.0.4) of every metric; the database gauges, the clock offset and the
    /// process figures are sampled first.
    package func exposition() -> String {
        if let load = databasePoolSampler?() {
            setDatabasePool(connectionsInUse: load.connectionsInUse, requestsWaiting: load.requestsWaiting, poolSize: load.poolSize)
        }
        if let offset = clockOffsetSampler.withLock(visibleToThreadSanitizerAs: self, { $0 }) {
            gauge(Families.clockOffset).set(offset())
        }
        if let process = ProcessFigures.current() { record(process) }
        return registry.emitToString()
    }

    /// Sets the `process_*` gauges and counter.
    private func record(_ process: ProcessFigures) {
        gauge(Families.residentMemory).set(process.residentBytes)
        gauge(Families.virtualMemory).set(process.virtualBytes)
        gauge(Families.startTime).set(process.startTimeSeconds)
        // A counter only goes up: it is moved by what the CPU time grew since the last scrape.
        let cpu = counter(Families.cpuSeconds)
        let grown = cpuSecondsRecorded.withLock(visibleToThreadSanitizerAs: self) { recorded in
            let grown = max(0, process.cpuSeconds - recorded)
            recorded += grown
            return grown
        }
        cpu.increment(by: grown)
        if let open = process.openFDs { gauge(Families.openFDs).set(Int64(open)) }
        if let limit = process.maxFDs { gauge(Families.maxFDs).set(limit) }
    }
    private let cpuSecondsRecorded = Mutex<Double>(0)

    /// A per-report rejection message of `SyncService.validate` as a short reason label.
    static func reportRejectionReason(_ message: String) -> String {
        if message.hasPrefix("tile.h3") { return "report_invalid_cell" }
        if message.hasPrefix("tile.layer") { return "report_layer" }
        if message.hasPrefix("exitTime is in the future") { return "report_future" }
        if message.hasPrefix("exitTime") { return "report_time_order" }
        if message.hasPrefix("EDR") { return "report_edr" }
        return "report_other"
    }

    /// `duration` in whole nanoseconds (clamped to Int64).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return Int64.max }
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// This process's figures for the `process_*` metrics, read from `/proc/self` as Prometheus' Go client reads them.
struct ProcessFigures: Equatable {
    /// Resident set size, bytes (`VmRSS`).
    var residentBytes: Double
    /// Virtual memory size, bytes (`VmSize`).
    var virtualBytes: Double
    /// User plus system CPU time, seconds.
    var cpuSeconds: Double
    /// When the process started, Unix seconds.
    var startTimeSeconds: Double
    /// Open file descriptors (nil when `/proc/self/fd` cannot be listed).
    var openFDs: Int?
    /// The soft limit of open file descriptors (nil when unlimited or unknown).
    var maxFDs: Double?

    /// The figures now; nil where `/proc` is missing or unreadable (not Linux).
    static func current() -> ProcessFigures? {
        guard let stat = read("/proc/self/stat"), let status = read("/proc/self/status"), let system = read("/proc/stat"),
              let ticks = clockTicksPerSecond else { return nil }
        let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return parse(stat: stat, status: status, systemStat: system, limits: read("/proc/self/limits") ?? "",
                     clockTicksPerSecond: ticks, openFDs: fds.map { max(0, $0.count - 1) })   // less the listing's own
    }

    /// The figures in the texts of `/proc/self/stat`, `/proc/self/status`, `/proc/stat` and `/proc/self/limits`
    /// (proc(5)); nil when a field is missing.
    static func parse(stat: String, status: String, systemStat: String, limits: String, clockTicksPerSecond: Double,
                      openFDs: Int?) -> ProcessFigures? {
        // The command name (field 2) is in parentheses and may hold spaces or parentheses: fields count from the last ")".
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field n of proc(5) is fields[n - 3]: utime 14, stime 15, starttime 22.
        guard fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]), let started = Double(fields[19]),
              let bootTime = value(of: "btime", in: systemStat),
              let resident = value(of: "VmRSS:", in: status), let virtual = value(of: "VmSize:", in: status) else { return nil }
        var maxFDs: Double?
        if let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) {
            maxFDs = line.split(separator: " ").dropFirst(3).first.flatMap { Double($0) }
        }
        return ProcessFigures(
            residentBytes: resident * 1024, virtualBytes: virtual * 1024, cpuSeconds: (user + system) / clockTicksPerSecond,
            startTimeSeconds: bootTime + started / clockTicksPerSecond, openFDs: openFDs, maxFDs: maxFDs)
    }

    /// The number after `key` on the line that starts with it (`VmRSS:   1234 kB` gives 1234).
    private static func value(of key: String, in text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return nil }
        return line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) }
    }

    /// A small text file's contents (files of /proc report size 0, so it is read to its end).
    private static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `sysconf(_SC_CLK_TCK)`: the unit of the CPU and start times in `/proc/self/stat`.
    private static let clockTicksPerSecond: Double? = {
        #if canImport(Glibc)
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? Double(ticks) : nil
        #else
        return nil
        #endif
    }()
}
#endif
