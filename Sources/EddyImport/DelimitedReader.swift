import EddySensorLog
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a delimited text file (CSV with `,`, `;` or tab) row by row, parsing cells in place in one buffer.
///
/// Memory is one fixed buffer (a 256 KiB read chunk plus up to 1 MiB of a line) whatever the file's length. Handles a
/// UTF-8 BOM, an Excel `sep=;` first line, quoted cells, LF / CRLF, blank lines, a last line without newline, and a
/// decimal comma (when the delimiter is not a comma).
final class DelimitedReader {
    /// Display name for messages.
    let file: String
    private let source: any ByteSource
    private let buffer: UnsafeMutablePointer<UInt8>
    private static let chunk = 256 * 1024
    private static let maxLine = 1024 * 1024
    private let capacity: Int
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// Line number of the current row (1-based; the header of a file without a `sep=` line is line 1).
    private(set) var lineNumber = 0
    /// The cell separator.
    private(set) var delimiter: UInt8 = 0x2C
    /// Whether numbers use a decimal comma (only with `;` or tab delimiters).
    var decimalComma = false
    /// Cell byte ranges of the current row (fixed buffers: no exclusivity check or uniqueness test per cell).
    private let cellStarts: UnsafeMutablePointer<Int>
    private let cellEnds: UnsafeMutablePointer<Int>
    private static let maxCells = 4096
    /// Cells in the current row.
    private(set) var cellCount = 0
    /// Cells in the header.
    private(set) var headerCount = 0
    private var replay = false

    /// Makes the next `nextRow()` return the current row again (after a probe of the first row).
    func replayCurrentRow() { replay = true }

    /// Called with the number of bytes consumed by each read (for progress).
    var onBytes: ((Int) -> Void)?

    init(source: any ByteSource, file: String) {
        self.source = source
        self.file = file
        // A source of known length smaller than the buffer (bytes in memory: the fuzz targets) gets room for all of it
        // plus one byte, so the buffer never fills and the same rows come out; a file gets the full buffer.
        let full = Self.chunk + Self.maxLine
        capacity = source.exactByteCount.map { min(full, max(64, $0 + 1)) } ?? full
        buffer = .allocate(capacity: capacity)
        cellStarts = .allocate(capacity: Self.maxCells + 1)
        cellEnds = .allocate(capacity: Self.maxCells + 1)
    }

    deinit { buffer.deallocate(); cellStarts.deallocate(); cellEnds.deallocate() }

    private func error(_ kind: ImportError.Kind, _ message: String, _ advice: String, line: Int? = nil, fileLevel: Bool = false) -> ImportError {
        ImportError(kind: kind, file: file, line: fileLevel ? nil : (line ?? lineNumber), message: message, advice: advice)
    }

    /// Reads more bytes; false at the end of the file.
    private func refill() throws(ImportError) -> Bool {
        if atEnd { return false }
        if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(buffer, buffer + start, pending) }
            start = 0; end = pending
        }
        guard end < capacity else {
            let excerpt = Excerpt.escaped(UnsafeBufferPointer(start: buffer, count: 40))
            throw error(.binaryFile, "line \(lineNumber + 1) is longer than 1 MiB (starts \(excerpt))", "This is not a sensor export in text form; export CSV from the app", line: lineNumber + 1)
        }
        let got = try source.read(buffer + end, min(Self.chunk, capacity - end))
        if got == 0 { atEnd = true; return false }
        onBytes?(got)
        end += got
        return true
    }

    /// The next line's byte range (without CR/LF), or nil at the end of the file.
    @inline(__always)
    private func nextLine() throws(ImportError) -> (Int, Int)? {
        while true {
            let lineStart = start, available = end
            if lineStart < available, let found = memchr(buffer + lineStart, 0x0A, available - lineStart) {
                let newline = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var lineEnd = newline
                if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                start = newline + 1
                lineNumber &+= 1
                return (lineStart, lineEnd)
            }
            if try !refill() {
                guard start < end else { return nil }
                let lineStart = start
                var lineEnd = end
                if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                start = end
                lineNumber += 1
                return (lineStart, lineEnd)
            }
        }
    }

    /// Splits `[lineStart, lineEnd)` into cells at `delimiter`; a cell in double quotes loses its quotes.
    @inline(__always)
    private func split(_ lineStart: Int, _ lineEnd: Int) {
        var count = 0
        var i = lineStart
        let d = delimiter
        let b = buffer, starts = cellStarts, ends = cellEnds
        while count < Self.maxCells {
            if i < lineEnd, b[i] == 0x22 {
                let cellStart = i + 1
                var j = cellStart
                while j < lineEnd, b[j] != 0x22 { j += 1 }
                starts[count] = cellStart; ends[count] = j; count += 1
                i = j + 1
                while i < lineEnd, b[i] != d { i += 1 }
            } else {
                let cellStart = i
                while i < lineEnd, b[i] != d { i += 1 }
                starts[count] = cellStart; ends[count] = i; count += 1
            }
            if i >= lineEnd { break }
            i += 1
            if i == lineEnd { starts[count] = i; ends[count] = i; count += 1; break }
        }
        cellCount = count
    }

    /// Reads the header row: skips a BOM, an Excel `sep=X` line and blank lines, picks the delimiter from `allowed`
    /// (the one that splits the header into most cells) and returns the column names (unquoted, trimmed).
    func readHeader(allowed: [UInt8], minimumColumns: Int) throws(ImportError) -> [String] {
        _ = try refill()
        let probe = UnsafeBufferPointer(start: buffer, count: min(end, 4096))
        if probe.contains(0) {
            throw error(.binaryFile, "holds binary data, not text (starts \(Excerpt.escaped(probe)))", "Export the recording as CSV from the app and import that", fileLevel: true)
        }
        if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { start = 3 }
        var forced: UInt8?
        while true {
            guard let (lineStart, lineEnd) = try nextLine() else {
                throw error(.emptyFile, "is empty (no header row)", "Export the recording again; the file holds no data", fileLevel: true)
            }
            let headerText = String(decoding: UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), as: UTF8.self)
            let trimmed = TextFastPaths.trimmingWhitespace(headerText)
            if trimmed.isEmpty { continue }
            if trimmed.lowercased().hasPrefix("sep="), trimmed.utf8.count == 5 {
                forced = trimmed.utf8.last
                continue
            }
            guard String(validatingUTF8Bytes: UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart)) != nil else {
                throw error(.binaryFile, "header is not text (\(Excerpt.escaped(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart))))",
                            "Export the recording as CSV from the app and import that")
            }
            var best: (UInt8, Int) = (allowed.first ?? 0x2C, 0)
            for candidate in forced.map({ [$0] }) ?? allowed {
                delimiter = candidate
                split(lineStart, lineEnd)
                if cellCount > best.1 { best = (candidate, cellCount) }
            }
            delimiter = best.0
            split(lineStart, lineEnd)
            if cellCount < minimumColumns {
                let names = allowed.map { $0 == 0x09 ? "tab" : "'\(Character(Unicode.Scalar($0)))'" }.joined(separator: " or ")
                throw error(.wrongDelimiter, "header \(Excerpt.escaped(headerText.utf8, limit: 60)) splits into \(cellCount) column(s) with \(names)",
                            "This format separates columns with \(names); export again with that separator (or convert the file)")
            }
            if cellCount >= Self.maxCells {
                throw error(.binaryFile, "header has more than \(Self.maxCells) columns", "This is not a sensor export Eddy reads; check the file")
            }
            headerCount = cellCount
            decimalComma = false
            return (0..<cellCount).map { TextFastPaths.trimmingWhitespace(text(at: $0)) }
        }
    }

    /// Advances to the next non-blank row; false at the end of the file. A row with fewer cells than the header, or
    /// more non-empty ones, is an error (`truncated`).
    @inline(__always)
    func nextRow() throws(ImportError) -> Bool {
        if replay { replay = false; return true }
        while true {
            guard let (lineStart, lineEnd) = try nextLine() else { return false }
            if lineEnd == lineStart { continue }
            split(lineStart, lineEnd)
            if cellCount == headerCount { return true }
            if cellCount < headerCount {
                if cellCount == 1, cellEnds[0] == cellStarts[0] { continue }
                throw error(.truncated, "has \(cellCount) cells, the header has \(headerCount) (line cut short?)", "Delete the incomplete line (often the last one of an interrupted recording)")
            }
            for index in headerCount..<cellCount where cellEnds[index] > cellStarts[index] {
                throw error(.truncated, "has \(cellCount) cells, the header has \(headerCount)", "Fix or delete the broken line")
            }
            cellCount = headerCount
            return true
        }
    }

    /// The next line as raw bytes (no CR/LF), for line formats that are not delimited (IGC); nil at the end.
    func nextRawLine() throws(ImportError) -> UnsafeBufferPointer<UInt8>? {
        guard let (lineStart, lineEnd) = try nextLine() else { return nil }
        return UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart)
    }

    /// The text of a cell.
    func text(at column: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: buffer + cellStarts[column], count: cellEnds[column] - cellStarts[column]), as: UTF8.self)
    }

    /// Whether a cell is empty (or only blanks).
    @inline(__always)
    func isEmpty(_ column: Int) -> Bool {
        var i = cellStarts[column]
        let e = cellEnds[column]
        while i < e { if buffer[i] != 0x20 { return false }; i += 1 }
        return true
    }

    /// A cell's raw bytes (for time-stamp parsers).
    @inline(__always)
    func withCell<T, BodyError: Error>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(BodyError) -> T) throws(BodyError) -> T {
        try body(UnsafeBufferPointer(start: buffer + cellStarts[column], count: cellEnds[column] - cellStarts[column]))
    }

    /// The number in a cell; nil when the column is absent (negative index) or the cell is empty.
    @inline(__always)
    func number(_ column: Int, _ name: @autoclosure () -> String) throws(ImportError) -> Double? {
        guard column >= 0 else { return nil }
        let s = cellStarts[column], e = cellEnds[column]
        if decimalComma {
            var i = s
            while i < e { if buffer[i] == 0x2C { buffer[i] = 0x2E }; i += 1 }
        }
        switch NumberParser.parse(buffer, s, e) {
        case .value(let v): return v
        case .empty: return nil
        case .nonFinite:
            throw error(.notANumber, "\(name()) is \(Excerpt.escaped(UnsafeBufferPointer(start: buffer + s, count: e - s))), not a finite number", "Fix or delete the line")
        case .invalid:
            throw error(.notANumber, "\(name()) \(Excerpt.escaped(UnsafeBufferPointer(start: buffer + s, count: e - s))) is not a number", "Fix or delete the line; a file from another app needs --format")
        }
    }

    /// The number in a required cell (an empty cell is an error).
    @inline(__always)
    func required(_ column: Int, _ name: @autoclosure () -> String) throws(ImportError) -> Double {
        guard let value = try number(column, name()) else {
            throw error(.notANumber, "\(name()) is empty", "Fix or delete the line")
        }
        return value
    }

    /// An error located on the current line.
    func lineError(_ kind: ImportError.Kind, _ message: String, _ advice: String) -> ImportError {
        error(kind, message, advice)
    }
}

extension String {
    /// Decodes UTF-8 only when valid.
    init?(validatingUTF8Bytes bytes: UnsafeBufferPointer<UInt8>) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self.init(scalars)
    }
}
