#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writing of text lines to a file descriptor (standard output by default): one `write`
/// per 64 KiB instead of one per line.
package final class OutputBuffer {
    private let fd: Int32
    private var bytes: [UInt8] = []

    /// Creates a buffer writing to `fd` (1 = standard output).
    package init(fileDescriptor fd: Int32 = 1) {
        self.fd = fd
        bytes.reserveCapacity(1 << 16 + 1024)
    }

    deinit { flush() }

    /// Appends text and a newline.
    package func line(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(0x0A)
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Appends text as is.
    package func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Writes out everything buffered (a closed pipe is ignored: there is nobody left to tell).
    package func flush() {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { writeDescriptor(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// `write(2)` under another name (the class's `write(_:)` method would shadow it).
private func writeDescriptor(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, pointer, count)
}
