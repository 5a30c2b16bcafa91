#if Tools
import EddyProtocol
import EddyTesting
import Foundation
import Testing

@testable import EddyServerKit

/// Header, body and idle limits on real connections (issue 30: 1,001 silent connections stayed 65 s, a stalled body
/// 75 s), and the JSON error body for a head the decoder refuses. Limits of 1 s so the test waits seconds; the bounds
/// checked leave room for a loaded machine (each is "closed at all, and not long after its limit", not a speed target).
@Suite(.serialized) struct ConnectionLimitsTests {
    /// 1 s for the head, 1.5 s for the body, 2 s idle.
    static let timeouts: ConnectionTimeouts = {
        var timeouts = ConnectionTimeouts()
        (timeouts.headerSeconds, timeouts.bodySeconds, timeouts.idleSeconds) = (1, 1.5, 2)
        return timeouts
    }()
    /// How late after its limit a close may come on a loaded machine.
    static let slackSeconds = 6.0

    /// Runs `body` with the port of a live `eddy-server` process (SQLite) started with the short limits.
    ///
    /// A process of its own, not a server inside the test process: Hummingbird accepts connections from a task on the
    /// cooperative pool, and while the other suites' synchronous work fills that pool (2 threads on 2 cores) the test's
    /// connections wait unaccepted in the kernel's queue, so no limit of ours could close them (every check here failed
    /// that way in a parallel run, and passed alone).
    func withLiveServer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let server = try LocalEddyServer(extraServeArguments: [
            "--header-timeout", "\(Self.timeouts.headerSeconds)", "--body-timeout", "\(Self.timeouts.bodySeconds)",
            "--idle-timeout", "\(Self.timeouts.idleSeconds)",
        ])
        try await body(server.port)
        server.stop()
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheHeaderTimeout() async throws {
        try await withLiveServer { port in
            let connections = try (0..<20).map { _ in try RawConnection(port: port) }
            for connection in connections {
                let outcome = await connection.readUntilClosed(limitSeconds: 30)
                #expect(outcome.closed && outcome.received.isEmpty, "\(outcome)")
                #expect(outcome.seconds < Self.timeouts.headerSeconds + Self.slackSeconds, "\(outcome.seconds) s")
            }
        }
    }

    @Test func aHalfSentHeadIsClosedAfterTheHeaderTimeout() async throws {
        try await withLiveServer { port in
            let connection = try RawConnection(port: port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            let outcome = await connection.readUntilClosed(limitSeconds: 30)
            #expect(outcome.closed && outcome.received.isEmpty, "\(outcome)")
            #expect(outcome.seconds < Self.timeouts.headerSeconds + Self.slackSeconds, "\(outcome.seconds) s")
        }
    }

    @Test func aStalledBodyIsClosedAfterTheBodyTimeout() async throws {
        try await withLiveServer { port in
            let connection = try RawConnection(port: port)
            connection.send("POST /v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"apiKey\"")
            let outcome = await connection.readUntilClosed(limitSeconds: 30)
            #expect(outcome.closed, "\(outcome)")
            #expect(outcome.seconds < Self.timeouts.bodySeconds + Self.slackSeconds, "\(outcome.seconds) s")
        }
    }

    @Test func aTrickledBodyIsClosedAfterTheBodyTimeoutToo() async throws {
        try await withLiveServer { port in
            let connection = try RawConnection(port: port)
            connection.send("POST /v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
            let start = Date()
            // One byte every 0.2 s keeps any idle timer fed; the body limit counts from the head, whatever arrives.
            let trickle = Task.detached {
                while Date().timeIntervalSince(start) < 20, connection.send(" ") { try? await Task.sleep(for: .milliseconds(200)) }
            }
            let outcome = await connection.readUntilClosed(limitSeconds: 30)
            trickle.cancel()
            #expect(outcome.closed, "\(outcome)")
            #expect(outcome.seconds < Self.timeouts.bodySeconds + Self.slackSeconds, "\(outcome.seconds) s")
        }
    }

    @Test func aKeptAliveConnectionIsAnsweredThenClosedAfterTheIdleTimeout() async throws {
        try await withLiveServer { port in
            let connection = try RawConnection(port: port)
            // Well within the limits: answered as usual, twice on the same connection.
            // On a thread of its own, timed from the second request: the pause must not stretch past the idle limit while
            // this test run's cooperative threads are busy.
            let outcome = await connection.readUntilClosed(limitSeconds: 30) {
                guard connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") else { return }
                usleep(500_000)
                connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            }
            #expect(outcome.received.components(separatedBy: "HTTP/1.1 200").count == 3, "\(outcome.received)")
            #expect(outcome.closed, "\(outcome)")
            #expect(outcome.seconds >= Self.timeouts.idleSeconds - 0.5, "closed before the idle limit: \(outcome.seconds) s")
            #expect(outcome.seconds < 0.5 + Self.timeouts.idleSeconds + Self.slackSeconds, "\(outcome.seconds) s")
        }
    }

    @Test func anOversizedHeadIs431WithTheErrorBody() async throws {
        try await withLiveServer { port in
            let connection = try RawConnection(port: port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n")
            let outcome = await connection.readUntilClosed(limitSeconds: 30)
            #expect(outcome.received.hasPrefix("HTTP/1.1 431"), "\(outcome.received.prefix(200))")
            let body = try #require(outcome.received.components(separatedBy: "\r\n\r\n").last)
            let error = try JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8))
            #expect(error.error == "headerTooLarge" && error.message.contains("80 KiB"))
            #expect(outcome.closed)
        }
    }

    @Test func aMalformedHeadIs400WithTheErrorBody() async throws {
        try await withLiveServer { port in
            let connection = try RawConnection(port: port)
            connection.send("GET /healthz HTTP/1.1\r\nHost 127.0.0.1 no colon\r\n\r\n")
            let outcome = await connection.readUntilClosed(limitSeconds: 30)
            #expect(outcome.received.hasPrefix("HTTP/1.1 400"), "\(outcome.received.prefix(200))")
            let body = try #require(outcome.received.components(separatedBy: "\r\n\r\n").last)
            let error = try JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8))
            #expect(error.error == "badRequest" && error.message.hasPrefix("malformed HTTP request"))
        }
    }
}
#endif
