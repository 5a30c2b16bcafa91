#if Tools
package import EddyProtocol
import EddySupport
import Foundation
package import HTTPTypes
package import Hummingbird

/// A failure answered with an HTTP status and an `ErrorBody` (`ErrorMappingMiddleware` turns it into the response).
package struct APIError: Error, Sendable {
    /// HTTP status.
    package var status: HTTPResponse.Status
    /// The body.
    package var body: ErrorBody

    /// Creates an error answered with `status` and `body`.
    package init(status: HTTPResponse.Status, body: ErrorBody) {
        self.status = status
        self.body = body
    }

    /// 400 `badRequest` with `message`.
    package static func badRequest(_ message: String) -> APIError { APIError(status: 400, body: ErrorBody(error: "badRequest", message: message)) }
    /// 401: no bearer token.
    package static let missingToken = APIError(status: 401, body: ErrorBody(error: "unauthorized", message: "missing `Authorization: Bearer <token>`; start a session at POST /v1/session"))
    /// 401: the token is unknown or expired.
    package static let sessionExpired = APIError(status: 401, body: ErrorBody(error: "sessionExpired", message: "the session token is unknown or expired; start a new session"))
    /// 401: the API key is unknown.
    package static let apiKeyInvalid = APIError(status: 401, body: ErrorBody(error: "apiKeyInvalid", message: "the API key is not known to this server"))
    /// 403: the key was revoked.
    package static let keyRevoked = APIError(status: 403, body: ErrorBody(error: "keyRevoked", message: "the API key or company has been deactivated; recording must stop"))
    /// 403: the key expired (`eddy-server keys add --expires-in-days`).
    package static let keyExpired = APIError(status: 403, body: ErrorBody(
        error: "keyExpired", message: "the API key has expired; recording must stop until the operator issues a new key"))
    /// 403: the key belongs to another airline.
    package static let airlineMismatch = APIError(status: 403, body: ErrorBody(error: "airlineMismatch", message: "the API key does not belong to this airline"))
    /// 426: the client is older than `minimum`.
    package static func clientTooOld(_ minimum: WireVersion) -> APIError {
        APIError(status: 426, body: ErrorBody(error: "clientTooOld", message: "client version too old; \(minimum) or newer is required"))
    }
    /// 413: the body is over `limit` bytes.
    package static func tooLarge(_ limit: Int) -> APIError { APIError(status: 413, body: ErrorBody(error: "payloadTooLarge", message: "request body over \(limit) bytes")) }
    /// 429: the bucket of `scope` (the session, or its API key) is empty; retry after `seconds` (rounded up, also sent as
    /// `Retry-After`).
    package static func rateLimited(_ seconds: Double, scope: String = "this session") -> APIError {
        APIError(status: 429, body: ErrorBody(error: "rateLimited", message: "too many requests for \(scope)", retryAfterSeconds: seconds.rounded(.up)))
    }
    /// 400 `answerTooLarge`: a fetch without `pageSize` (an older client) whose answer would carry more than `limit` items.
    package static func answerTooLarge(_ limit: Int) -> APIError {
        APIError(status: 400, body: ErrorBody(error: "answerTooLarge", message: "the answer would carry more than \(limit) items; "
            + "send pageSize and fetch the pages by nextCursor (EddySync does), or narrow the area, layers or history window"))
    }
    /// 400 `badRequest`: a `cursor` this server did not give for this data type.
    package static let badCursor = badRequest(
        "cursor is not a nextCursor this server gave for this dataType (or it needs pageSize); fetch again without cursor")
    /// 409 `cursorExpired`: the pages of a nowcast fetch outlived their issue (a new one was made between two pages).
    package static let cursorExpired = APIError(status: 409, body: ErrorBody(
        error: "cursorExpired", message: "a new nowcast issue replaced the one these pages belong to; fetch again from the first page"))
    /// 503 `storageFailed`: the database did not complete the request (a query, the connection or the commit failed);
    /// nothing of it is acknowledged, and the client retries later (uploads are idempotent). The cause goes to the log.
    package static let storageFailed = APIError(status: 503, body: ErrorBody(
        error: "storageFailed", message: "the server's database could not complete the request; nothing of it was stored or acknowledged; retry later"))
    /// 500 for any failure that is not an `APIError` (details go to the log, never to the client).
    package static let internalError = APIError(status: 500, body: ErrorBody(error: "internal", message: "internal server error"))
    /// 500 answered by an injected `status500` fault (test hooks).
    package static let injectedFault = APIError(status: 500, body: ErrorBody(error: "internal", message: "injected fault"))
}

extension APIError: HTTPResponseError {
    /// The JSON error body (gzip rules as for every answer), with `Retry-After` when the body carries `retryAfterSeconds`.
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(status: status, body, request: request)
        if let retry = body.retryAfterSeconds {
            response.headers[.retryAfter] = String(Int(saturating: retry, rounding: .up))
        }
        return response
    }
}
#endif
