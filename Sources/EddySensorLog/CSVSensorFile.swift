import EddySupport
import EddyVocabulary
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams one CSV file of a flight: reads 256 KiB chunks, splits lines with `memchr`, parses cells
/// in place (no per-line strings) and turns each row into a `SensorSample`.
///
/// A value type owning raw buffers: `FlightLogReader` keeps each file's state inside its merge (so a sample costs no
/// class access and no runtime exclusivity check beyond the reader's own) and calls `release()` once when done.
struct CSVReadState {
    let kind: SensorFileKind
    let lenient: Bool
    var skipped: SkippedLines
    var sampleCount = 0

    /// The open file, or -1 when the bytes are in `memory`.
    private let fd: Int32
    /// The file's bytes when read from memory (`fd` is -1), and how many of them were handed out.
    private let memory: [UInt8]
    private var memoryOffset = 0
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var lineNumber = 0

    /// Column index in the file → value slot (index into `kind.columns`), or -1 when ignored.
    private var slotOfColumn: UnsafeMutablePointer<Int>
    private var columnCount = 0
    private let values: UnsafeMutablePointer<Double>
    private var sourceValue: LocationSource = .device
    private var lastTime = -Double.infinity
    /// Whether every column of the header is a value slot of a number (no ignored column, no `source` text): such a
    /// file's well-formed rows take the one-pass path (`nextWellFormedRow`).
    private var everyColumnNumeric = false

    static let chunkSize = 256 * 1024
    static let maximumLineBytes = 1 << 20

    init(directory: String, kind: SensorFileKind, lenient: Bool) throws(SensorLogError) {
        self.kind = kind
        self.lenient = lenient
        self.skipped = SkippedLines(file: kind.fileName)
        let path = directory.hasSuffix("/") ? directory + kind.fileName : directory + "/" + kind.fileName
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SensorLogError(kind: .io, file: kind.fileName, message: "cannot be opened (\(reason))", advice: "Check that the file exists and is readable")
        }
        fd = descriptor
        memory = []
        capacity = Self.chunkSize
        buffer = .allocate(capacity: capacity)
        values = .allocate(capacity: kind.columns.count)
        values.initialize(repeating: 0, count: kind.columns.count)
        slotOfColumn = .allocate(capacity: 1)
    }

    /// The reading state over bytes in memory (see `openWithHeader(bytes:kind:lenient:)`).
    init(bytes: [UInt8], kind: SensorFileKind, lenient: Bool) {
        self.kind = kind
        self.lenient = lenient
        self.skipped = SkippedLines(file: kind.fileName)
        fd = -1
        memory = bytes
        // Room for the whole input when it is smaller than a chunk (a file that size never fills the chunk either, so
        // the same lines come out; the growth path is taken for inputs past a chunk, as for files): a fuzz input does
        // not pay for a 256 KiB buffer.
        var size = 64
        while size <= bytes.count, size < Self.chunkSize { size *= 2 }
        capacity = size
        buffer = .allocate(capacity: capacity)
        values = .allocate(capacity: kind.columns.count)
        values.initialize(repeating: 0, count: kind.columns.count)
        slotOfColumn = .allocate(capacity: 1)
    }

    /// Opens a file and reads its header; on a throw nothing stays open.
    static func openWithHeader(directory: String, kind: SensorFileKind, lenient: Bool) throws(SensorLogError) -> CSVReadState {
        var state = try CSVReadState(directory: directory, kind: kind, lenient: lenient)
        do throws(SensorLogError) { try state.readHeader() } catch {
            state.release()
            throw error
        }
        return state
    }

    /// The same reader over the file's bytes held in memory (the fuzz targets' entry point): the bytes are handed to
    /// the parser in the chunks `read(2)` would give, so everything after the system call is the code a file goes
    /// through. On a throw nothing stays allocated.
    static func openWithHeader(bytes: [UInt8], kind: SensorFileKind, lenient: Bool) throws(SensorLogError) -> CSVReadState {
        var state = CSVReadState(bytes: bytes, kind: kind, lenient: lenient)
        do throws(SensorLogError) { try state.readHeader() } catch {
            state.release()
            throw error
        }
        return state
    }

    /// Closes the file and frees the buffers (called once, by the owner).
    func release() {
        if fd >= 0 { close(fd) }
        buffer.deallocate()
        values.deallocate()
        slotOfColumn.deallocate()
    }

    // MARK: Lines

    /// The next line's byte range in `buffer` (without LF / CRLF), or nil at end of file.
    /// The range stays valid until the next call.
    @inline(__always)
    private mutating func nextLine() throws(SensorLogError) -> (Int, Int)? {
        while true {
            if start < end, let hit = memchr(buffer + start, 0x0A, end - start) {
                let newline = buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                let lineStart = start
                var lineEnd = newline
                if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                start = newline + 1
                lineNumber += 1
                return (lineStart, lineEnd)
            }
            if atEOF {
                guard start < end else { return nil }
                let lineStart = start
                var lineEnd = end
                if buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                start = end
                lineNumber += 1
                return (lineStart, lineEnd)
            }
            try refill()
        }
    }

    /// Moves the unread tail to the front and reads more bytes after it.
    private mutating func refill() throws(SensorLogError) {
        let remaining = end - start
        if remaining > 0, start > 0 { memmove(buffer, buffer + start, remaining) }
        start = 0
        end = remaining
        if end == capacity {
            guard capacity < Self.maximumLineBytes else {
                throw SensorLogError(
                    kind: .lineTooLong, file: kind.fileName, line: lineNumber + 1,
                    message: "line is longer than \(Self.maximumLineBytes) bytes", advice: "This does not look like a sensor-log CSV file; check the file")
            }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = bigger
            capacity *= 2
        }
        while end < capacity {
            let count = readInput(buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw SensorLogError(kind: .io, file: kind.fileName, line: lineNumber + 1, message: "read failed (\(reason))", advice: "Check the disk and the file")
            }
            if count == 0 { atEOF = true; break }
            end += count
            if end >= Self.chunkSize / 2 { break }
        }
    }

    /// read(2) on the file, or the next bytes of `memory` (0 at its end, like read at end of file).
    @inline(__always)
    private mutating func readInput(_ into: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
        if fd >= 0 { return read(fd, into, count) }
        let n = min(count, memory.count - memoryOffset)
        guard n > 0 else { return 0 }
        memory.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { into.update(from: base + memoryOffset, count: n) }
        }
        memoryOffset += n
        return n
    }

    // MARK: Header

    mutating func readHeader() throws(SensorLogError) {
        guard let (lineStart, lineEnd) = try nextLine() else {
            throw SensorLogError(
                kind: .emptyFile, file: kind.fileName, line: 1, message: "file is empty (no header row)",
                advice: "The first line must name the columns, e.g. \(kind.columns.prefix(kind.requiredColumnCount).joined(separator: ","))")
        }
        var s = lineStart
        if lineEnd - s >= 3, buffer[s] == 0xEF, buffer[s + 1] == 0xBB, buffer[s + 2] == 0xBF { s += 3 }
        let text = String(decoding: UnsafeBufferPointer(start: buffer + s, count: lineEnd - s), as: UTF8.self)
        // Quoted in messages from the raw bytes (invalid UTF-8 shows as its bytes, not as U+FFFD).
        let headerExcerpt = InputExcerpt.escaped(bytes: UnsafeBufferPointer(start: buffer + s, count: lineEnd - s))
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingBlanks() }
        if names.allSatisfy(\.isEmpty) {
            throw SensorLogError(
                kind: .emptyFile, file: kind.fileName, line: 1, message: "header row is empty",
                advice: "The first line must name the columns, e.g. \(kind.columns.prefix(kind.requiredColumnCount).joined(separator: ","))")
        }
        var seen = Set<Int>()
        let slots = names.map { name in kind.columns.firstIndex(of: name) ?? -1 }
        for (index, slot) in slots.enumerated() where slot >= 0 {
            guard seen.insert(slot).inserted else {
                throw SensorLogError(kind: .badHeader, file: kind.fileName, line: 1, message: "column \"\(InputExcerpt.escaped(names[index]))\" appears twice", advice: "Keep one column of each name")
            }
        }
        let missing = kind.columns.prefix(kind.requiredColumnCount).enumerated().filter { !seen.contains($0.offset) }.map(\.element)
        guard missing.isEmpty else {
            throw SensorLogError(
                kind: .badHeader, file: kind.fileName, line: 1,
                message: "missing required column\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")) (header has: \(headerExcerpt))",
                advice: "\(kind.fileName) needs the columns \(kind.columns.prefix(kind.requiredColumnCount).joined(separator: ", ")), named in the header row")
        }
        slotOfColumn.deallocate()
        slotOfColumn = .allocate(capacity: slots.count)
        slotOfColumn.initialize(from: slots, count: slots.count)
        columnCount = slots.count
        everyColumnNumeric = kind != .location && slots.allSatisfy { $0 >= 0 }
    }

    // MARK: Rows

    /// The next valid sample, or nil at end of file. Lenient mode skips (and counts) bad lines.
    mutating func next() throws(SensorLogError) -> SensorSample? {
        if everyColumnNumeric, let sample = nextWellFormedRow() { return sample }
        while let (lineStart, lineEnd) = try nextLine() {
            if lineStart == lineEnd || isBlank(lineStart, lineEnd) { continue }
            do throws(SensorLogError) {
                let sample = try parseRow(lineStart, lineEnd)
                sampleCount += 1
                return sample
            } catch where lenient && error.isSkippableLine {
                skipped.count += 1
                if skipped.first == nil { skipped.first = error }
            }
        }
        return nil
    }

    /// The next line as a sample in one pass over its bytes, when it is a well-formed row lying whole in the buffer: every
    /// cell a plain number (`NumberParser.fastCell`'s grammar) ending at `,` or at the line's LF / CRLF, as many cells
    /// as the header has columns, `t` within bounds and not decreasing, a valid pressure. Anything else — a blank or
    /// bad line, a line cut by the buffer's end, end of file — returns nil with nothing consumed, and `next()` reads the
    /// line the general way (same values, same errors and line numbers). Only for files whose columns are all numbers.
    @inline(__always)
    private mutating func nextWellFormedRow() -> SensorSample? {
        let buf = buffer
        let limit = end
        let columns = columnCount
        var i = start
        var column = 0
        while true {
            guard let (value, stop) = NumberParser.fastCellPrefix(buf, i, limit), stop < limit else { return nil }
            values[slotOfColumn[column]] = value
            column += 1
            let terminator = buf[stop]
            if terminator == 0x2C {
                guard column < columns else { return nil }
                i = stop + 1
                continue
            }
            guard column == columns else { return nil }
            if terminator == 0x0A {
                i = stop + 1
            } else if terminator == 0x0D, stop + 1 < limit, buf[stop + 1] == 0x0A {
                i = stop + 2
            } else {
                return nil
            }
            break
        }
        let t = values[0]
        guard abs(t) <= FlightLogReader.maximumTimeMagnitudeSeconds, t >= lastTime, let sample = numericSample(t) else { return nil }
        start = i
        lineNumber += 1
        lastTime = t
        sampleCount += 1
        return sample
    }

    @inline(__always)
    private func isBlank(_ s: Int, _ e: Int) -> Bool {
        var i = s
        while i < e { if buffer[i] != 0x20 && buffer[i] != 0x09 { return false }; i += 1 }
        return true
    }

    private func lineError(_ kind: SensorLogError.Kind, _ message: String) -> SensorLogError {
        SensorLogError(kind: kind, file: self.kind.fileName, line: lineNumber, message: message, advice: SensorLogError.lineAdvice)
    }

    /// A cell's raw bytes as a short escaped excerpt for messages.
    private func cellExcerpt(_ s: Int, _ e: Int) -> String {
        InputExcerpt.escaped(bytes: UnsafeBufferPointer(start: buffer + s, count: e - s))
    }

    private func cellText(_ s: Int, _ e: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: buffer + s, count: e - s), as: UTF8.self).trimmingBlanks()
    }

    @inline(__always)
    private mutating func parseRow(_ lineStart: Int, _ lineEnd: Int) throws(SensorLogError) -> SensorSample {
        var present: UInt32 = 0
        sourceValue = .device
        let buf = buffer
        let columns = columnCount
        let textSlot = kind == .location ? 9 : -1
        var column = 0
        var i = lineStart
        while true {
            guard column < columns else {
                throw lineError(.wrongFieldCount, "has more fields than the header's \(columns) columns")
            }
            let slot = slotOfColumn[column]
            var cellEnd: Int
            if slot >= 0, slot != textSlot, let (value, stop) = NumberParser.fastCell(buf, i, lineEnd) {
                values[slot] = value
                present |= 1 << UInt32(slot)
                cellEnd = stop
            } else {
                cellEnd = i
                while cellEnd < lineEnd, buf[cellEnd] != 0x2C { cellEnd += 1 }
                if slot >= 0 { try store(slot: slot, i, cellEnd, &present) }
            }
            column += 1
            if cellEnd == lineEnd { break }
            i = cellEnd + 1
        }
        guard column == columns else {
            throw lineError(.wrongFieldCount, "has \(column) field\(column == 1 ? "" : "s"), the header has \(columns) (truncated or malformed line)")
        }
        let required = kind.requiredColumnCount
        if present & ((1 << required) - 1) != (1 << required) - 1 {
            let missing = (0..<required).first { present & (1 << $0) == 0 }!
            throw lineError(.emptyRequiredCell, "\(kind.columns[missing]) is empty (it is required)")
        }
        let t = values[0]
        // The detector ignores times beyond ±10¹¹ s (docs/reliability.md, "Known crashes"): refuse them here, with the line.
        guard abs(t) <= FlightLogReader.maximumTimeMagnitudeSeconds else {
            throw lineError(.outOfRange, "t \(t) is beyond ±1e11 s (3,170 years from the time origin or from 1970; milliseconds since 1970? t must be seconds)")
        }
        guard t >= lastTime else {
            throw lineError(.timeWentBackwards, "t \(t) is before the previous line's t \(lastTime) (t must not decrease within a file)")
        }
        let sample: SensorSample
        if kind == .location {
            sample = .location(try makeLocation(t, present))
        } else if let numeric = numericSample(t) {
            sample = numeric
        } else {
            throw lineError(.outOfRange, "pressure_hpa \(values[1]) out of range (must be between 0 and 2000 hPa)")
        }
        lastTime = t
        return sample
    }

    /// The accelerometer, gyroscope or barometer sample of the row's values at `t`; nil for a location row and for a
    /// pressure out of range (the general path says which is wrong).
    @inline(__always)
    private func numericSample(_ t: Double) -> SensorSample? {
        switch kind {
        case .accelerometer:
            .accelerometer(AccelerometerSample(t: t, x: values[1], y: values[2], z: values[3]))
        case .gyroscope:
            .gyroscope(GyroscopeSample(t: t, x: values[1], y: values[2], z: values[3]))
        case .barometer:
            values[1] > 0 && values[1] < FlightLogReader.maximumPressureHectopascals
                ? .barometer(BarometerSample(t: t, pressureHectopascals: values[1])) : nil
        case .location:
            nil
        }
    }

    private func makeLocation(_ t: Double, _ present: UInt32) throws(SensorLogError) -> LocationSample {
        let lat = values[1], lon = values[2]
        guard lat >= -90, lat <= 90 else { throw lineError(.outOfRange, "lat \(lat) out of range (must be -90…90)") }
        guard lon >= -180, lon <= 180 else { throw lineError(.outOfRange, "lon \(lon) out of range (must be -180…180)") }
        func optional(_ slot: Int) -> Double? { present & (1 << slot) != 0 ? values[slot] : nil }
        func nonNegative(_ slot: Int) -> Double? { optional(slot).flatMap { $0 < 0 ? nil : $0 } }
        let course = nonNegative(7)
        if let course, course > 360 { throw lineError(.outOfRange, "course_deg \(course) out of range (must be 0…360, or negative/empty when unknown)") }
        return LocationSample(
            t: t, latitudeDegrees: lat, longitudeDegrees: lon, altitudeMeters: optional(3),
            horizontalAccuracyMeters: nonNegative(4), verticalAccuracyMeters: nonNegative(5),
            speedMetersPerSecond: nonNegative(6), courseDegrees: course,
            pressureAltitudeFeet: optional(8), source: sourceValue)
    }

    @inline(__always)
    private mutating func store(slot: Int, _ s: Int, _ e: Int, _ present: inout UInt32) throws(SensorLogError) {
        if kind == .location, slot == 9 {
            let text = cellText(s, e)
            if text.isEmpty { return }
            guard let source = LocationSource(rawValue: text) else {
                throw lineError(.unknownValue, "source \"\(InputExcerpt.escaped(text))\" is not one of device, external, adsb")
            }
            sourceValue = source
            return
        }
        switch NumberParser.parse(buffer, s, e) {
        case .value(let v):
            values[slot] = v
            present |= 1 << UInt32(slot)
        case .empty:
            break
        case .nonFinite:
            throw lineError(.nonFinite, "\(kind.columns[slot]) is \"\(cellExcerpt(s, e))\" (values must be finite numbers)")
        case .invalid:
            throw lineError(.notANumber, "\(kind.columns[slot]) \"\(cellExcerpt(s, e))\" is not a number")
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingBlanks() -> String {
        var sub = Substring(self)
        while let first = sub.first, first == " " || first == "\t" { sub.removeFirst() }
        while let last = sub.last, last == " " || last == "\t" { sub.removeLast() }
        return String(sub)
    }
}
