#if Tools
import EddyProtocol
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// How long a connection may hold the server without doing its part (`eddy-server serve --header-timeout`,
/// `--body-timeout`, `--idle-timeout`; docs/fleet-server.md "Limits").
package struct ConnectionTimeouts: Sendable, Equatable {
    /// A new connection must deliver a whole request head within this, seconds: a head is under a kilobyte, so even a
    /// slow satellite link sends it in a second or two; connections opened and left silent (issue 30 held 1,001 of them
    /// 65 s) go after this.
    package var headerSeconds: Double = 10
    /// A request's body must arrive whole within this after its head, seconds (a stalled or trickled body ends the
    /// connection): the largest body (1 MiB) needs 280 kbit/s; a real upload (100 reports, about 30 KB) a few kbit/s.
    package var bodySeconds: Double = 30
    /// A kept-alive connection may wait this long for its next request, seconds. Above the 60 s idle timeout of common
    /// load balancers (AWS ALB, nginx `keepalive_timeout` for upstreams), so that the balancer, not the server, closes an
    /// idle connection (the other way round a request can meet a connection the server is just closing: a 502).
    package var idleSeconds: Double = 75

    /// The defaults: 10 s for the head, 30 s for the body, 75 s idle.
    package init() {}

    /// Whether every value is a positive, finite number of seconds.
    package var isValid: Bool { [headerSeconds, bodySeconds, idleSeconds].allSatisfy { $0.isFinite && $0 > 0 } }
}

/// Closes connections that hold the server without sending a request, and answers a request whose head cannot be parsed
/// (too large, malformed) with the API's JSON error body instead of an empty 400.
///
/// Sits after the HTTP decoder of each connection (Hummingbird's `additionalChannelHandlers`), so it sees request parts:
/// - from the connection's start until the first head arrives: `headerSeconds`;
/// - from a head until the request's end: `bodySeconds`, whatever arrives in between (a trickled body ends too);
/// - while a response is being produced: no limit here (the storage's deadlines bound that);
/// - from a response's end until the next head: `idleSeconds`.
/// When a limit passes the connection is closed (logged at debug: a scan of silent connections must not flood the log).
final class ConnectionLimitsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeouts: ConnectionTimeouts
    private let logger: Logger
    /// Heads read whose response has not ended yet.
    private var requestsInProgress = 0
    /// A head was read and its end not yet.
    private var readingRequest = false
    /// The armed limit's timer.
    private var armed: Scheduled<Void>?
    /// Whether the connection has started (its header limit is armed once).
    private var started = false

    /// A handler for one connection.
    init(timeouts: ConnectionTimeouts, logger: Logger) {
        self.timeouts = timeouts
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            readingRequest = true
            requestsInProgress += 1
            arm(context, seconds: timeouts.bodySeconds, what: "the request body within \(timeouts.bodySeconds) s of its head")
        case .body:
            break
        case .end:
            readingRequest = false
            disarm()
            // The response can end before the request's end is read (a pipelining handler ahead of this one may hand over
            // a queued request's head and end in separate reads): the connection is idle from here then.
            if requestsInProgress == 0 { armIdle(context) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            requestsInProgress = max(0, requestsInProgress - 1)
            if requestsInProgress == 0, !readingRequest { armIdle(context) }
        }
        context.write(data, promise: promise)
    }

    /// A head that cannot be parsed: the JSON error answer and the connection closed, when no response is under way
    /// (otherwise Hummingbird's own handling, an empty 400, after the response in progress).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, requestsInProgress == 0 else {
            context.fireErrorCaught(error)
            return
        }
        disarm()
        let apiError = Self.answer(to: parseError)
        let body = (try? JSONEncoder().encode(apiError.body)).map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        let head = HTTPResponse(status: apiError.status, headerFields: [
            .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// The API error a parse error is answered with: 431 for headers over the decoder's limit, 400 for the rest.
    static func answer(to error: HTTPParserError) -> APIError {
        if case .headerOverflow = error {
            return APIError(status: .init(code: 431), body: ErrorBody(
                error: "headerTooLarge", message: "the request's headers are over 80 KiB; send fewer or shorter headers"))
        }
        return APIError.badRequest("malformed HTTP request (\(error)); the connection is closed")
    }

    /// Arms the idle limit: no request in progress, none being read.
    private func armIdle(_ context: ChannelHandlerContext) {
        arm(context, seconds: timeouts.idleSeconds, what: "a next request within \(timeouts.idleSeconds) s (idle)")
    }

    /// Arms the header limit once, when the connection starts.
    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        arm(context, seconds: timeouts.headerSeconds, what: "a request head within \(timeouts.headerSeconds) s of connecting")
    }

    /// Replaces the armed limit with one that closes the connection after `seconds` unless disarmed first.
    private func arm(_ context: ChannelHandlerContext, seconds: Double, what: String) {
        disarm()
        let timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { [self] in
            armed = nil
            logger.debug("closing a connection that did not send \(what)",
                         metadata: ["peer": "\(context.channel.remoteAddress.map { "\($0)" } ?? "-")"])
            context.close(promise: nil)
        }
        armed = timer
    }

    /// Cancels the armed limit, if any.
    private func disarm() {
        armed?.cancel()
        armed = nil
    }
}
#endif
