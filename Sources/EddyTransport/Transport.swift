public import EddyVocabulary
public import Foundation

/// One HTTP request as the sync client builds it.
public struct SyncHTTPRequest: Sendable, Equatable {
    /// `GET` or `POST`.
    public var method: String
    /// Path under the base URL, e.g. `/v1/fetch`.
    public var path: String
    /// Extra headers (name, value).
    public var headers: [String: String]
    /// Body (JSON) for POST.
    public var body: Data?
    /// Creates a request.
    public init(method: String, path: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method; self.path = path; self.headers = headers; self.body = body
    }
}

/// One HTTP response (body already gzip-decoded).
public struct SyncHTTPResponse: Sendable, Equatable {
    /// Status code.
    public var status: Int
    /// Headers, names lower-cased.
    public var headers: [String: String]
    /// Body bytes.
    public var body: Data
    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status; self.headers = headers; self.body = body
    }
}

/// Why no HTTP response came back.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens / refused / no route.
    case cannotConnect(String)
    /// Connect or total timeout hit.
    case timedOut(String)
    /// The connection dropped before a full response.
    case connectionLost(String)
    /// TLS handshake or certificate verification failed.
    case tls(String)
    /// Host name did not resolve.
    case cannotResolve(String)
    /// Bad configuration (URL, proxy).
    case invalidConfiguration(String)
    /// Any other failure (the transport's own code: a libcurl `CURLcode` or a `URLError` code; message).
    case other(Int, String)

    /// Text for logs.
    public var description: String {
        switch self {
        case .cannotConnect(let m): "cannot connect: \(m)"
        case .timedOut(let m): "timed out: \(m)"
        case .connectionLost(let m): "connection lost: \(m)"
        case .tls(let m): "TLS failure: \(m)"
        case .cannotResolve(let m): "cannot resolve host: \(m)"
        case .invalidConfiguration(let m): "invalid configuration: \(m)"
        case .other(let code, let m): "transport error \(code): \(m)"
        }
    }
}

/// Sends HTTP requests; implementations must be safe to call from any thread.
public protocol HTTPTransport: Sendable {
    /// Sends a request and waits for the whole response (blocking).
    func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse
}

/// Where and how the transport connects (like SkyPath's `env`: a custom base URL and/or a proxy).
public struct TransportConfiguration: Sendable, Equatable {
    /// Base URL, e.g. `https://sync.example.org` (no trailing slash needed).
    public var baseURL: String
    /// Proxy URL (`http://host:port`, `socks5://…`), nil for none.
    public var proxy: String?
    /// Connect timeout, seconds.
    public var connectTimeoutSeconds: Double
    /// Total timeout for one request, seconds.
    public var totalTimeoutSeconds: Double
    /// Extra CA bundle file (PEM) for private servers; verification stays on either way.
    public var caBundlePath: String?
    /// User-Agent header.
    public var userAgent: String
    /// Creates a configuration (defaults: 10 s connect, 30 s total).
    public init(
        baseURL: String, proxy: String? = nil, connectTimeoutSeconds: Double = 10, totalTimeoutSeconds: Double = 30,
        caBundlePath: String? = nil, userAgent: String = "EddySync/\(EddyVersion.current)"
    ) {
        self.baseURL = baseURL; self.proxy = proxy; self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds; self.caBundlePath = caBundlePath; self.userAgent = userAgent
    }
}

extension TransportConfiguration {
    /// Longest timeout a transport accepts, seconds (one day): keeps the millisecond conversions in range.
    public static let maximumTimeoutSeconds: Double = 86_400

    /// Checks what every transport relies on: an http(s) base URL with a host and finite, positive timeouts.
    /// Throws `.invalidConfiguration` saying which field is wrong and what to give instead.
    public func validate() throws(TransportError) {
        let lower = baseURL.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw .invalidConfiguration("base URL must start with http:// or https:// (got \(baseURL))")
        }
        guard let url = URL(string: baseURL), let host = url.host, !host.isEmpty else {
            throw .invalidConfiguration("base URL \"\(baseURL)\" has no host: give e.g. https://eddy.example.com")
        }
        for (name, value) in [("connect", connectTimeoutSeconds), ("total", totalTimeoutSeconds)] {
            guard value.isFinite, value > 0, value <= Self.maximumTimeoutSeconds else {
                throw .invalidConfiguration(
                    "\(name) timeout must be a number of seconds in (0, \(Int(Self.maximumTimeoutSeconds))] (got \(value))")
            }
        }
    }

    /// The base URL without a trailing slash (request paths start with one).
    package var trimmedBaseURL: String { baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL }
}
