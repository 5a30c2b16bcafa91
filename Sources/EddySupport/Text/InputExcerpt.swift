/// A short, printable excerpt of input text for error messages: a binary file given as a CSV must not be echoed raw.
package enum InputExcerpt {
    /// The default longest excerpt, in characters of output (escapes count as their four characters).
    package static let defaultLimit = 60

    /// `text` with every byte outside printable ASCII written `\xNN` (a backslash as `\\`), cut to `limit` output
    /// characters with `…` appended when longer. UTF-8 letters are escaped too: the excerpt is for finding the bytes.
    package static func escaped(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        escaped(bytes: Array(text.utf8), limit: limit)
    }

    /// The bytes escaped as in `escaped(_:limit:)`.
    package static func escaped(bytes: some Sequence<UInt8>, limit: Int = defaultLimit) -> String {
        let hex = Array("0123456789abcdef")
        var out = ""
        var length = 0
        for byte in bytes {
            let piece: String
            if byte == 0x5C { piece = "\\\\" }
            else if byte >= 0x20, byte < 0x7F { piece = String(UnicodeScalar(byte)) }
            else { piece = "\\x" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)]) }
            if length + piece.count > max(0, limit) { return out + "…" }
            out += piece
            length += piece.count
        }
        return out
    }
}
