import EddyProtocol
import EddySupport
import EddySync
import EddyTesting
import EddyURLSession
import EddyVocabulary
import Foundation
import Synchronization
import Testing

/// One transport of this build under test (the conformance suite's parameter).
struct TransportUnderTest: Sendable, CustomTestStringConvertible {
    let factory: HTTPTransportFactory
    var testDescription: String { factory.name }
    var isURLSession: Bool { factory.name == HTTPTransportFactory.urlSession.name }

    /// Every transport of this build (curl on Linux with the default trait) and URLSessionTransport, which the tests
    /// link on every platform even where the library leaves it out (Linux without the `URLSessionOnLinux` trait).
    static let all = (HTTPTransportFactory.available.contains { $0.name == HTTPTransportFactory.urlSession.name }
        ? HTTPTransportFactory.available : HTTPTransportFactory.available + [.urlSession]).map(TransportUnderTest.init)

    func make(_ baseURL: String, proxy: String? = nil, connect: Double = 2, total: Double = 5,
              caBundlePath: String? = nil) throws(TransportError) -> any HTTPTransport {
        try factory.makeTransport(TransportConfiguration(
            baseURL: baseURL, proxy: proxy, connectTimeoutSeconds: connect, totalTimeoutSeconds: total, caBundlePath: caBundlePath))
    }

    /// A case this transport genuinely cannot pass on this platform.
    enum Limitation { case connectTimeout, proxy }

    /// Why this transport cannot pass `limitation` here; nil when it must pass.
    func knownIssue(_ limitation: Limitation) -> Comment? {
        guard isURLSession else { return nil }
        switch limitation {
        case .connectTimeout:
            return "URLSession has no connect-phase timeout (only request/idle and resource timeouts): an unanswered connect is bounded by the total timeout"
        case .proxy:
            #if canImport(FoundationNetworking)
            return "FoundationNetworking (Linux) ignores connectionProxyDictionary (proxy options are a TODO in swift-corelibs-foundation's EasyHandle), so URLSessionTransport refuses a proxy there"
            #else
            return nil
            #endif
        }
    }

    /// Runs `body`; a failure inside is recorded as a known issue when this transport has `limitation` here.
    func expect(_ limitation: Limitation, _ body: () throws -> Void) rethrows {
        if let reason = knownIssue(limitation) {
            withKnownIssue(reason) { try body() }
        } else {
            try body()
        }
    }
}

/// Wraps a transport and keeps every response (the conformance cases look at raw headers under a `SyncClient`).
final class RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let log = Mutex<[(request: SyncHTTPRequest, response: SyncHTTPResponse)]>([])
    init(_ inner: any HTTPTransport) { self.inner = inner }
    func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        let response = try inner.send(request)
        log.withLock(visibleToThreadSanitizerAs: self) { $0.append((request, response)) }
        return response
    }
    /// The responses to requests for `path`, in order.
    func responses(path: String) -> [SyncHTTPResponse] { log.withLock(visibleToThreadSanitizerAs: self) { $0.filter { $0.request.path == path }.map(\.response) } }
}

/// What a failed send threw (nil when it returned a response).
private func sendError(_ transport: any HTTPTransport, _ request: SyncHTTPRequest) -> TransportError? {
    do { _ = try transport.send(request); return nil } catch { return error }
}

/// A port with nothing listening on it (bound by the kernel, then released).
private func closedPort() throws -> Int {
    let (fd, port) = try LoopbackSocket.listen()
    LoopbackSocket.closeNow(fd)
    return port
}

/// 20 MB of bytes that do not repeat in any short period (a 64-bit LCG).
private func patternedBytes(count: Int, seed: UInt64) -> Data {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        bytes[i] = UInt8(truncatingIfNeeded: state >> 56)
    }
    return Data(bytes)
}

extension Loopback {
/// ONE conformance suite for every `HTTPTransport` of the build, against the real `eddy-server` (LocalEddyServer) and,
/// for what it cannot produce, small loopback servers of the tests' own (echo, connection counting, proxy, TLS).
@Suite struct TransportConformanceTests {
    static let tick = SyncHTTPRequest(method: "GET", path: "/v1/tick")

    @Test(arguments: TransportUnderTest.all)
    func refusedConnectionIsCannotConnect(_ transport: TransportUnderTest) throws {
        let port = try closedPort()
        let error = sendError(try transport.make("http://127.0.0.1:\(port)"), Self.tick)
        guard case .cannotConnect = error else { Issue.record("expected cannotConnect, got \(String(describing: error))"); return }
    }

    @Test(arguments: TransportUnderTest.all)
    func invalidConfigurationIsRefusedUpFront(_ transport: TransportUnderTest) {
        #expect(throws: TransportError.invalidConfiguration("base URL must start with http:// or https:// (got ftp://x)")) {
            try transport.make("ftp://x")
        }
        for (connect, total) in [(Double.nan, 5.0), (2, .infinity), (0, 5), (2, -1), (2, 1e12)] {
            #expect(throws: TransportError.self) { try transport.make("http://127.0.0.1:1", connect: connect, total: total) }
        }
    }

    @Test(arguments: TransportUnderTest.all)
    func aResponseSlowerThanTheTotalTimeoutIsTimedOutAndTheNextRequestWorks(_ transport: TransportUnderTest) throws {
        let server = try LocalEddyServer()
        let client = try transport.make(server.baseURL, connect: 2, total: 1.5)
        #expect(try client.send(Self.tick).status == 200)
        try server.injectFaults([.delay(seconds: 4)], path: "/v1/tick")
        let started = Date()
        let error = sendError(client, Self.tick)
        let elapsed = Date().timeIntervalSince(started)
        guard case .timedOut = error else { Issue.record("expected timedOut, got \(String(describing: error))"); return }
        #expect(elapsed >= 1.4 && elapsed < 3.0, "timed out after \(elapsed) s; the total timeout is 1.5 s")
        #expect(try client.send(Self.tick).status == 200)
    }

    @Test(arguments: TransportUnderTest.all)
    func anUnansweredConnectTimesOut(_ transport: TransportUnderTest) throws {
        // A listener whose accept queue is full (backlog 0, never accepting): the kernel drops further SYNs.
        let (listener, port) = try LoopbackSocket.listen(backlog: 0)
        var held: [Int32] = []
        defer { for fd in held + [listener] { LoopbackSocket.closeNow(fd) } }
        var attempts = 0
        while LoopbackSocket.connectCompletes(port: port, within: 0.3, keepOpen: &held), attempts < 16 { attempts += 1 }
        guard attempts < 16 else { Issue.record("could not fill the accept queue: no unanswered connect to test"); return }

        let client = try transport.make("http://127.0.0.1:\(port)", connect: 1, total: 4)
        let started = Date()
        let error = sendError(client, Self.tick)
        let elapsed = Date().timeIntervalSince(started)
        guard case .timedOut = error else { Issue.record("expected timedOut, got \(String(describing: error))"); return }
        #expect(elapsed < 5.5, "an unanswered connect took \(elapsed) s; the total timeout is 4 s")
        transport.expect(.connectTimeout) {
            #expect(elapsed < 2.0, "an unanswered connect took \(elapsed) s; the connect timeout is 1 s")
        }
    }

    @Test(arguments: TransportUnderTest.all)
    func gzipAnswersArriveDecoded(_ transport: TransportUnderTest) throws {
        let server = try LocalEddyServer()
        let recorder = RecordingTransport(try transport.make(server.baseURL))
        let client = SyncClient(transport: recorder, identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "gzip"),
                                clock: SystemEpochClock())
        let reports = try TurbulentFlight.bulk(count: 60, startTime: Date().timeIntervalSince1970 - 1800)
        #expect(try client.upload(reports).newCount == 60)
        let fetched = try client.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global, historyHours: 6, minLayer: -2, maxLayer: 99))
        #expect(Set(fetched.observations.map(\.report.id)) == Set(reports.map(\.id)))
        let raw = try #require(recorder.responses(path: "/v1/fetch").last)
        #expect(raw.headers["content-encoding"] == "gzip", "the server compresses answers over 1 KiB when the client accepts gzip")
        #expect(raw.body.count > 1024 && raw.body.first == UInt8(ascii: "{"), "the body is handed over decoded")
    }

    @Test(arguments: TransportUnderTest.all)
    func httpsToAPlainHTTPPortIsATLSFailure(_ transport: TransportUnderTest) throws {
        let server = try LocalEddyServer()
        let error = sendError(try transport.make("https://127.0.0.1:\(server.port)", connect: 2, total: 3), Self.tick)
        guard case .tls = error else { Issue.record("expected a TLS failure, got \(String(describing: error))"); return }
    }

    @Test(arguments: TransportUnderTest.all)
    func anUntrustedCertificateIsATLSFailure(_ transport: TransportUnderTest) throws {
        let tls = try SelfSignedTLSServer()
        let error = sendError(try transport.make("https://127.0.0.1:\(tls.port)", connect: 2, total: 5), SyncHTTPRequest(method: "GET", path: "/"))
        guard case .tls = error else { Issue.record("expected a TLS failure, got \(String(describing: error))"); return }
        // The same certificate given as the CA bundle: curl then trusts it; URLSessionTransport refuses the option.
        if transport.isURLSession {
            #expect {
                try transport.make("https://127.0.0.1:\(tls.port)", caBundlePath: tls.certificatePath)
            } throws: { error in
                guard let error = error as? TransportError, case .invalidConfiguration = error else { return false }
                return true
            }
        } else {
            let trusting = try transport.make("https://127.0.0.1:\(tls.port)", caBundlePath: tls.certificatePath)
            #expect(try trusting.send(SyncHTTPRequest(method: "GET", path: "/")).status == 200)
        }
    }

    @Test(arguments: TransportUnderTest.all)
    func requestsGoThroughTheConfiguredProxy(_ transport: TransportUnderTest) throws {
        let server = try LocalEddyServer()
        let proxy = try RecordingProxy()
        try transport.expect(.proxy) {
            let client = try transport.make(server.baseURL, proxy: proxy.url)
            let response = try client.send(Self.tick)
            #expect(response.status == 200)
            #expect(try JSONDecoder().decode(TickResponse.self, from: response.body).serverTick >= 0)
            #expect(proxy.requestLines == ["GET http://127.0.0.1:\(server.port)/v1/tick HTTP/1.1"])
        }
    }

    @Test(arguments: TransportUnderTest.all)
    func a429SurfacesItsRetryAfterHeader(_ transport: TransportUnderTest) throws {
        let server = try LocalEddyServer(extraServeArguments: ["--rate-limit", "60", "--rate-burst", "1"])
        let recorder = RecordingTransport(try transport.make(server.baseURL))
        let client = SyncClient(transport: recorder, identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "limited"),
                                clock: SystemEpochClock())
        let reports = try TurbulentFlight.bulk(count: 2, startTime: Date().timeIntervalSince1970 - 1800)
        #expect(try client.upload([reports[0]]).newCount == 1)   // the session's one token
        #expect {
            try client.upload([reports[1]])
        } throws: { error in
            guard let error = error as? SyncError, case .rateLimited(let seconds) = error else { return false }
            return seconds >= 1
        }
        let limited = try #require(recorder.responses(path: "/v1/reports").last)
        #expect(limited.status == 429)
        let header = try #require(limited.headers["retry-after"], "headers: \(limited.headers)")
        #expect((Int(header) ?? 0) >= 1, "Retry-After: \(header)")
    }

    @Test(arguments: TransportUnderTest.all)
    func twentyMegabytesBothWays(_ transport: TransportUnderTest) throws {
        // The server answers each byte XOR 0xA5, so an answer can only be right if every request byte arrived.
        let echo = try LoopbackHTTPServer { request in
            var body = request.body
            body.withUnsafeMutableBytes { raw in for i in raw.indices { raw[i] ^= 0xA5 } }
            return .init(status: 200, headers: ["X-Received-Bytes": String(request.body.count)], body: body)
        }
        let size = 20 * 1024 * 1024
        let sent = patternedBytes(count: size, seed: 13)
        var expected = sent
        expected.withUnsafeMutableBytes { raw in for i in raw.indices { raw[i] ^= 0xA5 } }
        let client = try transport.make(echo.baseURL, total: 60)
        let response = try client.send(SyncHTTPRequest(method: "POST", path: "/echo", body: sent))
        #expect(response.status == 200)
        #expect(response.headers["x-received-bytes"] == String(size))
        #expect(response.body.count == size)
        #expect(response.body == expected)
    }

    @Test(arguments: TransportUnderTest.all)
    func sequentialRequestsReuseOneConnection(_ transport: TransportUnderTest) throws {
        let server = try LoopbackHTTPServer { request in .init(status: 200, body: Data(request.startLine.utf8)) }
        let client = try transport.make(server.baseURL)
        for i in 0..<10 {
            let response = try client.send(SyncHTTPRequest(method: i.isMultiple(of: 2) ? "GET" : "POST", path: "/r\(i)",
                                                           body: i.isMultiple(of: 2) ? nil : Data("{}".utf8)))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(i.isMultiple(of: 2) ? "GET /r\(i) " : "POST /r\(i) "))
        }
        #expect(server.acceptedConnections == 1, "10 sequential requests opened \(server.acceptedConnections) TCP connections")
    }

    @Test(arguments: TransportUnderTest.all)
    func sendBlocksSafelyFromManyThreadsAndTasks(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackHTTPServer { request in .init(status: 200, body: Data(request.startLine.utf8)) }
        let client = try transport.make(server.baseURL, total: 10)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            do {
                let body = try client.send(SyncHTTPRequest(method: "GET", path: "/thread\(i)")).body
                if !String(decoding: body, as: UTF8.self).hasPrefix("GET /thread\(i) ") { failures.withLock(visibleToThreadSanitizerAs: server) { $0.append("thread \(i): wrong body") } }
            } catch { failures.withLock(visibleToThreadSanitizerAs: server) { $0.append("thread \(i): \(error)") } }
        }
        let answers = await withTaskGroup(of: String.self) { group in
            for i in 0..<8 {
                group.addTask { (try? client.send(SyncHTTPRequest(method: "GET", path: "/task\(i)")).body).map { String(decoding: $0, as: UTF8.self) } ?? "" }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(failures.withLock(visibleToThreadSanitizerAs: server) { $0 } == [])
        #expect(Set(answers.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }) == Set((0..<8).map { "/task\($0)" }))
    }
}
}
