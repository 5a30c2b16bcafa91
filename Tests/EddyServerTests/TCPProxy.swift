#if Tools
import Foundation

/// A loopback TCP proxy to 127.0.0.1:`upstreamPort`, for tests that must cut a database connection in the middle of an
/// answer the way a dying server does: `cutConnections()` ends both sides of every proxied connection with a FIN, as
/// `pg_ctl stop -m immediate` does, while the proxy keeps accepting new ones. Blocking sockets, one thread a direction.
///
/// A FIN leaves only after the data queued before it, so a client that has stopped reading would not see the end while
/// the proxy still had bytes for it. With `downstreamLimit` the proxy passes at most that many bytes from the database
/// to each client (less than a loopback socket's receive buffer, so all of them reach the client's kernel) and then
/// holds the rest: the FIN of a cut is then the next thing the client's socket gets. Downstream data goes in chunks of
/// at most `downstreamChunkBytes` with a pause after each, so that a client reads it in many small reads.
final class TCPProxy: @unchecked Sendable {
    /// The port the proxy listens on (127.0.0.1).
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    /// Open sockets of proxied connections (both sides), guarded by `lock`.
    private var sockets: Set<Int32> = []
    /// Bytes passed from the database to the client so far, guarded by `lock`.
    private var downstreamBytes = 0
    /// Connections whose client has been sent `downstreamLimit` bytes, guarded by `lock`.
    private var limitedConnections = 0
    /// Whether `cutConnections()` was called, guarded by `lock`.
    private var isCut = false
    private let downstreamLimit: Int?
    private let downstreamChunkBytes: Int

    /// Listens on an ephemeral port of 127.0.0.1 and forwards every connection to `upstreamPort`, passing at most
    /// `downstreamLimit` bytes to each client (nil: no limit), `downstreamChunkBytes` at a time (2 ms apart).
    init(upstreamPort: Int, downstreamLimit: Int? = nil, downstreamChunkBytes: Int = 16_384) throws {
        self.upstreamPort = upstreamPort
        self.downstreamLimit = downstreamLimit
        self.downstreamChunkBytes = max(1, min(16_384, downstreamChunkBytes))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StorageTestError("socket() failed: errno \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            Foundation.close(fd)
            throw StorageTestError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop(fd) }
    }

    /// Bytes the database has sent through the proxy so far.
    var bytesFromUpstream: Int { lock.withLock { downstreamBytes } }

    /// Connections that have been sent their `downstreamLimit` bytes.
    var connectionsAtTheirLimit: Int { lock.withLock { limitedConnections } }

    /// Ends every proxied connection now (FIN both ways); new connections are still accepted (and not cut).
    func cutConnections() {
        lock.withLock {
            isCut = true
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Stops listening and cuts every connection.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        cutConnections()
    }

    deinit { Foundation.close(listener) }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Foundation.close(upstream)
                Foundation.close(client)
                continue
            }
            lock.withLock { sockets.formUnion([client, upstream]) }
            // The pair's sockets are closed by the direction that ends last (never while the other still reads them).
            let pair = DirectionsLeft()
            let finish: @Sendable () -> Void = { [self] in
                guard pair.endOne() else { return }
                lock.withLock { sockets.subtract([client, upstream]) }
                Foundation.close(client)
                Foundation.close(upstream)
            }
            Thread.detachNewThread { [self] in pump(from: client, to: upstream, countingDownstream: false); finish() }
            Thread.detachNewThread { [self] in pump(from: upstream, to: client, countingDownstream: true); finish() }
        }
    }

    /// Copies `from` to `to` until either ends, then passes the end on (FIN). Downstream, stops at `downstreamLimit`
    /// bytes and waits for the cut.
    private func pump(from: Int32, to: Int32, countingDownstream: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var left = countingDownstream ? downstreamLimit ?? Int.max : Int.max
        copying: while true {
            guard left > 0 else {
                lock.withLock { limitedConnections += 1 }
                while !lock.withLock({ isCut }) { usleep(10_000) }
                break
            }
            let chunk = countingDownstream ? downstreamChunkBytes : buffer.count
            let count = recv(from, &buffer, min(chunk, left), 0)
            guard count > 0 else { break }
            left -= count
            if countingDownstream { lock.withLock { downstreamBytes += count } }
            var offset = 0
            while offset < count {
                let sent = buffer.withUnsafeBytes { send(to, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { break copying }
                offset += sent
            }
            if countingDownstream, downstreamChunkBytes < buffer.count { usleep(2_000) }
        }
        shutdown(to, Int32(SHUT_WR))
    }
}

/// The directions of one proxied connection still copying (2, then 1, then 0).
private final class DirectionsLeft: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 2
    /// One direction ended; true for the last.
    func endOne() -> Bool { lock.withLock { count -= 1; return count == 0 } }
}
#endif
