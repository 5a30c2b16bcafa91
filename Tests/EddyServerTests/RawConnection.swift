#if Tools
import Foundation

/// One blocking TCP connection to 127.0.0.1, for tests that must do what no HTTP client does: connect and stay silent,
/// send half a body, send an oversized head. Every blocking call runs on a thread of its own (not one of the few that
/// run every test's tasks).
final class RawConnection: @unchecked Sendable {
    /// The socket (owned; closed by `close()` or at deinit).
    private let fd: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StorageTestError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Foundation.close(fd)
            throw StorageTestError("connect to 127.0.0.1:\(port) failed: errno \(errno)")
        }
    }

    deinit { Foundation.close(fd) }

    /// Sends `text` whole (false when the server has closed the connection).
    @discardableResult
    func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// Sends `data` whole (false when the server has closed the connection).
    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Foundation.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads until the server closes the connection or `limitSeconds` pass: what it sent, whether it closed, and after
    /// how many seconds (measured from the call).
    /// `first` runs on the same thread just before (sends that must keep their timing); the seconds count from its end.
    func readUntilClosed(
        limitSeconds: Double, after first: @escaping @Sendable () -> Void = {}
    ) async -> (received: String, closed: Bool, seconds: Double) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                first()
                continuation.resume(returning: self.blockingReadUntilClosed(limitSeconds: limitSeconds))
            }
        }
    }

    private func blockingReadUntilClosed(limitSeconds: Double) -> (received: String, closed: Bool, seconds: Double) {
        let start = Date()
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date().timeIntervalSince(start) < limitSeconds {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            guard ready > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 {
                return (String(decoding: received, as: UTF8.self), true, Date().timeIntervalSince(start))
            }
            received.append(contentsOf: buffer[0..<count])
        }
        return (String(decoding: received, as: UTF8.self), false, Date().timeIntervalSince(start))
    }
}
#endif
