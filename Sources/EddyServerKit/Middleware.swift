#if Tools
package import EddyProtocol
import Foundation
import HTTPTypes
package import Hummingbird
package import Logging
import NIOCore

// The middleware of the `/v1` routes, outermost first (see `HTTPRoutes.router()`):
// RequestLogMiddleware → ErrorMappingMiddleware → FaultInjectionMiddleware (test hooks) → BodyLimitMiddleware
// → ClientVersionMiddleware → AuthenticationMiddleware (authenticated routes) → route handler.

/// Writes one log line per request, the access log: method, path, query (API keys and tokens shown as `***`), status,
/// reporter, milliseconds. At debug by default, at info with `eddy-server serve --access-log`.
package struct RequestLogMiddleware: RouterMiddleware {
    /// Where the lines go.
    let logger: Logger
    /// The level of the lines.
    let level: Logger.Level

    /// Creates the middleware.
    package init(logger: Logger, level: Logger.Level = .debug) {
        self.logger = logger
        self.level = level
    }

    /// Runs the request and logs how it ended.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var status = "error"
        defer {
            let elapsed = ContinuousClock.now - started
            var metadata: Logger.Metadata = [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
                "reporter": "\(context.notes.reporterId ?? "-")",
                "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
            ]
            if let query = request.uri.query, !query.isEmpty { metadata["query"] = "\(SecretQuery.redacted(query))" }
            logger.log(level: level, "request", metadata: metadata)
        }
        let response = try await next(request, context)
        status = "\(response.status.code)"
        return response
    }
}

/// Turns every error into the API's JSON error answer: `HTTPResponseError`s (`APIError`) answer themselves,
/// anything else is logged (type only) and answered 500 `internal`.
package struct ErrorMappingMiddleware: RouterMiddleware {
    /// Where unexpected failures are logged.
    let logger: Logger

    /// Creates the middleware.
    package init(logger: Logger) { self.logger = logger }

    /// Runs the request, mapping errors to responses.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(describing: type(of: error)))"])
            return try APIError.internalError.response(from: request, context: context)
        }
    }
}

/// Applies queued `InjectedFault`s (installed only with test hooks on).
package struct FaultInjectionMiddleware: RouterMiddleware {
    /// The queue `POST /v1/_test/faults` fills.
    let faults: FaultQueue

    /// Creates the middleware.
    package init(faults: FaultQueue) { self.faults = faults }

    /// Takes the next fault for the request's path and applies it around the rest of the chain.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let fault = faults.take(path: request.uri.path) else { return try await next(request, context) }
        switch fault {
        case .status500:
            throw APIError.injectedFault
        case .malformed:
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{\"serverTick\": 1, \"broken")))
        case .delay(let seconds):
            try await Task.sleep(for: .seconds(seconds))
            return try await next(request, context)
        case .hangAfterCommit(let seconds):
            let response = try await next(request, context)
            try await Task.sleep(for: .seconds(seconds))
            return response
        }
    }
}

/// Collects the request body into `context.body`, answering 413 `payloadTooLarge` over the limit.
package struct BodyLimitMiddleware: RouterMiddleware {
    /// Largest body, bytes.
    let limit: Int

    /// Creates the middleware.
    package init(limit: Int) { self.limit = limit }

    /// Collects the body, then runs the rest of the chain.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        var context = context
        do {
            context.body = try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.tooLarge(limit)
        }
        return try await next(request, context)
    }
}

/// Answers 426 `clientTooOld` when the `X-Eddy-Client-Version` header names a version below the minimum, or is missing
/// while the minimum is above 1.0.0 (every Eddy client sends it; with the default minimum, tools such as curl need not),
/// and 400 when the header is not a version (issue 30: a missing or garbage header passed any minimum).
package struct ClientVersionMiddleware: RouterMiddleware {
    /// Oldest accepted client version.
    let minimum: WireVersion

    /// Creates the middleware.
    package init(minimum: WireVersion) { self.minimum = minimum }

    /// The first client version: a request without the header passes only while this is the minimum.
    static let firstVersion = WireVersion("1.0.0")!

    /// Checks the header, then runs the rest of the chain.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        try Self.check(request.headers[HTTPField.Name(EddyWire.clientVersionHeader)!], minimum: minimum)
        return try await next(request, context)
    }

    /// Throws the answer to a header value (nil: absent) under `minimum`, or returns when the request may go on.
    static func check(_ header: String?, minimum: WireVersion) throws(APIError) {
        guard let header else {
            guard minimum <= firstVersion else { throw APIError.clientTooOld(minimum) }
            return
        }
        guard let version = Self.version(header.trimmingCharacters(in: .whitespaces)) else {
            throw APIError.badRequest("\(EddyWire.clientVersionHeader) must look like 1.2.3, got '\(header.prefix(40))'")
        }
        guard version >= minimum else { throw APIError.clientTooOld(minimum) }
    }

    /// The version a header value names when it is what the OpenAPI document's pattern allows,
    /// `^[0-9]{1,6}(\.[0-9]{1,6}){0,2}$` (`WireVersion` alone would also take `+1` or `-0`); nil otherwise.
    static func version(_ text: String) -> WireVersion? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.allSatisfy({ (1...6).contains($0.utf8.count) && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } })
        else { return nil }
        return WireVersion(text)
    }
}

/// Answers requests no route takes with the API's JSON error body: 405 `methodNotAllowed` (with `Allow`) for a known
/// path asked with another method, 404 `notFound` for any other path (issue 30: both were empty 404s).
package struct UnroutedMiddleware: RouterMiddleware {
    /// The methods of each path the router serves.
    let methods: [String: [HTTPRequest.Method]]

    /// Creates the middleware for the router's paths and their methods.
    package init(methods: [String: [HTTPRequest.Method]]) { self.methods = methods }

    /// Runs the request; Hummingbird's not-found error becomes the JSON 404 or 405.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let allowed = methods[request.uri.path] else {
                throw APIError(status: .notFound, body: ErrorBody(
                    error: "notFound", message: "no such path: \(request.uri.path.prefix(200)); see /openapi.yaml"))
            }
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            var response = try APIError(status: .methodNotAllowed, body: ErrorBody(
                error: "methodNotAllowed", message: "\(request.uri.path) takes \(names), not \(request.method.rawValue)"))
                .response(from: request, context: context)
            response.headers[.allow] = names
            return response
        }
    }
}

/// Resolves `Authorization: Bearer <token>` to a session (401 / 403, and 429 from the rate limiter) and puts it in the context.
package struct AuthenticationMiddleware: RouterMiddleware {
    /// The service that knows the sessions.
    let service: SyncService

    /// Creates the middleware.
    package init(service: SyncService) { self.service = service }

    /// Authenticates, then runs the rest of the chain with `context.session` set.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let session = try await service.authenticate(authorization: request.headers[.authorization], notes: context.notes)
        context.session = session
        context.notes.reporterId = session.reporterId
        return try await next(request, context)
    }
}
#endif
