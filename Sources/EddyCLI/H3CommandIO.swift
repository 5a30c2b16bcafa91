#if Tools
import ArgumentParser
import EddyCLIParsing
import EddyH3
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bad input item for `eddy h3`: what is wrong and what to do.
struct H3InputError: Error {
    /// Human-readable message.
    let message: String
}

/// Buffered stdout writer for the `eddy h3` tools (one `write` per 64 KiB).
struct H3OutputBuffer {
    /// Pending bytes.
    private var bytes: [UInt8] = []

    /// Creates an empty buffer.
    init() { bytes.reserveCapacity(1 << 16) }

    /// Appends one byte.
    mutating func append(byte: UInt8) {
        bytes.append(byte)
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Appends a cell id as lower-case hex.
    mutating func append(_ cell: H3Index) {
        var v = cell.rawValue
        if v == 0 {
            append(byte: UInt8(ascii: "0"))
            return
        }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &tmp) { buf in
            while v != 0 {
                let d = UInt8(v & 0xF)
                buf[n] = d < 10 ? d + 48 : d + 87
                n += 1
                v >>= 4
            }
        }
        withUnsafeBytes(of: &tmp) { buf in
            for i in stride(from: n - 1, through: 0, by: -1) { bytes.append(buf[i]) }
        }
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Appends a double with 17 significant digits (`%.17g`).
    mutating func append(_ value: Double) {
        var buf = [CChar](repeating: 0, count: 40)
        let n = withVaList([value]) { args in
            buf.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, 40, "%.17g", args) }
        }
        for i in 0..<Int(n) { bytes.append(UInt8(bitPattern: buf[i])) }
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Writes everything pending to stdout.
    mutating func flush() {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { p in
            var offset = 0
            while offset < p.count {
                let written = write(1, p.baseAddress! + offset, p.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Line-oriented driver shared by the `eddy h3` tools.
enum H3LineTool {
    /// Reads all of stdin, calls `body` for each non-blank line (trimmed), writes a newline after each result,
    /// and on the first bad line prints `line N: …` to stderr and exits with status 1.
    static func run(_ body: (Substring, inout H3OutputBuffer) throws -> Void) throws {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        var out = H3OutputBuffer()
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            do {
                try body(Substring(line), &out)
            } catch let error as H3InputError {
                fail(&out, lineNumber, "\(error.message)")
            } catch let error as H3Error {
                fail(&out, lineNumber, "\(error) (input '\(line.prefix(80))')")
            }
            out.append(byte: UInt8(ascii: "\n"))
        }
        out.flush()
    }

    /// Flushes what was produced, reports the bad line and exits 1.
    private static func fail(_ out: inout H3OutputBuffer, _ line: Int, _ message: String) -> Never {
        out.flush()
        FileHandle.standardError.write(Data("eddy h3: line \(line): \(message)\n".utf8))
        exit(1)
    }

    /// Parses `lat,lng` (degrees, finite; `CoordinateText.latLon`).
    static func parseLatLng(_ line: Substring) throws(H3InputError) -> (Double, Double) {
        do { return try CoordinateText.latLon(line) } catch { throw H3InputError(message: error.message) }
    }

    /// Parses a hex cell id and checks it is a valid cell (`CoordinateText.cell`).
    static func parseCell(_ line: Substring) throws(H3InputError) -> H3Index {
        do { return try CoordinateText.cell(line) } catch { throw H3InputError(message: error.message) }
    }
}
#endif
