#if Tools
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import PostgresNIO
import Testing

@testable import EddyServerKit

/// The read gate (docs/fleet-server.md "The read gate"): PostgresNIO 1.33.2 traps when the database drops a connection
/// while a row stream waits for its consumer. First the gate's rules on an embedded channel, then the crash itself on a
/// real PostgreSQL behind a proxy that cuts the connection in the middle of a long answer.
@Suite struct PostgresReadGateTests {
    /// What reaches the handler after the gate (PostgresNIO's place), in order.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var events: [String] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            events.append("read " + (buffer.readString(length: buffer.readableBytes) ?? "?"))
        }
        func channelReadComplete(context: ChannelHandlerContext) { events.append("complete") }
        func channelInactive(context: ChannelHandlerContext) { events.append("inactive") }
    }

    /// An active embedded channel with the gate, then the recorder (which asks for nothing: every read is the test's).
    static func channel() throws -> (EmbeddedChannel, PostgresReadGate, Recorder) {
        let gate = PostgresReadGate()
        let recorder = Recorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(gate)
        try channel.pipeline.syncOperations.addHandler(recorder)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 5432)).wait()
        return (channel, gate, recorder)
    }

    static func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func readsThatWereAskedForPassUnchanged() throws {
        let (channel, gate, recorder) = try Self.channel()
        for round in 1...3 {
            channel.read()
            channel.pipeline.fireChannelRead(Self.bytes("a\(round)"))
            channel.pipeline.fireChannelRead(Self.bytes("b\(round)"))
            channel.pipeline.fireChannelReadComplete()
        }
        #expect(recorder.events == ["read a1", "read b1", "complete", "read a2", "read b2", "complete", "read a3", "read b3", "complete"])
        #expect(gate.heldReadCount == 0 && gate.swallowedReadCompleteCount == 0)
        // A read asked for during a cycle (before its completion) lets the next cycle through too, as in NIO.
        channel.read()
        channel.pipeline.fireChannelRead(Self.bytes("c"))
        channel.read()
        channel.pipeline.fireChannelReadComplete()
        channel.pipeline.fireChannelRead(Self.bytes("d"))
        channel.pipeline.fireChannelReadComplete()
        #expect(Array(recorder.events.suffix(4)) == ["read c", "complete", "read d", "complete"])
        _ = try channel.finish()
    }

    /// NIO's end-of-file drain: data and a completion no read asked for, then the channel closes. PostgresNIO must see
    /// neither, only the inactivity.
    @Test func anEndOfFileDrainWithoutAReadIsHeldAndDroppedAtInactivity() throws {
        let (channel, gate, recorder) = try Self.channel()
        channel.read()
        channel.pipeline.fireChannelRead(Self.bytes("rows 1"))
        channel.pipeline.fireChannelReadComplete()
        // PostgresNIO now keeps the read back (its consumer has not asked for more); the server closes the connection.
        channel.pipeline.fireChannelRead(Self.bytes("rows 2"))
        channel.pipeline.fireChannelRead(Self.bytes("rows 3"))
        channel.pipeline.fireChannelReadComplete()
        channel.pipeline.fireChannelReadComplete()   // NIO completes the end-of-file read too, even without data
        #expect(recorder.events == ["read rows 1", "complete"])
        #expect(gate.heldReadCount == 2 && gate.swallowedReadCompleteCount == 2)
        channel.pipeline.fireChannelInactive()
        #expect(recorder.events == ["read rows 1", "complete", "inactive"])
        #expect(gate.heldData.isEmpty)
    }

    /// Data held back while the channel stays open is not lost: the next read gets it, as one cycle, in order.
    @Test func heldDataGoesToTheNextReadInOrder() throws {
        let (channel, gate, recorder) = try Self.channel()
        channel.pipeline.fireChannelRead(Self.bytes("early 1"))
        channel.pipeline.fireChannelRead(Self.bytes("early 2"))
        channel.pipeline.fireChannelReadComplete()
        #expect(recorder.events.isEmpty)
        channel.read()
        #expect(recorder.events == ["read early 1", "read early 2", "complete"])
        // The read was answered from the held data; then the gate sent down the read NIO's auto-read sends after a
        // cycle (an embedded channel reports auto-read on), so the next data from the socket passes.
        #expect(gate.heldData.isEmpty && gate.readRequested)
        channel.pipeline.fireChannelRead(Self.bytes("late"))
        channel.pipeline.fireChannelReadComplete()
        #expect(Array(recorder.events.suffix(2)) == ["read late", "complete"])
        _ = try channel.finish()
    }

    static let quiet = Logger(label: "read-gate-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The shared test server's location, or the test cancelled as skipped without one.
    static func server() throws -> PostgresLocation {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["EDDY_TEST_POSTGRES_URL"], !url.isEmpty else {
            if environment["CI"] == "true" { throw StorageTestError("EDDY_TEST_POSTGRES_URL is unset under CI=true") }
            try Test.cancel("EDDY_TEST_POSTGRES_URL is unset: PostgreSQL case skipped (scripts/pg_cluster.sh start)")
        }
        guard case .postgres(let server) = try DatabaseLocation(parsing: url) else { throw StorageTestError("not postgres: \(url)") }
        return server
    }

    /// The crash of issue 30 (`pg_ctl stop -m immediate`), made deterministic: a pool connection through a proxy runs a
    /// query of about 20 MB; the proxy passes the answer in 1-KB pieces and stops after 48 KB (all of which fit in the
    /// client's socket buffer); the consumer takes one row and stops, so PostgresNIO stops reading after a batch or two;
    /// the proxy ends both sides (FIN), and only after the connection has seen the end does the consumer go on. Without
    /// the gate NIO's end-of-file drain reaches `RowStreamStateMachine.channelReadComplete()` and the process dies of a
    /// precondition failure (SIGILL) right there; with it the query fails as a closed connection (`expectedCode`), the
    /// pool drops that connection and the next call gets a new one.
    static func cutInTheMiddleOfARowStream(
        _ location: PostgresLocation, tls: PostgresConnection.Configuration.TLS, expectedCode: PSQLError.Code
    ) async throws {
        let proxy = try TCPProxy(upstreamPort: location.port, downstreamLimit: 48 * 1024, downstreamChunkBytes: 1024)
        defer { proxy.stop() }
        var proxied = location
        proxied.port = proxy.port
        let settings = PostgresConnectionPool.Settings(location: proxied, tls: tls, connectSeconds: 10, statementSeconds: 60)
        let pool = PostgresConnectionPool(settings: settings, maximumConnections: 2, logger: quiet)
        let totalRows = 100_000
        let outcome: (rows: Int, error: (any Error)?, closedBeforeResuming: Bool) = try await pool.withConnection { connection in
            let rows = try await connection.query(
                "SELECT g, repeat('x', 200) FROM generate_series(1, \(totalRows)) AS g", logger: quiet)
            var iterator = rows.decode((Int, String).self).makeAsyncIterator()
            guard try await iterator.next() != nil else { return (0, nil, false) }
            var count = 1
            // The consumer pauses; the proxy passes its 48 KB, then the connection is cut.
            let limitBy = ContinuousClock.now + .seconds(20)
            while proxy.connectionsAtTheirLimit == 0, ContinuousClock.now < limitBy { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: .milliseconds(200))
            proxy.cutConnections()
            let closedBy = ContinuousClock.now + .seconds(10)
            while !connection.isClosed, ContinuousClock.now < closedBy { try await Task.sleep(for: .milliseconds(20)) }
            let closed = connection.isClosed
            do {
                while try await iterator.next() != nil { count += 1 }
                return (count, nil, closed)
            } catch {
                return (count, error, closed)
            }
        }
        #expect(outcome.closedBeforeResuming, "the connection did not see the cut within 10 s")
        #expect(outcome.rows < totalRows, "all \(outcome.rows) rows arrived: the cut came too late to test anything")
        let error = try #require(outcome.error, "the cut query ended without an error after \(outcome.rows) rows")
        #expect((error as? PSQLError)?.code == expectedCode, "\(String(reflecting: error))")
        // The broken connection was dropped; a new one (through the same proxy) answers.
        let answer = try await pool.withConnection { connection in
            var value = 0
            for try await one in try await connection.query("SELECT 1", logger: quiet).decode(Int.self) { value = one }
            return value
        }
        #expect(answer == 1)
        #expect(pool.openConnectionCount == 1)
        await pool.shutdown()
        #expect(pool.openConnectionCount == 0)
    }

    @Test func aConnectionCutInTheMiddleOfARowStreamFailsTheQueryInsteadOfCrashing() async throws {
        try await Self.cutInTheMiddleOfARowStream(try Self.server(), tls: .disable, expectedCode: .serverClosedConnection)
    }

    /// The same over TLS: the gate sits below the TLS handler PostgresNIO adds, so what it holds back is ciphertext.
    @Test func aTLSConnectionCutInTheMiddleOfARowStreamFailsTheQueryInsteadOfCrashing() async throws {
        let cluster = try await PostgresTLSTests.TLSCluster.shared()
        guard case .postgres(var location) = try DatabaseLocation(parsing: cluster.url(query: "sslmode=require")) else {
            throw StorageTestError("not postgres")
        }
        location.password = PostgresTLSTests.password
        // NIOSSL reports the missing close_notify first: PostgresNIO fails the query with that (a connection error).
        try await Self.cutInTheMiddleOfARowStream(
            location, tls: try PostgresConnectionSettings.connectionTLS(location), expectedCode: .connectionError)
    }
}
#endif
