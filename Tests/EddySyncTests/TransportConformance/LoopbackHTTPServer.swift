import EddySupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for what the Eddy server cannot do in a test: echo 20 MB bodies, count the TCP
/// connections it accepts (keep-alive), act as a forward proxy. One thread per connection; keep-alive unless the
/// client asks to close; every response carries a `Content-Length`.
final class LoopbackHTTPServer: Sendable {
    /// What a handler answers.
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body = Data()
    }

    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let accepted = Atomic<Int>(0)
    private let open = Mutex<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)

    /// Starts listening; `handler` answers each request (on the connection's thread).
    init(handler: @escaping @Sendable (LoopbackHTTPMessage) -> Reply) throws {
        let (fd, port) = try LoopbackSocket.listen()
        listener = fd
        self.port = port
        let thread = Thread { [self] in acceptLoop(handler: handler) }
        thread.start()
    }

    deinit { stop() }

    /// TCP connections accepted so far.
    var acceptedConnections: Int { accepted.load(ordering: .relaxed) }

    /// Base URL, e.g. `http://127.0.0.1:40123`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and closes every open connection.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        LoopbackSocket.closeNow(listener)
        for fd in open.withLock(visibleToThreadSanitizerAs: self, { $0 }) { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop(handler: @escaping @Sendable (LoopbackHTTPMessage) -> Reply) {
        while !stopped.load(ordering: .relaxed) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { if stopped.load(ordering: .relaxed) { return } else { continue } }
            accepted.add(1, ordering: .relaxed)
            open.withLock(visibleToThreadSanitizerAs: self) { _ = $0.insert(fd) }
            let thread = Thread { [self] in
                serve(fd: fd, handler: handler)
                open.withLock(visibleToThreadSanitizerAs: self) { _ = $0.remove(fd) }
                LoopbackSocket.closeNow(fd)
            }
            thread.start()
        }
    }

    private func serve(fd: Int32, handler: @Sendable (LoopbackHTTPMessage) -> Reply) {
        let reader = LoopbackHTTPReader(fd: fd)
        while let request = reader.next() {
            let reply = handler(request)
            let close = request.header("connection")?.lowercased() == "close" || reply.headers["Connection"] == "close"
            var head = "HTTP/1.1 \(reply.status) \(reply.status == 200 ? "OK" : "Status")\r\n"
            for (name, value) in reply.headers.sorted(by: { $0.key < $1.key }) where name.lowercased() != "content-length" {
                head += "\(name): \(value)\r\n"
            }
            head += "Content-Length: \(reply.body.count)\r\n\r\n"
            guard LoopbackSocket.write(fd, Data(head.utf8)), LoopbackSocket.write(fd, reply.body) else { return }
            if close { return }
        }
    }
}

/// A forward HTTP proxy on 127.0.0.1 that records the request line of everything passing through it. Each request is
/// forwarded on a new upstream connection (`Connection: close`) and answered with the upstream's status, headers and
/// body.
final class RecordingProxy: Sendable {
    private final class Log: Sendable { let lines = Mutex<[String]>([]) }
    private let server: LoopbackHTTPServer
    private let seen = Log()

    /// Starts the proxy.
    init() throws {
        let seen = seen
        server = try LoopbackHTTPServer { request in
            seen.lines.withLock(visibleToThreadSanitizerAs: seen) { $0.append(request.startLine) }
            return Self.forward(request)
        }
    }

    /// The proxy URL to configure, e.g. `http://127.0.0.1:40124`.
    var url: String { server.baseURL }

    /// Request lines received, in order (`GET http://127.0.0.1:8080/v1/tick HTTP/1.1`).
    var requestLines: [String] { seen.lines.withLock(visibleToThreadSanitizerAs: seen) { $0 } }

    static func forward(_ request: LoopbackHTTPMessage) -> LoopbackHTTPServer.Reply {
        let parts = request.startLine.split(separator: " ")
        guard parts.count == 3, let target = URL(string: String(parts[1])), let port = target.port, target.host == "127.0.0.1" else {
            return .init(status: 502, body: Data("proxy test helper: only absolute http://127.0.0.1:PORT targets".utf8))
        }
        guard let upstream = try? LoopbackSocket.connect(port: port) else { return .init(status: 502) }
        defer { LoopbackSocket.closeNow(upstream) }
        var path = target.path.isEmpty ? "/" : target.path
        if let query = target.query { path += "?" + query }
        var head = "\(parts[0]) \(path) HTTP/1.1\r\n"
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if ["connection", "proxy-connection", "content-length", "keep-alive"].contains(lower) { continue }
            head += "\(name): \(value)\r\n"
        }
        head += "Connection: close\r\nContent-Length: \(request.body.count)\r\n\r\n"
        guard LoopbackSocket.write(upstream, Data(head.utf8)), LoopbackSocket.write(upstream, request.body),
              let response = LoopbackHTTPReader(fd: upstream).next(bodyToEnd: true) else {
            return .init(status: 502)
        }
        let status = response.startLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 502
        var headers: [String: String] = [:]
        for (name, value) in response.headers where !["connection", "content-length", "transfer-encoding"].contains(name.lowercased()) {
            headers[name] = value
        }
        return .init(status: status, headers: headers, body: response.body)
    }
}
