// The body of every non-2xx answer.

/// Error body of every non-2xx answer.
package struct ErrorBody: Sendable, Codable, Equatable {
    /// Machine-readable code (`sessionExpired`, `keyRevoked`, `clientTooOld`, `rateLimited`, `badRequest`, …).
    package var error: String
    /// Human-readable explanation (never contains secrets).
    package var message: String
    /// Seconds to wait before retrying (429 and 503 only).
    package var retryAfterSeconds: Double?
    /// Creates an error body.
    package init(error: String, message: String, retryAfterSeconds: Double? = nil) {
        self.error = error; self.message = message; self.retryAfterSeconds = retryAfterSeconds
    }
}
