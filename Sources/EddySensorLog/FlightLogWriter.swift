public import EddyVocabulary
package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a flight directory in the sensor-log format, incrementally: `meta.json` at creation, then
/// samples appended in chunks to buffered CSV files, flushed by `finish()`.
///
/// Numbers are written in the shortest form that reads back to the same double (Swift's
/// `description`), so `FlightLogReader` returns exactly what was written and the bytes are the same
/// run after run. Empty cells stand for nil optional location fields.
public final class FlightLogWriter {
    /// The flight directory.
    public let directory: String
    /// The files being written.
    public let files: Set<SensorFileKind>

    /// Decimal places kept per quantity, as a real sensor's resolution; nil keeps every bit.
    public struct Resolution: Sendable, Equatable {
        /// Decimals of `t` (4 = 0.1 ms).
        public var timeDecimals: Int
        /// Decimals of accelerometer values in g (5 = 0.01 mg).
        public var accelerationDecimals: Int
        /// Decimals of gyroscope values in rad/s.
        public var rotationDecimals: Int
        /// Decimals of pressure in hPa.
        public var pressureDecimals: Int
        /// Decimals of latitude / longitude in degrees (7 ≈ 1 cm).
        public var angleDecimals: Int
        /// Decimals of metres, m/s, course degrees and feet.
        public var otherDecimals: Int

        /// Creates a resolution.
        public init(timeDecimals: Int, accelerationDecimals: Int, rotationDecimals: Int, pressureDecimals: Int, angleDecimals: Int, otherDecimals: Int) {
            self.timeDecimals = timeDecimals; self.accelerationDecimals = accelerationDecimals
            self.rotationDecimals = rotationDecimals; self.pressureDecimals = pressureDecimals
            self.angleDecimals = angleDecimals; self.otherDecimals = otherDecimals
        }

        /// What `eddy simulate` writes: 0.1 ms, 0.1 mg, 1e-4 rad/s, 0.001 hPa, 1e-7°, 0.01 m — at or
        /// below what phone sensors resolve (16-bit accelerometers: 0.06–0.24 mg per count), far below
        /// the 0.5–2 mg sensor noise, so nothing measurable is lost and files stay compact.
        public static let sensor = Resolution(
            timeDecimals: 4, accelerationDecimals: 4, rotationDecimals: 4, pressureDecimals: 3, angleDecimals: 7, otherDecimals: 2)
    }

    /// The resolution in use (nil: exact shortest round-trip numbers).
    public let resolution: Resolution?

    private var sinks: [SensorFileKind: CSVSink] = [:]
    private var finished = false

    /// Creates the directory (and parents) if needed, writes `meta.json` and the CSV headers of
    /// `files`, and removes stale CSV files of kinds not written, so the directory holds one flight.
    /// With a `resolution`, values are rounded to that many decimals (the number read back is the
    /// double nearest to the written decimal); without, every double is written exactly.
    public convenience init(
        directory: String, meta: FlightMeta, files: Set<SensorFileKind> = [.accelerometer, .location], resolution: Resolution? = nil
    ) throws(SensorLogError) {
        try self.init(directory: directory, memory: nil, meta: meta, files: files, resolution: resolution)
    }

    /// The same writer into a flight held in memory (the fuzz targets' entry point, docs/reliability.md §7): the same
    /// checks, formatting and buffering; where the file-based writer calls write(2), the bytes are appended to
    /// `memory.files[kind]`, and meta.json's bytes go to `memory.metaJSON`.
    package convenience init(
        memory: InMemoryFlight, meta: FlightMeta, files: Set<SensorFileKind> = [.accelerometer, .location], resolution: Resolution? = nil
    ) throws(SensorLogError) {
        try self.init(directory: memory.label, memory: memory, meta: meta, files: files, resolution: resolution)
    }

    private init(
        directory: String, memory: InMemoryFlight?, meta: FlightMeta, files: Set<SensorFileKind>, resolution: Resolution?
    ) throws(SensorLogError) {
        guard files.contains(.accelerometer) else {
            throw SensorLogError(kind: .invalidSample, file: directory, message: "a flight log needs accelerometer.csv", advice: "Include .accelerometer in the files to write")
        }
        try meta.validate()
        self.directory = directory
        self.files = files
        self.resolution = resolution
        if let resolution {
            let all = [resolution.timeDecimals, resolution.accelerationDecimals, resolution.rotationDecimals,
                       resolution.pressureDecimals, resolution.angleDecimals, resolution.otherDecimals]
            guard all.allSatisfy({ (0...9).contains($0) }) else {
                throw SensorLogError(kind: .invalidSample, file: directory, message: "resolution decimals must be 0…9", advice: "Pick fewer decimals")
            }
        }
        if let memory {
            memory.metaJSON = try meta.encoded()
            for kind in SensorFileKind.allCases {
                if files.contains(kind) {
                    memory.files[kind] = []
                    sinks[kind] = CSVSink(memory: memory, kind: kind, resolution: resolution)
                } else {
                    memory.files[kind] = nil
                }
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try meta.encoded().write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent("meta.json")))
        } catch let error as SensorLogError {
            throw error
        } catch {
            throw SensorLogError(kind: .io, file: directory, message: "cannot write the flight (\(error.localizedDescription))", advice: "Check the path and permissions")
        }
        for kind in SensorFileKind.allCases {
            let path = (directory as NSString).appendingPathComponent(kind.fileName)
            if files.contains(kind) {
                sinks[kind] = try CSVSink(path: path, kind: kind, resolution: resolution)
            } else if FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    deinit {
        if !finished { for sink in sinks.values { try? sink.close() } }
    }

    private func sink(_ kind: SensorFileKind) throws(SensorLogError) -> CSVSink {
        guard let sink = sinks[kind], !finished else {
            throw SensorLogError(
                kind: .invalidSample, file: kind.fileName,
                message: finished ? "the writer is already finished" : "this writer was not created with \(kind.fileName)",
                advice: "Pass every file kind you append to when creating the FlightLogWriter")
        }
        return sink
    }

    /// Appends accelerometer samples (time order within the file is checked).
    public func append(accelerometer samples: some Sequence<AccelerometerSample>) throws(SensorLogError) {
        let sink = try sink(.accelerometer)
        for s in samples { try sink.row(t: s.t, s.x, s.y, s.z) }
    }

    /// Appends gyroscope samples.
    public func append(gyroscope samples: some Sequence<GyroscopeSample>) throws(SensorLogError) {
        let sink = try sink(.gyroscope)
        for s in samples { try sink.row(t: s.t, s.x, s.y, s.z) }
    }

    /// Appends barometer samples.
    public func append(barometer samples: some Sequence<BarometerSample>) throws(SensorLogError) {
        let sink = try sink(.barometer)
        for s in samples { try sink.row(t: s.t, s.pressureHectopascals) }
    }

    /// Appends location fixes.
    public func append(location samples: some Sequence<LocationSample>) throws(SensorLogError) {
        let sink = try sink(.location)
        for s in samples { try sink.location(s) }
    }

    /// Appends one sample of any kind to its file.
    public func append(_ sample: SensorSample) throws(SensorLogError) {
        switch sample {
        case .accelerometer(let s): try sink(.accelerometer).row(t: s.t, s.x, s.y, s.z)
        case .gyroscope(let s): try sink(.gyroscope).row(t: s.t, s.x, s.y, s.z)
        case .barometer(let s): try sink(.barometer).row(t: s.t, s.pressureHectopascals)
        case .location(let s): try sink(.location).location(s)
        }
    }

    /// Flushes and closes every file. The writer takes no more samples afterwards.
    public func finish() throws(SensorLogError) {
        guard !finished else { return }
        finished = true
        for kind in SensorFileKind.allCases { try sinks[kind]?.close() }
    }
}

/// One buffered CSV output file (a class owning a `SinkState`: one exclusive access per row).
final class CSVSink {
    private var state: SinkState

    init(path: String, kind: SensorFileKind, resolution: FlightLogWriter.Resolution?) throws(SensorLogError) {
        state = try SinkState(path: path, kind: kind, resolution: resolution)
    }

    init(memory: InMemoryFlight, kind: SensorFileKind, resolution: FlightLogWriter.Resolution?) {
        state = SinkState(memory: memory, kind: kind, resolution: resolution)
    }

    /// Writes a two-column row.
    @inline(__always)
    func row(t: Double, _ a: Double) throws(SensorLogError) { try state.row(t: t, a) }
    /// Writes a four-column row.
    @inline(__always)
    func row(t: Double, _ a: Double, _ b: Double, _ c: Double) throws(SensorLogError) { try state.row(t: t, a, b, c) }
    /// Writes a location row.
    func location(_ s: LocationSample) throws(SensorLogError) { try state.location(s) }
    /// Flushes and closes the file.
    func close() throws(SensorLogError) { try state.close() }
}

/// Buffer, formatting and checks of one CSV output file.
struct SinkState {
    let kind: SensorFileKind
    /// The file written, or -1 when the bytes go to `memory`.
    private let fd: Int32
    private let memory: InMemoryFlight?
    private var bytes: [UInt8] = []
    private var lastTime = -Double.infinity
    private var rows = 0
    private var closed = false
    private static let flushThreshold = 256 * 1024
    /// Decimals for t, the value columns (slot 1…), or nil for exact output.
    private let timeDecimals: Int?
    private let valueDecimals: Int?
    private let angleDecimals: Int?

    init(path: String, kind: SensorFileKind, resolution: FlightLogWriter.Resolution?) throws(SensorLogError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw SensorLogError(kind: .io, file: kind.fileName, message: "cannot be created (\(String(cString: strerror(errno))))", advice: "Check the path and permissions")
        }
        self.init(fd: fd, memory: nil, kind: kind, resolution: resolution)
    }

    init(memory: InMemoryFlight, kind: SensorFileKind, resolution: FlightLogWriter.Resolution?) {
        self.init(fd: -1, memory: memory, kind: kind, resolution: resolution)
    }

    private init(fd: Int32, memory: InMemoryFlight?, kind: SensorFileKind, resolution: FlightLogWriter.Resolution?) {
        self.fd = fd
        self.memory = memory
        self.kind = kind
        timeDecimals = resolution?.timeDecimals
        switch kind {
        case .accelerometer: valueDecimals = resolution?.accelerationDecimals
        case .gyroscope: valueDecimals = resolution?.rotationDecimals
        case .barometer: valueDecimals = resolution?.pressureDecimals
        case .location: valueDecimals = resolution?.otherDecimals
        }
        angleDecimals = resolution?.angleDecimals
        // A file is written in flushThreshold-sized blocks; in memory the bytes are appended as they come.
        if memory == nil { bytes.reserveCapacity(Self.flushThreshold + 4096) }
        bytes.append(contentsOf: kind.columns.joined(separator: ",").utf8)
        bytes.append(0x0A)
    }

    private func invalid(_ message: String) -> SensorLogError {
        SensorLogError(kind: .invalidSample, file: kind.fileName, line: rows + 2, message: message, advice: "Only finite values in non-decreasing time order can be written")
    }

    /// Checks `t` before any of the row is written, so a refused sample leaves no partial line.
    @inline(__always)
    private func check(t: Double) throws(SensorLogError) {
        guard t.isFinite else { throw invalid("t is \(t)") }
        // What the reader refuses is never written (a fuzz finding, docs/reliability.md §7).
        guard abs(t) <= FlightLogReader.maximumTimeMagnitudeSeconds else { throw invalid("t \(t) is beyond ±1e11 s") }
        guard t >= lastTime else { throw invalid("t \(t) is before the previous sample's t \(lastTime)") }
    }

    /// Checks that a value column is finite.
    @inline(__always)
    private func check(_ value: Double?, column: Int) throws(SensorLogError) {
        if let value, !value.isFinite { throw invalid("\(kind.columns[column]) is \(value)") }
    }

    @inline(__always)
    private mutating func number(_ value: Double, decimals: Int?) {
        if let decimals, let scaled = Self.scaled(value, decimals) {
            appendFixed(scaled, decimals)
        } else {
            var text = value.description
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    private static let scales: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// `value × 10^decimals` rounded to an integer, when it fits in 2^53 (else nil: write exactly).
    @inline(__always)
    private static func scaled(_ value: Double, _ decimals: Int) -> Int64? {
        let x = (value * scales[decimals]).rounded()
        guard abs(x) < 9_007_199_254_740_992 else { return nil }
        return Int64(x)
    }

    /// Writes n / 10^decimals as a plain decimal, trailing zeros dropped (`-0.5`, `12.0`, `0.00012`).
    @inline(__always)
    private mutating func appendFixed(_ n: Int64, _ decimals: Int) {
        var magnitude = UInt64(n.magnitude)
        if n < 0 { bytes.append(0x2D) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            // least significant first; at least decimals + 1 digits
            repeat {
                raw[count] = UInt8(magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            } while magnitude > 0 || count <= decimals
            var firstKept = 0   // drop trailing zeros of the fraction, keep one
            while firstKept < decimals - 1, raw[firstKept] == 0x30 { firstKept += 1 }
            var index = count - 1
            while index >= decimals { bytes.append(raw[index]); index -= 1 }
            bytes.append(0x2E)
            if decimals == 0 { bytes.append(0x30); return }
            while index >= firstKept { bytes.append(raw[index]); index -= 1 }
        }
    }

    mutating func row(t: Double, _ a: Double) throws(SensorLogError) {
        try check(t: t); try check(a, column: 1)
        if kind == .barometer, !(a > 0 && a < FlightLogReader.maximumPressureHectopascals) {
            throw invalid("pressure_hpa \(a) out of range (must be between 0 and 2000 hPa)")
        }
        lastTime = t
        number(t, decimals: timeDecimals)
        bytes.append(0x2C); number(a, decimals: valueDecimals)
        try endRow()
    }

    mutating func row(t: Double, _ a: Double, _ b: Double, _ c: Double) throws(SensorLogError) {
        try check(t: t); try check(a, column: 1); try check(b, column: 2); try check(c, column: 3)
        lastTime = t
        number(t, decimals: timeDecimals)
        bytes.append(0x2C); number(a, decimals: valueDecimals)
        bytes.append(0x2C); number(b, decimals: valueDecimals)
        bytes.append(0x2C); number(c, decimals: valueDecimals)
        try endRow()
    }

    mutating func location(_ s: LocationSample) throws(SensorLogError) {
        guard s.latitudeDegrees >= -90, s.latitudeDegrees <= 90, s.longitudeDegrees >= -180, s.longitudeDegrees <= 180 else {
            throw invalid("lat/lon \(s.latitudeDegrees), \(s.longitudeDegrees) out of range")
        }
        let optionals = [
            s.altitudeMeters, s.horizontalAccuracyMeters, s.verticalAccuracyMeters,
            s.speedMetersPerSecond, s.courseDegrees, s.pressureAltitudeFeet,
        ]
        try check(t: s.t)
        for (index, value) in optionals.enumerated() { try check(value, column: index + 3) }
        if let course = s.courseDegrees, course > 360 { throw invalid("course_deg \(course) out of range (must be 0…360)") }
        lastTime = s.t
        number(s.t, decimals: timeDecimals)
        bytes.append(0x2C); number(s.latitudeDegrees, decimals: angleDecimals)
        bytes.append(0x2C); number(s.longitudeDegrees, decimals: angleDecimals)
        for value in optionals {
            bytes.append(0x2C)
            if let value { number(value, decimals: valueDecimals) }
        }
        bytes.append(0x2C)
        bytes.append(contentsOf: s.source.rawValue.utf8)
        try endRow()
    }

    @inline(__always)
    private mutating func endRow() throws(SensorLogError) {
        bytes.append(0x0A)
        rows += 1
        if bytes.count >= Self.flushThreshold { try flush() }
    }

    private mutating func flush() throws(SensorLogError) {
        if let memory {
            memory.files[kind, default: []].append(contentsOf: bytes)
            bytes.removeAll(keepingCapacity: true)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SensorLogError(kind: .io, file: kind.fileName, message: "write failed (\(String(cString: strerror(errno))))", advice: "Check free disk space")
            }
            offset += written
        }
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func close() throws(SensorLogError) {
        guard !closed else { return }
        closed = true
        defer { if fd >= 0 { closeDescriptor(fd) } }
        try flush()
    }
}

/// Closes a file descriptor (a free function, so `CSVSink.close()` does not shadow the system call).
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// A flight held in memory instead of a directory: what `FlightLogWriter(memory:…)` writes and
/// `FlightLogReader(meta:files:…)` reads — the fuzz targets' entry point (docs/reliability.md §7).
package final class InMemoryFlight {
    /// Stands for the directory in messages.
    package let label: String
    /// meta.json's bytes, as the file-based writer would write them.
    package var metaJSON: Data?
    /// Each CSV file's bytes by kind; a kind absent is a file that does not exist.
    package var files: [SensorFileKind: [UInt8]] = [:]

    /// An empty flight.
    package init(label: String = "(memory)") { self.label = label }
}
