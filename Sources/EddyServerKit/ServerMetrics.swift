import CoreMetrics
import EddySupport
import Foundation
package import Prometheus
import Synchronization

/// The server's operational metrics (served as Prometheus text at `GET /metrics`; docs/fleet-server.md "Metrics").
///
/// Every `SyncService` owns one: its own `PrometheusCollectorRegistry` and a `PrometheusMetricsFactory` over it, and
/// every metric is made through the swift-metrics API with that factory passed explicitly (`Counter(label:dimensions:
/// factory:)`). Nothing calls `MetricsSystem.bootstrap`: the global bootstrap may run once per process, and tests
/// create many servers in one process, each of which must count only its own requests. A library in the process that
/// records through the global system records into the no-op default, not into `/metrics`.
///
/// Metric names (labels in braces):
/// - `eddy_http_requests_total{route,method,status}`: requests answered, by matched route (`unmatched` for a path no
///   route has), method and status code.
/// - `eddy_http_request_duration_seconds{route,method}`: latency histogram, handler start to response head.
/// - `eddy_http_requests_in_flight`: requests being handled now.
/// - `eddy_reports_ingested_total{outcome}`: reports accepted by `POST /v1/reports`, `new` or `duplicate`.
/// - `eddy_rejections_total{reason}`: refusals: one per rejected report (`report_invalid_cell`, `report_layer`,
///   `report_time_order`, `report_future`, `report_edr`) and one per refused request (the error body's code:
///   `badRequest`, `unauthorized`, `sessionExpired`, `apiKeyInvalid`, `keyRevoked`, `airlineMismatch`,
///   `clientTooOld`, `payloadTooLarge`, `rateLimited`).
/// - `eddy_rate_limited_total`: requests refused 429 by the per-session token bucket.
/// - `eddy_sessions_opened_total`: sessions started.
/// - `eddy_database_connections_in_use`, `eddy_database_requests_waiting`, `eddy_database_pool_size`: the storage's
///   pool (`ServerStorage.poolLoad`, counted by `StorageLoadMeter`), as last reported
///   through ``setDatabasePool(connectionsInUse:requestsWaiting:)`` or sampled at scrape time by
///   ``databasePoolSampler``; absent until the storage reports.
package final class ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    package let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory over `registry` (pass it as `factory:` to make further metrics).
    package let factory: PrometheusMetricsFactory
    private let inFlight: CoreMetrics.Gauge
    private let sampler = Mutex<(@Sendable () -> DatabasePoolLoad?)?>(nil)

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

    /// Latency histogram buckets, seconds (1 ms to 10 s; the delta-fetch target is 50 ms at the 99th percentile).
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(10),
    ]

    /// Creates an empty registry with the server's metrics.
    package init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.latencyBuckets
        self.registry = registry
        self.factory = factory
        inFlight = CoreMetrics.Gauge(label: "eddy_http_requests_in_flight", factory: factory)
        inFlight.record(0)
    }

    /// Feeds the database gauges at every scrape (a storage backend installs it; nil removes it).
    package var databasePoolSampler: (@Sendable () -> DatabasePoolLoad?)? {
        get { sampler.withLock(visibleToThreadSanitizerAs: self) { $0 } }
        set { sampler.withLock(visibleToThreadSanitizerAs: self) { $0 = newValue } }
    }

    /// Sets the database gauges now (a storage backend calls this when its pool changes, or from a timer).
    package func setDatabasePool(connectionsInUse: Int, requestsWaiting: Int, poolSize: Int? = nil) {
        CoreMetrics.Gauge(label: "eddy_database_connections_in_use", factory: factory).record(connectionsInUse)
        CoreMetrics.Gauge(label: "eddy_database_requests_waiting", factory: factory).record(requestsWaiting)
        if let poolSize { CoreMetrics.Gauge(label: "eddy_database_pool_size", factory: factory).record(poolSize) }
    }

    /// One request answered: counts it and records its latency.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        CoreMetrics.Counter(label: "eddy_http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))],
                factory: factory).increment()
        CoreMetrics.Timer(label: "eddy_http_request_duration_seconds", dimensions: [("route", route), ("method", method)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(duration))
    }

    /// A request started (+1) or finished (−1).
    func requestInFlight(_ delta: Int) {
        // Gauge has no increment; the in-flight count lives here and is recorded whole.
        let now = inFlightCount.withLock(visibleToThreadSanitizerAs: self) { count in
            count += delta
            return count
        }
        inFlight.record(now)
    }
    private let inFlightCount = Mutex<Int>(0)

    /// Reports accepted by one upload.
    func recordIngest(new: Int, duplicate: Int) {
        if new > 0 { CoreMetrics.Counter(label: "eddy_reports_ingested_total", dimensions: [("outcome", "new")], factory: factory).increment(by: new) }
        if duplicate > 0 {
            CoreMetrics.Counter(label: "eddy_reports_ingested_total", dimensions: [("outcome", "duplicate")], factory: factory).increment(by: duplicate)
        }
    }

    /// One refusal (a rejected report or a refused request) for `reason`.
    func recordRejection(reason: String) {
        CoreMetrics.Counter(label: "eddy_rejections_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// One request refused by the rate limiter.
    func recordRateLimited() {
        CoreMetrics.Counter(label: "eddy_rate_limited_total", factory: factory).increment()
    }

    /// One session opened.
    func recordSessionOpened() {
        CoreMetrics.Counter(label: "eddy_sessions_opened_total", factory: factory).increment()
    }

    /// The Prometheus text exposition (version 0.0.4) of every metric, database gauges sampled first.
    package func exposition() -> String {
        if let load = databasePoolSampler?() {
            setDatabasePool(connectionsInUse: load.connectionsInUse, requestsWaiting: load.requestsWaiting, poolSize: load.poolSize)
        }
        return registry.emitToString()
    }

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
