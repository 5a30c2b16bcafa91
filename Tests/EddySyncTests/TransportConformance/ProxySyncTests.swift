import EddyProtocol
import EddySupport
import EddySync
import EddyTesting
import EddyURLSession
import EddyVocabulary
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP proxy on 127.0.0.1 for the client's sync path: forwards absolute-form requests (`GET http://…`, what a
/// client sends through a proxy to an http:// server) on a fresh upstream connection each, and tunnels `CONNECT
/// host:port` (what it sends for an https:// server) byte for byte. It counts what it forwarded and tunnelled, and
/// only goes to 127.0.0.1.
final class CountingProxy: Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let forwardedLines = Mutex<[String]>([])
    private let tunnelTargets = Mutex<[String]>([])
    private let stopped = Atomic<Bool>(false)

    /// Starts listening.
    init() throws {
        let (fd, port) = try LoopbackSocket.listen()
        listener = fd
        self.port = port
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// The proxy URL to configure.
    var url: String { "http://127.0.0.1:\(port)" }
    /// Request lines forwarded, in order (`POST http://127.0.0.1:8080/v1/reports HTTP/1.1`).
    var forwarded: [String] { forwardedLines.withLock(visibleToThreadSanitizerAs: self) { $0 } }
    /// `CONNECT` targets tunnelled, in order (`127.0.0.1:8443`).
    var tunnels: [String] { tunnelTargets.withLock(visibleToThreadSanitizerAs: self) { $0 } }

    /// Stops accepting (open tunnels end when their peers close).
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        LoopbackSocket.closeNow(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { if stopped.load(ordering: .relaxed) { return } else { continue } }
            Thread { [self] in
                serve(fd)
                LoopbackSocket.closeNow(fd)
            }.start()
        }
    }

    private func serve(_ fd: Int32) {
        let reader = LoopbackHTTPReader(fd: fd)
        while let request = reader.next() {
            let parts = request.startLine.split(separator: " ")
            guard parts.count == 3 else { return }
            if parts[0] == "CONNECT" {
                tunnel(fd, target: String(parts[1]))
                return
            }
            forwardedLines.withLock(visibleToThreadSanitizerAs: self) { $0.append(request.startLine) }
            let reply = RecordingProxy.forward(request)
            var head = "HTTP/1.1 \(reply.status) Proxied\r\n"
            for (name, value) in reply.headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(reply.body.count)\r\n\r\n"
            guard LoopbackSocket.write(fd, Data(head.utf8)), LoopbackSocket.write(fd, reply.body) else { return }
            if request.header("proxy-connection")?.lowercased() == "close" || request.header("connection")?.lowercased() == "close" { return }
        }
    }

    /// Answers `CONNECT` and copies bytes both ways until either side closes.
    private func tunnel(_ client: Int32, target: String) {
        let pieces = target.split(separator: ":")
        guard pieces.count == 2, pieces[0] == "127.0.0.1", let port = Int(pieces[1]),
              let upstream = try? LoopbackSocket.connect(port: port)
        else {
            _ = LoopbackSocket.write(client, Data("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
            return
        }
        defer { LoopbackSocket.closeNow(upstream) }
        tunnelTargets.withLock(visibleToThreadSanitizerAs: self) { $0.append(target) }
        guard LoopbackSocket.write(client, Data("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else { return }
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        while true {
            guard poll(&fds, 2, 10_000) > 0 else { return }   // idle 10 s: give up
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let data = LoopbackSocket.read(entry.fd)
                guard !data.isEmpty, LoopbackSocket.write(index == 0 ? upstream : client, data) else { return }
            }
        }
    }
}

/// The client syncing through a proxy (issue 14 deliverable 8): session, upload and fetch through `CountingProxy`,
/// over `CurlTransport` (and `URLSessionTransport` where it supports a proxy), and a clear error with the proxy down.
@Suite struct ProxySyncTests {
    static var curl: HTTPTransportFactory? { HTTPTransportFactory.available.first { $0.name == "curl" } }

    static func client(_ transport: any HTTPTransport, server: LocalEddyServer) -> SyncClient {
        SyncClient(transport: transport, identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "proxied"),
                   clock: SystemEpochClock())
    }

    static let everything = DeltaFetchRequest(dataType: .turbulence, area: .global, historyHours: 6, minLayer: -2, maxLayer: 99)

    @Test(.enabled(if: curl != nil, "this build has no libcurl transport"))
    func curlSyncsThroughAForwardProxy() throws {
        let server = try LocalEddyServer()
        let proxy = try CountingProxy()
        let transport = try #require(Self.curl).makeTransport(TransportConfiguration(baseURL: server.baseURL, proxy: proxy.url))
        let client = Self.client(transport, server: server)
        let reports = try TurbulentFlight.bulk(count: 5, startTime: Date().timeIntervalSince1970 - 1800, idPrefix: "C")
        let ack = try client.upload(reports)
        #expect(ack.newCount == 5)
        let fetched = try client.fetch(Self.everything)
        #expect(Set(fetched.observations.map(\.report.id)) == Set(reports.map(\.id)))
        let origin = "http://127.0.0.1:\(server.port)"
        #expect(proxy.forwarded == ["POST \(origin)/v1/session HTTP/1.1", "POST \(origin)/v1/reports HTTP/1.1", "POST \(origin)/v1/fetch HTTP/1.1"])
        #expect(proxy.tunnels.isEmpty)
    }

    @Test(.enabled(if: curl != nil, "this build has no libcurl transport"))
    func curlTunnelsHTTPSThroughCONNECT() throws {
        let tls = try SelfSignedTLSServer()
        let proxy = try CountingProxy()
        let transport = try #require(Self.curl).makeTransport(TransportConfiguration(
            baseURL: "https://127.0.0.1:\(tls.port)", proxy: proxy.url, caBundlePath: tls.certificatePath))
        let response = try transport.send(SyncHTTPRequest(method: "GET", path: "/"))
        #expect(response.status == 200)
        #expect(proxy.tunnels == ["127.0.0.1:\(tls.port)"])
        #expect(proxy.forwarded.isEmpty)   // the request itself went through the tunnel, encrypted
    }

    @Test(.enabled(if: curl != nil, "this build has no libcurl transport"))
    func aProxyThatIsDownIsACannotConnectErrorNamingIt() throws {
        let server = try LocalEddyServer()
        let proxy = try CountingProxy()
        let deadURL = proxy.url
        proxy.stop()   // nothing listens on its port any more
        let transport = try #require(Self.curl).makeTransport(TransportConfiguration(
            baseURL: server.baseURL, proxy: deadURL, connectTimeoutSeconds: 2, totalTimeoutSeconds: 5))
        #expect {
            try Self.client(transport, server: server).upload(try TurbulentFlight.bulk(count: 1, startTime: Date().timeIntervalSince1970 - 600))
        } throws: { error in
            guard let error = error as? SyncError, case .unreachable(let transportError) = error,
                  case .cannotConnect(let message) = transportError
            else { Issue.record("expected unreachable(cannotConnect), got \(error)"); return false }
            #expect(message.contains("proxy \(deadURL)"), "\(message)")
            return error.isTransient
        }
    }

    @Test func urlSessionSyncsThroughTheProxyOrRefusesItClearly() throws {
        let server = try LocalEddyServer()
        let proxy = try CountingProxy()
        let configuration = TransportConfiguration(baseURL: server.baseURL, proxy: proxy.url)
        #if canImport(FoundationNetworking)
        // FoundationNetworking ignores proxy settings: the transport refuses rather than silently going direct.
        #expect {
            try URLSessionTransport(configuration: configuration)
        } throws: { error in
            guard let error = error as? TransportError, case .invalidConfiguration(let message) = error else { return false }
            return message.lowercased().contains("proxy")
        }
        #else
        let client = Self.client(try URLSessionTransport(configuration: configuration), server: server)
        let reports = try TurbulentFlight.bulk(count: 2, startTime: Date().timeIntervalSince1970 - 1800, idPrefix: "D")
        #expect(try client.upload(reports).newCount == 2)
        #expect(proxy.forwarded.count == 2)
        #endif
    }
}
