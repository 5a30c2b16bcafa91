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

/// What inner middleware tells the request log (contexts are values: an inner copy's changes don't flow back out).
package final class RequestNotes: Sendable {
    private let reporter = Mutex<String?>(nil)

    /// Creates empty notes.
    package init() {}

    /// The anonymised reporter id of the authenticated session, once known.
    package var reporterId: String? {
        get { reporter.withLock(visibleToThreadSanitizerAs: self) { $0 } }
        set { reporter.withLock(visibleToThreadSanitizerAs: self) { $0 = newValue } }
    }
}
