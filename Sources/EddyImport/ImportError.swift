import EddySensorLog

/// A problem with an export being imported: names the file, the line (when there is one), what is wrong and what to do.
///
/// `description` reads like `Accelerometer.csv:17: cell "abc" in column x is not a number. Fix or delete the line`.
package struct ImportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of problem it is (tests and callers match on it).
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The source path does not exist.
        case missingSource
        /// No importer recognises the source (the message lists the known formats).
        case unknownFormat
        /// A file is empty or has no header row.
        case emptyFile
        /// A file holds binary data, not text.
        case binaryFile
        /// The header splits into one column with the delimiters a format allows (wrong delimiter).
        case wrongDelimiter
        /// A column the format needs is missing from the header.
        case missingColumns
        /// Columns of one quantity disagree on their unit (m/s² next to g), or values look like another unit.
        case mixedUnits
        /// A row has fewer or more cells than the header (a cut-off file or a broken line).
        case truncated
        /// A cell is not a number (or not finite).
        case notANumber
        /// A time stamp or date cell cannot be read.
        case badTime
        /// A row's time is before the previous row's in the same sensor.
        case timeWentBackwards
        /// A value is outside its physical range (latitude, longitude).
        case outOfRange
        /// The zip archive uses something this reader does not implement (zip64, encryption, other compression).
        case unsupportedZip
        /// The zip archive is damaged.
        case corruptZip
        /// The export holds no sensor sample at all.
        case noSamples
        /// Reading or writing failed at the operating-system level.
        case io
    }

    /// What kind of problem it is.
    package var kind: Kind
    /// The file (inside the export) or path the problem is in.
    package var file: String
    /// 1-based line number (the header is line 1), when the problem is on a line.
    package var line: Int?
    /// What is wrong.
    package var message: String
    /// What to do about it.
    package var advice: String

    /// Creates an error.
    package init(kind: Kind, file: String, line: Int? = nil, message: String, advice: String) {
        self.kind = kind; self.file = file; self.line = line; self.message = message; self.advice = advice
    }

    /// `file:line: message. advice`
    package var description: String { LocatedErrorText.format(file: file, line: line, message: message, advice: advice) }

    /// The flight writer's refusal (a sample it cannot write, a file it cannot create) as an `io` error with the
    /// writer's file, line, message and advice unchanged.
    init(writing error: SensorLogError) {
        self.init(kind: .io, file: error.file, line: error.line, message: error.message, advice: error.advice)
    }
}

/// Printable excerpts of untrusted bytes: never echoes control characters or invalid UTF-8 raw.
enum Excerpt {
    /// Up to `limit` bytes as text with non-printable bytes escaped (`\x00`, `\n`, `\xff`), in quotes.
    static func escaped(_ bytes: some Collection<UInt8>, limit: Int = 40) -> String {
        var out = "\""
        var count = 0
        var iterator = bytes.makeIterator()
        while count < limit, let byte = iterator.next() {
            count += 1
            switch byte {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        out += "\""
        if iterator.next() != nil { out += "…" }
        return out
    }
}
