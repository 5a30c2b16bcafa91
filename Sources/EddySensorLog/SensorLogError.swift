/// A problem with a flight log: names the file, the line (when there is one), what is wrong and what to do.
///
/// `description` reads like `location.csv:1832: lat 123.4 out of range (must be -90…90). Fix or delete
/// the line, or replay with --lenient to skip and count bad lines.`
public struct SensorLogError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of problem it is (tests and callers match on it).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The flight directory does not exist or is not a directory.
        case missingDirectory
        /// `meta.json` is missing.
        case missingMeta
        /// `meta.json` is not valid JSON or misses / mistypes a field.
        case invalidMeta
        /// `aircraft.class` in `meta.json` is not small, medium or large.
        case unknownAircraftClass
        /// A required CSV file (accelerometer.csv) is missing.
        case missingFile
        /// A CSV file has no header row at all.
        case emptyFile
        /// The header row lacks a required column, or names one twice.
        case badHeader
        /// A row has a different number of fields than the header (truncated or malformed line).
        case wrongFieldCount
        /// A cell is not a number.
        case notANumber
        /// A cell is NaN or infinite.
        case nonFinite
        /// A required cell (t, ax, lat, …) is empty.
        case emptyRequiredCell
        /// `t` is smaller than the previous line's `t` in the same file.
        case timeWentBackwards
        /// A value is outside its physical range (lat, lon, pressure).
        case outOfRange
        /// A text cell (`source`) has a value the format does not know.
        case unknownValue
        /// A line is longer than the reader accepts (not a sensor log?).
        case lineTooLong
        /// Reading or writing the file failed at the operating-system level.
        case io
        /// The writer was handed a sample it cannot write faithfully (non-finite, time going backwards).
        case invalidSample
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// File name inside the flight directory (`location.csv`, `meta.json`) or the directory path.
    public var file: String
    /// 1-based line number (the header is line 1), when the problem is on a line.
    public var line: Int?
    /// What is wrong.
    public var message: String
    /// What to do about it.
    public var advice: String

    /// Creates an error.
    package init(kind: Kind, file: String, line: Int? = nil, message: String, advice: String) {
        self.kind = kind; self.file = file; self.line = line; self.message = message; self.advice = advice
    }

    /// `file:line: message. advice`
    public var description: String { LocatedErrorText.format(file: file, line: line, message: message, advice: advice) }

    /// Whether lenient mode may skip the offending line and go on (line-level problems only).
    public var isSkippableLine: Bool {
        guard line != nil else { return false }
        switch kind {
        case .wrongFieldCount, .notANumber, .nonFinite, .emptyRequiredCell, .timeWentBackwards, .outOfRange, .unknownValue:
            return true
        default:
            return false
        }
    }

    static let lineAdvice = "Fix or delete the line, or replay with --lenient to skip and count bad lines"
}

/// Lines that lenient reading skipped in one file.
public struct SkippedLines: Sendable, Equatable {
    /// File name inside the flight directory.
    public var file: String
    /// How many lines were skipped.
    public var count: Int
    /// The first skipped line's error (what was wrong with it).
    public var first: SensorLogError?

    /// Creates a record.
    package init(file: String, count: Int = 0, first: SensorLogError? = nil) {
        self.file = file; self.count = count; self.first = first
    }
}

/// The one text form of an input error located in a file (sensor logs, imported exports).
package enum LocatedErrorText {
    /// `file:line: message. advice` (the line and the advice left out when absent).
    /// The file name, the message and the advice can quote the input (a zip entry's or a folder file's name, a
    /// header cell): control bytes are written `\xNN` (line feeds kept in the message and the advice) so that the text
    /// never carries raw control bytes to a terminal, whatever a message builder forgot to escape (fuzz findings,
    /// docs/reliability.md §7).
    package static func format(file: String, line: Int?, message: String, advice: String) -> String {
        let name = printableName(file)
        let place = line.map { "\(name):\($0)" } ?? name
        let text = escapingControlBytes(message, keepingLineFeeds: true)
        return advice.isEmpty ? "\(place): \(text)" : "\(place): \(text). \(escapingControlBytes(advice, keepingLineFeeds: true))"
    }

    /// A file name as it may appear in a message: control bytes (U+0000–U+001F, U+007F) written `\xNN`; other
    /// characters, letters with accents included, unchanged.
    package static func printableName(_ name: String) -> String { escapingControlBytes(name, keepingLineFeeds: false) }

    private static func escapingControlBytes(_ text: String, keepingLineFeeds: Bool) -> String {
        guard text.utf8.contains(where: { ($0 < 0x20 && !(keepingLineFeeds && $0 == 0x0A)) || $0 == 0x7F }) else { return text }
        let hex = Array("0123456789abcdef")
        var out = ""
        for scalar in text.unicodeScalars {
            if (scalar.value < 0x20 && !(keepingLineFeeds && scalar.value == 0x0A)) || scalar.value == 0x7F {
                out += "\\x"
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

