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

    /// Always hands out `transport`, whatever the configuration: the transport's own base URL, proxy and timeouts
    /// apply, not the engine's environment or timeouts.
    public static func fixed(_ transport: any HTTPTransport, name: String = "fixed") -> HTTPTransportFactory {
        HTTPTransportFactory(name: name) { _ in transport }
    }
}
