import Dispatch
import EddySupport
public import EddyTransport
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Foundation URL loading transport: the default on Apple platforms; on Linux it runs on FoundationNetworking (which
/// itself drives libcurl). One `URLSession` per transport, so connections are kept alive and reused between requests.
///
/// What maps onto what (docs/sync.md, "Transports"):
/// - **Total timeout**: enforced by the transport itself (the request is cancelled and `.timedOut` thrown when no
///   complete response came within `totalTimeoutSeconds`); the session's request and resource timeouts are set to the
///   same value as a backstop.
/// - **Connect timeout**: URLSession has no connect-phase timeout; an unanswered connect is bounded by the total
///   timeout only.
/// - **gzip**: `Accept-Encoding: gzip` is sent; URLSession decodes the body (headers keep `content-encoding`).
/// - **Proxy**: `connectionProxyDictionary` (HTTP, HTTPS or SOCKS) on Apple platforms. FoundationNetworking on Linux
///   ignores that dictionary, so there a proxy is refused with `.invalidConfiguration` rather than silently bypassed.
/// - **Extra CA bundle**: not supported (URLSession trusts the system store); refused with `.invalidConfiguration`.
/// - **Redirects** are followed (URLSession's behaviour; `CurlTransport` does not follow them; the Eddy server never
///   redirects).
///
/// `send` blocks the calling thread until the response or error arrives; completions run on the transport's own
/// queue, never on the caller's, so it cannot deadlock whichever thread (main included) calls it.
public final class URLSessionTransport: HTTPTransport {
    /// The configuration in use.
    public let configuration: TransportConfiguration
    private let session: URLSession

    /// How long `send` waits for URLSession to report a cancelled request before giving up on it, seconds.
    private static let cancelGraceSeconds = 5.0

    /// Creates a transport; throws `.invalidConfiguration` for an invalid configuration (see
    /// ``TransportConfiguration/validate()``), an extra CA bundle, or a proxy URLSession cannot use on this platform.
    public init(configuration: TransportConfiguration) throws(TransportError) {
        try configuration.validate()
        if let path = configuration.caBundlePath {
            throw .invalidConfiguration(
                "URLSessionTransport cannot add a CA bundle (\(path)): install the CA in the system trust store, or use CurlTransport on Linux")
        }
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        // The transport enforces the total timeout itself; URLSession's own timers are a backstop set later than it
        // (FoundationNetworking truncates them to whole seconds, which would otherwise cut 1.5 s to 1 s).
        let backstop = Self.backstopSeconds(configuration.totalTimeoutSeconds)
        sessionConfiguration.timeoutIntervalForRequest = backstop
        sessionConfiguration.timeoutIntervalForResource = backstop
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCredentialStorage = nil
        sessionConfiguration.httpAdditionalHeaders = ["User-Agent": configuration.userAgent, "Accept-Encoding": "gzip"]
        if let proxy = configuration.proxy, !proxy.isEmpty {
            sessionConfiguration.connectionProxyDictionary = try Self.proxyDictionary(proxy)
        }
        let queue = OperationQueue()
        queue.name = "EddySync.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: sessionConfiguration, delegate: nil, delegateQueue: queue)
        self.configuration = configuration
    }

    deinit { session.invalidateAndCancel() }

    /// Sends a request and waits for the whole (decoded) response.
    public func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        let text = configuration.trimmedBaseURL + request.path
        guard let url = URL(string: text) else { throw .invalidConfiguration("request URL \"\(text)\" is not a valid URL") }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                    timeoutInterval: Self.backstopSeconds(configuration.totalTimeoutSeconds))
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body, request.method != "GET" {
            urlRequest.httpBody = body
            if urlRequest.value(forHTTPHeaderField: "Content-Type") == nil {
                urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }

        let outcome = Outcome()
        let task = session.dataTask(with: urlRequest) { data, response, error in
            outcome.finish(data: data, response: response, error: error)
        }
        task.resume()
        if outcome.done.wait(timeout: .now() + configuration.totalTimeoutSeconds) == .timedOut {
            task.cancel()
            _ = outcome.done.wait(timeout: .now() + Self.cancelGraceSeconds)
            let seconds = configuration.totalTimeoutSeconds
            throw .timedOut("no complete response within the total timeout of \(seconds) s (\(request.method) \(request.path))")
        }
        return try outcome.result().get()
    }

    /// The completion's result, handed from URLSession's queue to the waiting caller.
    private final class Outcome: Sendable {
        let done = DispatchSemaphore(value: 0)
        private let value = Mutex<Result<SyncHTTPResponse, TransportError>?>(nil)

        func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
            let result: Result<SyncHTTPResponse, TransportError>
            if let error {
                result = .failure(URLSessionTransport.map(error))
            } else if let http = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    guard let name = name as? String else { continue }
                    headers[name.lowercased()] = (value as? String) ?? String(describing: value)
                }
                result = .success(SyncHTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
            } else {
                result = .failure(.connectionLost("the answer was not an HTTP response"))
            }
            value.withLock(visibleToThreadSanitizerAs: self) { $0 = result }
            done.signal()
        }

        func result() -> Result<SyncHTTPResponse, TransportError> {
            value.withLock(visibleToThreadSanitizerAs: self) { $0 } ?? .failure(.other(-1, "URLSession finished without a result"))
        }
    }

    /// URLSession's own timeouts: whole seconds, at least one more than the transport's total timeout.
    static func backstopSeconds(_ totalSeconds: Double) -> Double { totalSeconds.rounded(.up) + 1 }

    /// Maps a URL loading error to the same cases `CurlTransport` uses.
    static func map(_ error: any Error) -> TransportError {
        guard let urlError = error as? URLError else { return .other(-1, String(describing: error)) }
        let message = "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        switch urlError.code {
        case .cannotConnectToHost, .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            return .cannotConnect(message)
        case .timedOut:
            return .timedOut(message)
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource, .cannotDecodeRawData,
             .cannotDecodeContentData:
            return .connectionLost(message)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            return .tls(message)
        case .cannotFindHost, .dnsLookupFailed:
            return .cannotResolve(message)
        case .badURL, .unsupportedURL, .appTransportSecurityRequiresSecureConnection:
            return .invalidConfiguration(message)
        case .unknown where isLibcurlTLSFailure(urlError.localizedDescription):
            return .tls(message)
        default:
            return .other(urlError.code.rawValue, message)
        }
    }

    /// FoundationNetworking (Linux) reports every libcurl TLS failure as `URLError.unknown` (-1) carrying only libcurl's
    /// message (swift-corelibs-foundation's `urlErrorCode(for:)` maps no SSL code), so on Linux a TLS failure is
    /// recognised by that message: libcurl's TLS errors all name SSL, TLS or the certificate. Apple's URLSession
    /// gives real codes, so this never applies there.
    static func isLibcurlTLSFailure(_ message: String) -> Bool {
        #if canImport(FoundationNetworking)
        let lower = message.lowercased()
        return lower.contains("ssl") || lower.contains("tls") || lower.contains("certificate")
        #else
        false
        #endif
    }

    /// The `connectionProxyDictionary` for a proxy URL (`http://host:port`, `https://…`, `socks5://…`; no scheme
    /// means http). The keys are the string values of CFNetwork's `kCFNetworkProxies…` constants.
    static func proxyDictionary(_ proxy: String) throws(TransportError) -> [AnyHashable: Any] {
        #if canImport(FoundationNetworking)
        throw .invalidConfiguration(
            "URLSessionTransport cannot use a proxy (\(proxy)) on this platform: FoundationNetworking ignores connectionProxyDictionary; use CurlTransport")
        #else
        let withScheme = proxy.contains("://") ? proxy : "http://" + proxy
        guard let url = URL(string: withScheme), let host = url.host, !host.isEmpty, let scheme = url.scheme?.lowercased() else {
            throw .invalidConfiguration("proxy \"\(proxy)\" is not a URL like http://proxy.example.com:8080")
        }
        switch scheme {
        case "http", "https":
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            return ["HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": port, "HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port]
        case "socks", "socks5", "socks5h", "socks4", "socks4a":
            return ["SOCKSEnable": 1, "SOCKSProxy": host, "SOCKSPort": url.port ?? 1080]
        default:
            throw .invalidConfiguration("proxy scheme \"\(scheme)\" is not http, https or socks5 (proxy \(proxy))")
        }
        #endif
    }
}

extension HTTPTransportFactory {
    /// `URLSessionTransport` (Foundation's URL loading system; FoundationNetworking on Linux).
    public static let urlSession = HTTPTransportFactory(name: "urlSession") { (configuration) throws(TransportError) in
        try URLSessionTransport(configuration: configuration)
    }
}
