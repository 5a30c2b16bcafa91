import Foundation

/// Makes the engine's HTTP transport from the ``TransportConfiguration`` the engine derives at each start (the
/// environment's base URL and proxy, the configured timeouts, the user agent).
///
/// A factory rather than a ready transport because the base URL and proxy are only known when the host calls
/// `start(…, environment:)`, and a start with another environment needs a transport for it. A host that wants one
/// instance of its own (a mock, a custom `URLSession` setup) wraps it with ``fixed(_:name:)``.
public struct HTTPTransportFactory: Sendable {
    /// A short name for logs and test output (`curl`, `urlSession`, …).
    public let name: String
    private let make: @Sendable (TransportConfiguration) throws(TransportError) -> any HTTPTransport

    /// Creates a factory from a closure.
    public init(name: String, make: @escaping @Sendable (TransportConfiguration) throws(TransportError) -> any HTTPTransport) {
        self.name = name
        self.make = make
    }

    /// Makes a transport for `configuration`; throws `.invalidConfiguration` when the transport cannot honour it.
    public func makeTransport(_ configuration: TransportConfiguration) throws(TransportError) -> any HTTPTransport {
        try make(configuration)
    }

    /// `URLSessionTransport` (Foundation's URL loading system; FoundationNetworking on Linux).
    public static let urlSession = HTTPTransportFactory(name: "urlSession") { (configuration) throws(TransportError) in
        try URLSessionTransport(configuration: configuration)
    }

    #if canImport(CCurlShim)
    /// `CurlTransport` (libcurl; only in Linux builds with the `LibcurlTransport` trait, the default).
    public static let curl = HTTPTransportFactory(name: "curl") { (configuration) throws(TransportError) in
        try CurlTransport(configuration: configuration)
    }
    #endif

    /// The platform's transport: `curl` on Linux when libcurl is compiled in, `urlSession` otherwise (Apple platforms,
    /// Linux built with `--disable-default-traits`).
    public static var platformDefault: HTTPTransportFactory {
        #if canImport(CCurlShim)
        .curl
        #else
        .urlSession
        #endif
    }

    /// Every transport compiled into this build, the platform default first.
    public static var available: [HTTPTransportFactory] {
        #if canImport(CCurlShim)
        [.curl, .urlSession]
        #else
        [.urlSession]
        #endif
    }

    /// Always hands out `transport`, whatever the configuration: the transport's own base URL, proxy and timeouts
    /// apply, not the engine's environment or timeouts.
    public static func fixed(_ transport: any HTTPTransport, name: String = "fixed") -> HTTPTransportFactory {
        HTTPTransportFactory(name: name) { _ in transport }
    }
}
