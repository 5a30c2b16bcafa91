#if Tools
import NIOCore

/// Lets data through to PostgresNIO only in a read it asked for (docs/fleet-server.md "The read gate").
///
/// PostgresNIO 1.33.2 stops reading while a row stream waits for its consumer (it keeps back the channel's `read`). If
/// the database closes the connection in that window, NIO's end-of-file handling (`BaseSocketChannel.readEOF`) drains
/// the socket and fires `channelRead`s and a `channelReadComplete` that no `read` asked for, and PostgresNIO's
/// `RowStreamStateMachine.channelReadComplete()` traps ("How can we receive a body part, after a channelReadComplete,
/// but no read has been forwarded yet") — the process dies. async-http-client had the same bug in its copy of that state
/// machine (swift-server/async-http-client#449, #450).
///
/// The gate sits next to the socket, below PostgresNIO's handler and the TLS handler PostgresNIO adds for `sslmode`. It
/// keeps NIO's rule that a `read` asks for one read cycle — the `channelRead`s up to the next `channelReadComplete` —
/// and outside such a cycle it holds the data and swallows the `channelReadComplete`. NIO reads the socket only when
/// a read is pending, except when it drains it at end-of-file, so in normal operation the gate only passes events on.
/// Held data is delivered as a cycle of its own when the next `read` comes, or dropped when the channel goes inactive
/// (end-of-file closes it at once): PostgresNIO then fails the query with "connection closed", which the storage
/// answers with 503.
final class PostgresReadGate: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A `read` has been passed towards the socket and its cycle has not begun.
    private(set) var readRequested = false
    /// Inside a read cycle that was asked for: between its first `channelRead` and its `channelReadComplete`.
    private(set) var inReadCycle = false
    /// Data that arrived outside a read cycle, oldest first.
    private(set) var heldData: [ByteBuffer] = []
    /// `channelRead`s held since the channel became active (for tests and the debug log).
    private(set) var heldReadCount = 0
    /// `channelReadComplete`s swallowed because no read cycle was open.
    private(set) var swallowedReadCompleteCount = 0

    /// A gate with no read asked for yet: add it before the channel becomes active (the bootstrap's initializer), so
    /// that it sees the first `read`.
    init() {}

    func read(context: ChannelHandlerContext) {
        if !heldData.isEmpty {
            deliverHeldData(context: context)
            return
        }
        readRequested = true
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if inReadCycle || readRequested {
            readRequested = false
            inReadCycle = true
            context.fireChannelRead(data)
        } else {
            heldData.append(unwrapInboundIn(data))
            heldReadCount += 1
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // A read asked for and answered by end-of-file alone (no data) is a cycle too: NIO always completes it.
        if inReadCycle || readRequested {
            inReadCycle = false
            context.fireChannelReadComplete()
        } else {
            swallowedReadCompleteCount += 1
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        heldData.removeAll()
        inReadCycle = false
        readRequested = false
        context.fireChannelInactive()
    }

    /// Answers a `read` with the data held back: one read cycle, then the `read` NIO's auto-read would issue after a
    /// cycle of its own (through the whole pipeline, so that PostgresNIO can keep it back).
    private func deliverHeldData(context: ChannelHandlerContext) {
        let held = heldData
        heldData.removeAll()
        inReadCycle = true
        for buffer in held { context.fireChannelRead(wrapInboundOut(buffer)) }
        inReadCycle = false
        context.fireChannelReadComplete()
        let autoRead = (try? context.channel.syncOptions?.getOption(ChannelOptions.autoRead)) ?? true
        if autoRead, context.channel.isActive, !readRequested, heldData.isEmpty {
            context.pipeline.syncOperations.read()
        }
    }
}

@available(*, unavailable)
extension PostgresReadGate: Sendable {}
#endif
