import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small blocking TCP helpers on 127.0.0.1 for the transport conformance suite's own servers.
enum LoopbackSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A listening socket on 127.0.0.1 with a kernel-chosen port.
    static func listen(backlog: Int32 = 64) throws -> (fd: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc_listen(fd, backlog) == 0 else {
            close(fd)
            throw Failure(description: "bind/listen failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func Glibc_listen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.listen(fd, backlog)
        #else
        Darwin.listen(fd, backlog)
        #endif
    }

    /// Connects to 127.0.0.1:`port` (blocking).
    static func connect(port: Int) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to \(port) failed: errno \(errno)")
        }
        return fd
    }

    private static func sockConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, address, length)
        #else
        Darwin.connect(fd, address, length)
        #endif
    }

    /// Starts a non-blocking connect and reports whether it completed within `seconds` (false: the SYN is unanswered).
    static func connectCompletes(port: Int, within seconds: Double, keepOpen: inout [Int32]) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        #endif
        guard fd >= 0 else { return false }
        keepOpen.append(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&descriptor, 1, Int32(seconds * 1000))
        return ready == 1 && descriptor.revents & Int16(POLLOUT) != 0
    }

    /// Writes all of `data`; false when the peer went away.
    static func write(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                let sent = send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = send(fd, base + offset, raw.count - offset, 0)
                #endif
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads up to 64 KiB; empty at end of stream or error.
    static func read(_ fd: Int32) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Data(buffer[0..<count]) : Data()
    }

    /// Closes both directions and the descriptor.
    static func closeNow(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

/// One parsed HTTP/1.1 message head plus body.
struct LoopbackHTTPMessage: Sendable {
    /// Request line or status line.
    var startLine: String
    /// Headers in order, names as sent.
    var headers: [(name: String, value: String)]
    /// Body bytes.
    var body: Data

    /// The first value of a header (case-insensitive name).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Reads HTTP/1.1 messages from a connection, keeping bytes that belong to the next message.
final class LoopbackHTTPReader {
    private let fd: Int32
    private var buffer = Data()

    init(fd: Int32) { self.fd = fd }

    /// The next message, or nil when the peer closed. `bodyToEnd` reads the body until the peer closes (a response
    /// without a length); `Transfer-Encoding: chunked` bodies are de-chunked.
    func next(bodyToEnd: Bool = false) -> LoopbackHTTPMessage? {
        guard let headEnd = readUntil(Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        buffer = Data(buffer[headEnd.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let startLine = lines.removeFirst()
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var message = LoopbackHTTPMessage(startLine: startLine, headers: headers, body: Data())
        if message.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            message.body = readChunked()
        } else if let length = message.header("content-length").flatMap(Int.init), length >= 0 {
            guard fill(to: length) else { return nil }
            message.body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
        } else if bodyToEnd {
            while true {
                let more = LoopbackSocket.read(fd)
                if more.isEmpty { break }
                buffer.append(more)
            }
            message.body = buffer
            buffer = Data()
        }
        return message
    }

    /// Reads until `separator` is in the buffer: its range, or nil when the peer closed first.
    private func readUntil(_ separator: Data) -> Range<Data.Index>? {
        while true {
            if let found = buffer.range(of: separator) { return found }
            let more = LoopbackSocket.read(fd)
            if more.isEmpty { return nil }
            buffer.append(more)
        }
    }

    private func fill(to count: Int) -> Bool {
        while buffer.count < count {
            let more = LoopbackSocket.read(fd)
            if more.isEmpty { return false }
            buffer.append(more)
        }
        return true
    }

    private func readChunked() -> Data {
        var body = Data()
        let crlf = Data("\r\n".utf8)
        while true {
            guard let lineEnd = readUntil(crlf) else { return body }
            let sizeText = String(decoding: buffer[buffer.startIndex..<lineEnd.lowerBound], as: UTF8.self)
            buffer = Data(buffer[lineEnd.upperBound...])
            let size = Int(sizeText.split(separator: ";").first.map(String.init) ?? "", radix: 16) ?? 0
            guard fill(to: size + 2) else { return body }
            body.append(buffer.prefix(size))
            buffer = Data(buffer.dropFirst(size + 2))
            if size == 0 { return body }
        }
    }
}
