@_exported import EddyTransport
#if canImport(Darwin) || URLSessionOnLinux
@_exported import EddyURLSession
#endif

// Which transports this build has (Package.swift's traits; docs/sync.md, "Transports"):
// - `CurlTransport` on Linux with the `LibcurlTransport` trait (default on);
// - `URLSessionTransport` on Apple platforms always, and on Linux with the `URLSessionOnLinux` trait (default off, so
//   that a curl build does not load FoundationNetworking: 0.6 MB of resident memory in every Eddy process).
extension HTTPTransportFactory {
    #if canImport(CCurlShim)
    /// `CurlTransport` (libcurl; only in Linux builds with the `LibcurlTransport` trait, the default).
    public static let curl = HTTPTransportFactory(name: "curl") { (configuration) throws(TransportError) in
        try CurlTransport(configuration: configuration)
    }
    #endif

    /// The platform's transport: `curl` on Linux when libcurl is compiled in, `urlSession` otherwise (Apple platforms,
    /// Linux built with `--disable-default-traits --traits URLSessionOnLinux`); a build with neither has no transport
    /// and every start fails with `.invalidConfiguration` saying so (inject one with ``fixed(_:name:)``).
    public static var platformDefault: HTTPTransportFactory {
        #if canImport(CCurlShim)
        .curl
        #elseif canImport(Darwin) || URLSessionOnLinux
        .urlSession
        #else
        .unavailable
        #endif
    }

    /// Every transport compiled into this build, the platform default first (empty when none is).
    public static var available: [HTTPTransportFactory] {
        var factories: [HTTPTransportFactory] = []
        #if canImport(CCurlShim)
        factories.append(.curl)
        #endif
        #if canImport(Darwin) || URLSessionOnLinux
        factories.append(.urlSession)
        #endif
        return factories
    }

    /// The placeholder default of a build without any transport: every transport it makes is refused.
    static let unavailable = HTTPTransportFactory(name: "none") { (_) throws(TransportError) in
        throw .invalidConfiguration(
            "this build has no HTTP transport: build with the LibcurlTransport or URLSessionOnLinux trait, or set EddyConfiguration.transport to .fixed(yourTransport)")
    }
}
