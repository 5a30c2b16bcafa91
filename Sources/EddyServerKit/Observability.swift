#if Tools
import EddyProtocol
import Foundation
package import HTTPTypes
package import Hummingbird
package import Logging
import NIOCore

/// The request id of the request being handled (docs/fleet-server.md "Request ids").
///
/// `ObservabilityMiddleware` takes the client's `X-Request-Id` when it is sane (1–64 characters of `[A-Za-z0-9._-]`)
/// or makes one, binds it to this task-local for the rest of the request, and returns it in the response's
/// `X-Request-Id`. ``metadataProvider`` puts it into every log line written while it is bound, as `request_id`,
/// through any `LogHandler` that honours metadata providers (swift-log's stream handler does).
package enum RequestID {
    /// The id of the request this task serves, nil outside a request.
    @TaskLocal package static var current: String?

    /// The header carrying the id both ways.
    package static let headerName = HTTPField.Name("X-Request-Id")!

    /// Longest id taken from a client.
    package static let maximumLength = 64

    /// Adds `request_id` to log lines written while a request id is bound.
    package static let metadataProvider = Logger.MetadataProvider {
        guard let id = RequestID.current else { return [:] }
        return ["request_id": .string(id)]
    }

    /// `logger` with ``metadataProvider`` added to its handler's provider.
    package static func attach(to logger: Logger) -> Logger {
        var logger = logger
        logger.handler.metadataProvider = .multiplex([logger.handler.metadataProvider, metadataProvider].compactMap { $0 })
        return logger
    }

    /// Whether a client's id may be used as is: 1–64 characters of `[A-Za-z0-9._-]`.
    package static func isSane(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...maximumLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    /// A new id: 16 random bytes as 32 lower-case hex digits.
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next() as UInt64, generator.next() as UInt64].map { value in
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// The outermost middleware of every route: request id (bound, logged, echoed), request count, latency and
/// refusal metrics. Errors thrown inside are turned into their responses here, so that they carry the id too.
package struct ObservabilityMiddleware: RouterMiddleware {
    /// Where the figures go; nil records none (`--no-metrics`).
    let metrics: ServerMetrics?

    /// Creates the middleware.
    package init(metrics: ServerMetrics?) { self.metrics = metrics }

    /// Binds the request id, runs the request, records it.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        let offered = request.headers[RequestID.headerName]
        let id = offered.flatMap { RequestID.isSane($0) ? $0 : nil } ?? RequestID.make()
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        let started = ContinuousClock.now
        metrics?.requestInFlight(1)
        defer { metrics?.requestInFlight(-1) }
        var response: Response
        do {
            response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Not an HTTP error (the /v1 routes map theirs; this is anything else): Hummingbird answers 500.
            record(request, context: context, status: 500, since: started)
            throw error
        }
        response.headers[RequestID.headerName] = id
        record(request, context: context, status: response.status.code, since: started)
        return response
    }

    /// Counts the request, its latency and, when it was made with a known API key, the key's request.
    private func record(_ request: Request, context: EddyRequestContext, status: Int, since started: ContinuousClock.Instant) {
        guard let metrics else { return }
        let route = Self.routes.contains(request.uri.path) ? request.uri.path : "unmatched"
        metrics.recordRequest(route: route, method: request.method.rawValue, status: status, duration: ContinuousClock.now - started)
        if let key = context.notes.apiKey { metrics.recordAPIKeyRequest(key, status: status) }
    }

    /// The paths the server routes (no route has parameters): anything else is counted as `unmatched`, so that a
    /// scan of random paths cannot grow the metrics without bound.
    static let routes: Set<String> = [
        "/health", "/healthz", "/readyz", "/metrics", "/openapi.yaml", "/map", "/v1/tick", "/v1/session", "/v1/reports",
        "/v1/fetch", "/v1/position", "/v1/_test/faults", "/v1/_test/expire-sessions",
    ]
}

/// Counts refused requests by their error code (`eddy_rejections_total`, and `eddy_rate_limited_total` for 429);
/// sits just inside `ErrorMappingMiddleware`, so it sees the `APIError`s the routes throw.
package struct RejectionMetricsMiddleware: RouterMiddleware {
    /// Where the counts go.
    let metrics: ServerMetrics

    /// Creates the middleware.
    package init(metrics: ServerMetrics) { self.metrics = metrics }

    /// Runs the request; counts an `APIError` (4xx) on its way out.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            if (400..<500).contains(error.status.code) {
                metrics.recordRejection(reason: error.body.error)
                if error.status.code == 429 { metrics.recordRateLimited() }
            }
            throw error
        }
    }
}

/// Whether the server can do its work: `GET /readyz` answers 200 when ``check`` returns, 503 when it throws.
package struct ReadinessProbe: Sendable {
    /// Runs a trivial query against the storage; throws when it cannot answer.
    package let check: @Sendable () async throws -> Void

    /// A probe running `check`.
    package init(_ check: @escaping @Sendable () async throws -> Void) { self.check = check }

    /// The storage (SQLite or PostgreSQL) answers a trivial read (the latest nowcast issue: one indexed row).
    package static func database(_ database: any ServerStorage) -> ReadinessProbe {
        ReadinessProbe { _ = try await database.latestNowcastIssue() }
    }
}

/// `GET /healthz`, `GET /readyz` and `GET /metrics` (docs/fleet-server.md "Health and metrics").
enum OperationsRoutes {
    /// Adds the routes to `router`; `/metrics` only when `metrics` is non-nil, which `/readyz` also tells whether the
    /// database answered (`eddy_database_up`).
    static func add(to router: Router<EddyRequestContext>, readiness: ReadinessProbe, metrics: ServerMetrics?, logger: Logger) {
        router.get("/healthz") { _, _ in text(.ok, "ok\n") }
        router.get("/readyz") { _, _ in
            do {
                try await readiness.check()
                metrics?.setDatabaseUp(true)
                return text(.ok, "ready\n")
            } catch {
                metrics?.setDatabaseUp(false)
                logger.warning("readiness probe failed", metadata: ["error": "\(error)"])
                return text(.serviceUnavailable, "not ready: the database does not answer\n")
            }
        }
        if let metrics {
            router.get("/metrics") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                         body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
            }
        }
    }

    /// A plain-text answer.
    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
#endif
