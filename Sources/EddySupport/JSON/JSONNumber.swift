/// How a whole number (a finite value with no fraction, magnitude below 10^15) is spelled.
package enum JSONWholeNumbers: Sendable {
    /// `3`, `0`, `-12`: what `JSONEncoder` writes; GeoJSON, the wire protocol and the server use it.
    case bare
    /// `3.0`, `0.0`, `-12.0`: Swift's `description`; the replay JSON Lines keep it (their bytes are fixed).
    case withFraction
}

/// Eddy's one JSON number policy (docs/json.md), shared by every hand-written JSON writer.
///
/// - Only finite numbers are numbers. A NaN or an infinity is written `null`; a format that must never carry
///   `null` (the wire protocol) checks `isFinite` itself before writing and decides what to do.
/// - Shortest round-trip: the fewest digits that read back (`Double(text)`) to the same double, Swift's `description`
///   (exponent form such as `1e-05` or `1e+16` outside roughly 1e-4 ..< 2^54, valid JSON).
/// - Whole numbers below 10^15 in magnitude are spelled as `JSONWholeNumbers` says (`3` or `3.0`).
/// - Zero has no sign: `-0.0` is written like `0.0` (`0` or `0.0`); it reads back equal (`-0.0 == 0.0`).
/// - Fixed decimals (`fixed`): `value` rounded half away from zero to `decimals` places (`(value * 10^decimals)
///   .rounded()`), trailing zeros dropped, never an exponent; a rounded zero has no sign.
package enum JSONNumber {
    /// The text of `value` under the number policy.
    package static func text(_ value: Double, wholeNumbers: JSONWholeNumbers = .bare) -> String {
        guard value.isFinite else { return "null" }
        if value == 0 { return wholeNumbers == .bare ? "0" : "0.0" }
        if wholeNumbers == .bare, value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// The text of `value` rounded to `decimals` places (0...15), trailing zeros dropped.
    ///
    /// Values whose scaled magnitude reaches 10^15 have no meaningful decimals left and are written by `text`.
    package static func fixed(_ value: Double, decimals: Int, wholeNumbers: JSONWholeNumbers = .bare) -> String {
        precondition((0...15).contains(decimals), "decimals must be 0...15")
        guard value.isFinite else { return "null" }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 1e15 else { return text(value, wholeNumbers: wholeNumbers) }
        let units = Int64(scaled)
        var result = units > 0 && value < 0 ? "-" : ""
        result += String(units / scale)
        var fraction = units % scale
        var digits = decimals
        while digits > 0, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        if digits > 0 {
            let text = String(fraction)
            result += "." + String(repeating: "0", count: digits - text.utf8.count) + text
        } else if wholeNumbers == .withFraction {
            result += ".0"
        }
        return result
    }
}

/// Eddy's one JSON string escaper (RFC 8259 §7).
///
/// `"` and `\` are escaped with a backslash; control characters below U+0020 as `\n`, `\r`, `\t` or `\u00XX` (lower-case
/// hex); everything else, non-ASCII included, passes through as its UTF-8 bytes.
package enum JSONString {
    /// Appends `text` as a quoted JSON string literal.
    package static func write<Sink: JSONSink>(_ text: String, into sink: inout Sink) {
        var text = text
        text.withUTF8 { bytes in
            sink.appendJSONByte(0x22)
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if start < index { sink.appendJSONBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index])) }
                start = index + 1
                switch byte {
                case 0x22: sink.appendJSONASCII("\\\"")
                case 0x5C: sink.appendJSONASCII("\\\\")
                case 0x0A: sink.appendJSONASCII("\\n")
                case 0x0D: sink.appendJSONASCII("\\r")
                case 0x09: sink.appendJSONASCII("\\t")
                default:
                    sink.appendJSONASCII("\\u00")
                    sink.appendJSONByte(hexDigits[Int(byte >> 4)])
                    sink.appendJSONByte(hexDigits[Int(byte & 0xF)])
                }
            }
            if start < bytes.count { sink.appendJSONBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...])) }
            sink.appendJSONByte(0x22)
        }
    }

    /// `text` as a quoted JSON string literal.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        write(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
