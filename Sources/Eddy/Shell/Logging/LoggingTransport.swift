import Dispatch
import EddySync
import Logging

/// Logs each request the engine sends at trace level: method, path, status, body sizes, milliseconds. Never headers
/// or bodies (they carry the API key, the session token and the user id).
struct LoggingTransport: HTTPTransport {
    let base: any HTTPTransport
    let logger: Logger

    func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        let start = DispatchTime.now().uptimeNanoseconds
        func ms() -> String { String(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
        do {
            let response = try base.send(request)
            logger.trace("http \(request.method) \(request.path) → \(response.status)",
                         metadata: ["sent": "\(request.body?.count ?? 0)", "received": "\(response.body.count)", "ms": "\(ms())"])
            return response
        } catch {
            logger.trace("http \(request.method) \(request.path) failed: \(error)", metadata: ["ms": "\(ms())"])
            throw error
        }
    }
}
