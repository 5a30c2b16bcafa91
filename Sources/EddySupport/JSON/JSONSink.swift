/// Where JSON bytes go: a `[UInt8]`, a `String`, or (in modules that have one) a network buffer.
///
/// The JSON writer has no dependencies: a module with another byte container (the server's NIO `ByteBuffer`) conforms it
/// with two small methods.
package protocol JSONSink {
    /// Appends UTF-8 bytes (always whole characters).
    mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer)
    /// Appends one ASCII byte.
    mutating func appendJSONByte(_ byte: UInt8)
}

extension JSONSink {
    /// Appends ASCII text known at compile time.
    package mutating func appendJSONASCII(_ text: StaticString) {
        text.withUTF8Buffer { appendJSONBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Appends text as UTF-8.
    package mutating func appendJSONText(_ text: String) {
        var text = text
        text.withUTF8 { appendJSONBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a quoted, escaped JSON string literal.
    package mutating func writeJSONString(_ text: String) { JSONString.write(text, into: &self) }

    /// Appends a number under the number policy (`JSONNumber.text`).
    package mutating func writeJSONNumber(_ value: Double, wholeNumbers: JSONWholeNumbers = .bare) {
        appendJSONText(JSONNumber.text(value, wholeNumbers: wholeNumbers))
    }

    /// Appends an integer.
    package mutating func writeJSONInteger<Integer: BinaryInteger>(_ value: Integer) { appendJSONText(String(value)) }
}

extension Array: JSONSink where Element == UInt8 {
    /// Appends UTF-8 bytes.
    package mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
    /// Appends one ASCII byte.
    package mutating func appendJSONByte(_ byte: UInt8) { append(byte) }
}

extension String: JSONSink {
    /// Appends UTF-8 bytes (whole characters, so always valid).
    package mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer) {
        self += String(decoding: bytes, as: UTF8.self)
    }
    /// Appends one ASCII byte.
    package mutating func appendJSONByte(_ byte: UInt8) { unicodeScalars.append(Unicode.Scalar(byte)) }
}
