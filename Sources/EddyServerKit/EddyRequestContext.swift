#if Tools
import EddySupport
package import Hummingbird
import Logging
package import NIOCore
import Synchronization

/// The request context of every route: Hummingbird's core storage plus what Eddy's middleware finds out.
package struct EddyRequestContext: RequestContext {
    /// Hummingbird's storage (logger, parameters, endpoint path).
    package var coreContext: CoreRequestContextStorage
    /// The request body, collected (within the size limit) by `BodyLimitMiddleware`.
    package var body = ByteBuffer()
    /// The authenticated session, set by `AuthenticationMiddleware` on authenticated routes.
    package var session: SessionRecord?
    /// Notes for the request log line, shared with the middleware outside the one that writes them.
    package let notes = RequestNotes()

    /// Creates the context of one request.
    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The authenticated session; throws 401 on a route that did not pass `AuthenticationMiddleware`.
    package func authenticatedSession() throws -> SessionRecord {
        guard let session else { throw APIError.missingToken }
        return session
    }
}

/// What inner middleware tells the outer middleware (contexts are values: an inner copy's changes don't flow back out):
/// the request log's reporter and the per-key request counter's key.
package final class RequestNotes: Sendable {
    private struct State {
        var reporterId: String?
        var apiKey: APIKeyNote?
    }
    private let state = Mutex(State())

    /// Creates empty notes.
    package init() {}

    /// The anonymised reporter id of the authenticated session, once known.
    package var reporterId: String? {
        get { state.withLock(visibleToThreadSanitizerAs: self) { $0.reporterId } }
        set { state.withLock(visibleToThreadSanitizerAs: self) { $0.reporterId = newValue } }
    }

    /// The API key the request was made with, once the storage named it (its session's key, or the key a session start
    /// or the map's key exchange looked up); nil for a request no key is known for.
    package var apiKey: APIKeyNote? {
        get { state.withLock(visibleToThreadSanitizerAs: self) { $0.apiKey } }
        set { state.withLock(visibleToThreadSanitizerAs: self) { $0.apiKey = newValue } }
    }
}

/// The API key a request was made with, as `eddy_api_key_requests_total` labels it: never the secret.
package struct APIKeyNote: Sendable, Equatable {
    /// The key's row id (what `eddy-server keys list` shows and `keys revoke` takes).
    package var id: Int64
    /// The company ICAO code the key belongs to.
    package var airline: String

    /// Creates the note.
    package init(id: Int64, airline: String) {
        self.id = id
        self.airline = airline
    }
}
#endif
