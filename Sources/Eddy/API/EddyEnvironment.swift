import Dispatch
import EddyH3
import EddyStore
import EddySync
import Foundation

/// Where the engine's sync server is (SkyPath's `env`). Eddy is open: the server is an `eddy-server` you run.
public struct EddyEnvironment: Sendable, Equatable, Codable {
    /// A name for logs and the persisted session (`production`, `staging`, `local`…).
    public var name: String
    /// Base URL of the server (`https://…` or `http://127.0.0.1:port`); nil for an offline engine (no sync).
    public var baseURL: String?
    /// Optional HTTP(S) proxy URL (for hosts whose network only allows a proxy).
    public var proxy: String?

    /// Creates an environment.
    public init(name: String, baseURL: String?, proxy: String? = nil) {
        self.name = name; self.baseURL = baseURL; self.proxy = proxy
    }

    /// A server at `baseURL`.
    public static func server(_ baseURL: String, name: String = "custom", proxy: String? = nil) -> EddyEnvironment {
        EddyEnvironment(name: name, baseURL: baseURL, proxy: proxy)
    }

    /// An `eddy-server` on this machine's loopback interface.
    public static func local(port: Int) -> EddyEnvironment {
        EddyEnvironment(name: "local", baseURL: "http://127.0.0.1:\(port)")
    }

    /// No server: detection, store, flight phase and alerts over cached data; own reports wait in the outbox
    /// until the engine is started with a server.
    public static let offline = EddyEnvironment(name: "offline", baseURL: nil)

    /// Checks the URL; throws `.environmentInvalid`.
    func validate() throws(EddyError) {
        guard let baseURL else { return }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil
        else { throw .environmentInvalid("base URL \"\(baseURL)\" is not an http(s) URL with a host: give e.g. https://eddy.example.com") }
    }
}
