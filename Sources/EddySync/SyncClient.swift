package import EddyProtocol
public import EddyStore
package import EddySupport
import EddyTransport
package import EddyVocabulary
import Foundation
import Synchronization

/// Every way a sync operation can fail, typed.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No HTTP answer (server down, timeout, connection lost, TLS): retried with back-off.
    case unreachable(TransportError)
    /// 401 even after one transparent re-authentication.
    case sessionExpired(String)
    /// 401 at session start: the API key is unknown.
    case apiKeyInvalid(String)
    /// 403: key or company deactivated; recording must stop.
    case forbidden(String)
    /// 426: this client is too old for the server.
    case clientTooOld(String)
    /// 429: wait this many seconds.
    case rateLimited(retryAfterSeconds: Double)
    /// 400 / 413: the request itself is wrong (not retried as is).
    case badRequest(String)
    /// 5xx or another unexpected status.
    case server(status: Int, message: String)
    /// A 2xx whose body does not decode.
    case malformedResponse(String)
    /// The local store failed (the store's own error: what went wrong and what to do).
    case store(StoreError)

    /// Whether retrying later can help (back-off applies).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .rateLimited, .server, .malformedResponse, .sessionExpired: true
        case .apiKeyInvalid, .forbidden, .clientTooOld, .badRequest, .store: false
        }
    }

    /// Text for logs.
    public var description: String {
        switch self {
        case .unreachable(let e): "server unreachable: \(e)"
        case .sessionExpired(let m): "session expired: \(m)"
        case .apiKeyInvalid(let m): "API key invalid: \(m)"
        case .forbidden(let m): "forbidden (recording stops): \(m)"
        case .clientTooOld(let m): "client too old: \(m)"
        case .rateLimited(let s): "rate limited: retry after \(s) s"
        case .badRequest(let m): "bad request: \(m)"
        case .server(let s, let m): "server error \(s): \(m)"
        case .malformedResponse(let m): "malformed response: \(m)"
        case .store(let e): "store error: \(e)"
        }
    }
}

/// Who the client is (SkyPath's `start(apiKey:airline:userId:env:)`).
package struct ClientIdentity: Sendable, Equatable {
    /// API key (secret; never logged).
    package var apiKey: String
    /// Company ICAO code.
    package var airline: String
    /// User id unique within the company.
    package var userId: String
    /// Client version sent to the server.
    package var clientVersion: String
    /// Creates an identity.
    package init(apiKey: String, airline: String, userId: String, clientVersion: String = EddyVersion.current) {
        self.apiKey = apiKey; self.airline = airline; self.userId = userId; self.clientVersion = clientVersion
    }
}

/// The protocol endpoints over a transport, with session handling: a session is started on first use and
/// restarted once, transparently, when the server answers 401.
package final class SyncClient: Sendable {
    /// The transport in use.
    package let transport: any HTTPTransport
    /// Who the client is.
    package let identity: ClientIdentity
    private let clock: any EpochClock
    private struct SessionState { var token: String?; var expiresAt: Double = 0; var settings = ServerSettings.defaults }
    private let state = Mutex(SessionState())
    /// Told the settings of every session started (the first, and each transparent restart).
    private let sessionStarted: (@Sendable (ServerSettings) -> Void)?

    /// Creates a client; `sessionStarted` hears each new session's settings (the engine takes its thresholds there).
    package init(transport: any HTTPTransport, identity: ClientIdentity, clock: any EpochClock,
                 sessionStarted: (@Sendable (ServerSettings) -> Void)? = nil) {
        self.transport = transport
        self.identity = identity
        self.clock = clock
        self.sessionStarted = sessionStarted
    }

    /// Settings from the latest session (defaults before the first).
    package var settings: ServerSettings { state.withLock(visibleToThreadSanitizerAs: self) { $0.settings } }

    /// Whether a session token is held.
    package var hasSession: Bool { state.withLock(visibleToThreadSanitizerAs: self) { $0.token != nil } }

    /// Starts (or restarts) a session.
    @discardableResult
    package func startSession() throws(SyncError) -> SessionStartResponse {
        let body = SessionStartRequest(
            apiKey: identity.apiKey, airline: identity.airline, userId: identity.userId, clientVersion: identity.clientVersion)
        let response = try exchange(SyncHTTPRequest(method: "POST", path: "/v1/session", body: try encode(body)))
        if response.status == 401 { throw .apiKeyInvalid(Self.message(response)) }
        let started: SessionStartResponse = try decodeSuccess(response)
        state.withLock(visibleToThreadSanitizerAs: self) { $0.token = started.token; $0.expiresAt = started.expiresAt; $0.settings = started.settings }
        sessionStarted?(started.settings)
        return started
    }

    /// Forgets the session (the next call starts a new one).
    package func dropSession() { state.withLock(visibleToThreadSanitizerAs: self) { $0.token = nil } }

    /// Uploads one batch of reports.
    package func upload(_ reports: [TileReport]) throws(SyncError) -> ReportBatchAck {
        let batch = ReportBatch(reports: reports)
        let body: Data
        if let canonical = CanonicalReportBatch.encode(batch) { body = canonical } else { body = try encode(batch) }
        return try authorized(path: "/v1/reports", body: body)
    }

    /// Fetches one data type for one area.
    package func fetch(_ request: DeltaFetchRequest) throws(SyncError) -> DeltaFetchResponse {
        try authorized(path: "/v1/fetch", body: try encode(request))
    }

    /// Uploads the own position, with the aircraft's fleet altitude offset when it measured one.
    @discardableResult
    package func uploadPosition(
        _ position: PositionUpload, altitudeOffset: AltitudeOffsetObservation? = nil
    ) throws(SyncError) -> TickResponse {
        try authorized(path: "/v1/position", body: try encode(PositionUploadBody(position: position, altitudeOffset: altitudeOffset)))
    }

    // MARK: internals

    private func authorized<T: Decodable>(path: String, body: Data) throws(SyncError) -> T {
        var reauthenticated = false
        while true {
            let token: String
            let current = state.withLock(visibleToThreadSanitizerAs: self) { ($0.token, $0.expiresAt) }
            if let held = current.0, current.1 > clock.now() {
                token = held
            } else {
                token = try startSession().token
            }
            let response = try exchange(SyncHTTPRequest(
                method: "POST", path: path, headers: ["Authorization": "Bearer \(token)"], body: body))
            if response.status == 401 {
                // The session expired or was dropped by the server: start a new one, once, and repeat.
                dropSession()
                if reauthenticated { throw .sessionExpired(Self.message(response)) }
                reauthenticated = true
                continue
            }
            return try decodeSuccess(response)
        }
    }

    private func exchange(_ request: SyncHTTPRequest) throws(SyncError) -> SyncHTTPResponse {
        var request = request
        request.headers[EddyWire.clientVersionHeader] = identity.clientVersion
        do {
            return try transport.send(request)
        } catch {
            throw .unreachable(error)
        }
    }

    private func decodeSuccess<T: Decodable>(_ response: SyncHTTPResponse) throws(SyncError) -> T {
        switch response.status {
        case 200..<300:
            if T.self == DeltaFetchResponse.self, let fast = CanonicalTurbulenceDecoder.decode(response.body) as? T {
                return fast
            }
            do {
                return try JSONDecoder().decode(T.self, from: response.body)
            } catch {
                throw .malformedResponse("\(T.self) did not decode (\(response.body.count) bytes)")
            }
        case 401: throw .sessionExpired(Self.message(response))
        case 403: throw .forbidden(Self.message(response))
        case 426: throw .clientTooOld(Self.message(response))
        case 429:
            let header = response.headers["retry-after"].flatMap(Double.init)
            let body = try? JSONDecoder().decode(ErrorBody.self, from: response.body)
            throw .rateLimited(retryAfterSeconds: header ?? body?.retryAfterSeconds ?? 1)
        case 400, 404, 405, 413, 415, 422: throw .badRequest("\(response.status): \(Self.message(response))")
        default: throw .server(status: response.status, message: Self.message(response))
        }
    }

    private func encode<T: Encodable>(_ value: T) throws(SyncError) -> Data {
        do { return try JSONEncoder().encode(value) } catch { throw .badRequest("could not encode \(T.self)") }
    }

    private static func message(_ response: SyncHTTPResponse) -> String {
        if let body = try? JSONDecoder().decode(ErrorBody.self, from: response.body) { return "\(body.error): \(body.message)" }
        return "HTTP \(response.status)"
    }
}
