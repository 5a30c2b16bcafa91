package import EddyProtocol
import Foundation
import HTTPTypes
package import Hummingbird
package import Logging
import NIOCore

// The middleware of the `/v1` routes, outermost first (see `HTTPRoutes.router()`):
// RequestLogMiddleware → ErrorMappingMiddleware → FaultInjectionMiddleware (test hooks) → BodyLimitMiddleware
// → ClientVersionMiddleware → AuthenticationMiddleware (authenticated routes) → route handler.

/// Writes one debug log line per request (method, path, status, reporter, milliseconds; never a secret).
package struct RequestLogMiddleware: RouterMiddleware {
    /// Where the lines go.
    let logger: Logger

    /// Creates the middleware.
    package init(logger: Logger) { self.logger = logger }

    /// Runs the request and logs how it ended.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var status = "error"
        defer {
            let elapsed = ContinuousClock.now - started
            logger.debug("request", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
                "reporter": "\(context.notes.reporterId ?? "-")",
                "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
            ])
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

/// Answers 426 `clientTooOld` when the `Eddy-Client-Version` header names a version below the minimum.
package struct ClientVersionMiddleware: RouterMiddleware {
    /// Oldest accepted client version.
    let minimum: WireVersion

    /// Creates the middleware.
    package init(minimum: WireVersion) { self.minimum = minimum }

    /// Checks the header (absent or unparsable headers pass), then runs the rest of the chain.
    package func handle(
        _ request: Request, context: EddyRequestContext, next: (Request, EddyRequestContext) async throws -> Response
    ) async throws -> Response {
        if let version = request.headers[HTTPField.Name(EddyWire.clientVersionHeader)!], let parsed = WireVersion(version), parsed < minimum {
            throw APIError.clientTooOld(minimum)
        }
        return try await next(request, context)
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
        let session = try await service.authenticate(authorization: request.headers[.authorization])
        context.session = session
        context.notes.reporterId = session.reporterId
        return try await next(request, context)
    }
}
