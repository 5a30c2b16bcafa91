import CompressNIO
import EddyProtocol
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// HTTP framing of `SyncService`: routes, body limits, JSON, gzip, errors, request logs (without secrets).
struct HTTPRoutes: Sendable {
    let service: SyncService

    /// Responses larger than this are gzip-compressed when the client accepts gzip.
    static let gzipThresholdBytes = 1024
    /// gzip at zlib level 1: JSON of repeated keys compresses about as well as at level 6, several times faster.
    static let gzip = CompressionAlgorithm.gzip(configuration: ZlibConfiguration(compressionLevel: .fastestCompression))

    /// Builds the router.
    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
        router.get("/v1/tick") { request, _ in
            await handle(request, authenticated: false) { _, _ in
                TickResponse(serverTick: service.currentTick(), serverTime: service.clock.now())
            }
        }
        router.post("/v1/session") { request, _ in
            await handle(request, authenticated: false) { body, _ in
                try await service.startSession(try decode(SessionStartRequest.self, body))
            }
        }
        router.post("/v1/reports") { request, _ in
            await handle(request, authenticated: true) { body, session in
                let data = Data(buffer: body)
                let batch = try CanonicalReportBatch.decode(data) ?? decode(ReportBatch.self, body)
                return try await service.ingest(batch, session: session!)
            }
        }
        router.post("/v1/fetch") { request, _ in
            await handle(request, authenticated: true) { body, session in
                try await service.fetch(try decode(DeltaFetchRequest.self, body), session: session!)
            }
        }
        router.post("/v1/position") { request, _ in
            await handle(request, authenticated: true) { body, session -> TickResponse in
                try await service.uploadPosition(try decode(PositionUpload.self, body), session: session!)
                return TickResponse(serverTick: service.currentTick(), serverTime: service.clock.now())
            }
        }
        if service.options.testHooks {
            router.post("/v1/_test/faults") { request, _ in
                await handle(request, authenticated: false, injectFaults: false) { body, _ in
                    service.addFaults(try decode(FaultPlan.self, body))
                    return TickResponse(serverTick: service.currentTick(), serverTime: service.clock.now())
                }
            }
            router.post("/v1/_test/expire-sessions") { request, _ in
                await handle(request, authenticated: false, injectFaults: false) { _, _ in
                    try await service.database.expireAllSessions(now: service.clock.now())
                    return TickResponse(serverTick: service.currentTick(), serverTime: service.clock.now())
                }
            }
        }
        return router
    }

    /// Runs one API request: faults (test hooks), body limit, auth + rate limit, the work, JSON + gzip, error mapping, log line.
    func handle<Output: Encodable>(
        _ request: Request, authenticated: Bool, injectFaults: Bool = true,
        _ work: (ByteBuffer, SessionRecord?) async throws -> Output
    ) async -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        var fault: InjectedFault?
        if injectFaults, service.options.testHooks { fault = service.takeFault(path: path) }
        var session: SessionRecord?
        var response: Response
        do {
            if let fault {
                switch fault.kind {
                case "status500":
                    throw APIError(status: 500, body: ErrorBody(error: "internal", message: "injected fault"))
                case "malformed":
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"serverTick\": 1, \"broken")))
                case "delay":
                    try await Task.sleep(for: .seconds(fault.seconds ?? 5))
                default: break
                }
            }
            let limit = service.options.settings.maxRequestBytes
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch is NIOTooManyBytesError {
                throw APIError.tooLarge(limit)
            }
            if let version = request.headers[HTTPField.Name(EddyWire.clientVersionHeader)!], let parsed = WireVersion(version),
               parsed < service.options.minimumClientVersion {
                throw APIError.clientTooOld(service.options.minimumClientVersion)
            }
            if authenticated { session = try await service.authenticate(authorization: request.headers[.authorization]) }
            let output = try await work(body, session)
            if fault?.kind == "hangAfterCommit" { try await Task.sleep(for: .seconds(fault?.seconds ?? 30)) }
            response = jsonResponse(status: .ok, output, request: request)
        } catch let error as APIError {
            response = jsonResponse(status: HTTPResponse.Status(code: error.status), error.body, request: request)
            if let retry = error.body.retryAfterSeconds {
                response.headers[.retryAfter] = String(Int(retry.rounded(.up)))
            }
        } catch {
            service.logger.error("request failed", metadata: ["path": "\(path)", "error": "\(String(describing: type(of: error)))"])
            response = jsonResponse(status: .internalServerError, ErrorBody(error: "internal", message: "internal server error"), request: request)
        }
        let elapsed = ContinuousClock.now - started
        service.logger.debug("request", metadata: [
            "method": "\(request.method)", "path": "\(path)", "status": "\(response.status.code)",
            "reporter": "\(session?.reporterId ?? "-")",
            "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
        ])
        return response
    }

    /// Decodes a JSON body, mapping failures to 400 with the decoder's explanation.
    func decode<T: Decodable>(_ type: T.Type, _ body: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch let error as DecodingError {
            throw APIError.badRequest("invalid JSON for \(T.self): \(Self.describe(error))")
        } catch {
            throw APIError.badRequest("invalid JSON for \(T.self)")
        }
    }

    /// A JSON response, gzip-compressed when the client accepts it and the body is large enough.
    func jsonResponse<T: Encodable>(status: HTTPResponse.Status, _ value: T, request: Request) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        var buffer: ByteBuffer
        if let fetch = value as? DeltaFetchResponse, fetch.dataType == .turbulence {
            buffer = FastJSON.turbulenceResponse(fetch)
        } else {
            do {
                buffer = ByteBuffer(bytes: try JSONEncoder().encode(value))
            } catch {
                return Response(status: .internalServerError, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"internal\",\"message\":\"encoding failed\"}")))
            }
        }
        if buffer.readableBytes > Self.gzipThresholdBytes, let accept = request.headers[.acceptEncoding], accept.contains("gzip"),
           let compressed = try? buffer.compress(with: Self.gzip) {
            buffer = compressed
            headers[.contentEncoding] = "gzip"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// Short text for a decoding error (path and what was wrong).
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let joined = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return joined.isEmpty ? "body" : joined
        }
        switch error {
        case .typeMismatch(_, let context): return "\(path(context)): wrong type"
        case .valueNotFound(_, let context): return "\(path(context)): missing value"
        case .keyNotFound(let key, let context): return "\(path(context)): missing key \(key.stringValue)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "undecodable"
        }
    }
}
