import EddyCore
import Foundation
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

    private var sinks: [SensorFileKind: CSVSink] = [:]
    private var finished = false

    /// Creates the directory (and parents) if needed, writes `meta.json` and the CSV headers of
    /// `files`, and removes stale CSV files of kinds not written, so the directory holds one flight.
    public init(directory: String, meta: FlightMeta, files: Set<SensorFileKind> = [.accelerometer, .location]) throws {
        guard files.contains(.accelerometer) else {
            throw SensorLogError(kind: .invalidSample, file: directory, message: "a flight log needs accelerometer.csv", advice: "Include .accelerometer in the files to write")
        }
        try meta.validate()
        self.directory = directory
        self.files = files
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
                sinks[kind] = try CSVSink(path: path, kind: kind)
            } else if FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    deinit {
        if !finished { for sink in sinks.values { try? sink.close() } }
    }

    private func sink(_ kind: SensorFileKind) throws -> CSVSink {
        guard let sink = sinks[kind], !finished else {
            throw SensorLogError(
                kind: .invalidSample, file: kind.fileName,
                message: finished ? "the writer is already finished" : "this writer was not created with \(kind.fileName)",
                advice: "Pass every file kind you append to when creating the FlightLogWriter")
        }
        return sink
    }

    /// Appends accelerometer samples (time order within the file is checked).
    public func append(accelerometer samples: some Sequence<AccelerometerSample>) throws {
        let sink = try sink(.accelerometer)
        for s in samples { try sink.row(t: s.t, s.x, s.y, s.z) }
    }

    /// Appends gyroscope samples.
    public func append(gyroscope samples: some Sequence<GyroscopeSample>) throws {
        let sink = try sink(.gyroscope)
        for s in samples { try sink.row(t: s.t, s.x, s.y, s.z) }
    }

    /// Appends barometer samples.
    public func append(barometer samples: some Sequence<BarometerSample>) throws {
        let sink = try sink(.barometer)
        for s in samples { try sink.row(t: s.t, s.pressureHectopascals) }
    }

    /// Appends location fixes.
    public func append(location samples: some Sequence<LocationSample>) throws {
        let sink = try sink(.location)
        for s in samples { try sink.location(s) }
    }

    /// Appends one sample of any kind to its file.
    public func append(_ sample: SensorSample) throws {
        switch sample {
        case .accelerometer(let s): try sink(.accelerometer).row(t: s.t, s.x, s.y, s.z)
        case .gyroscope(let s): try sink(.gyroscope).row(t: s.t, s.x, s.y, s.z)
        case .barometer(let s): try sink(.barometer).row(t: s.t, s.pressureHectopascals)
        case .location(let s): try sink(.location).location(s)
        }
    }

    /// Flushes and closes every file. The writer takes no more samples afterwards.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        for kind in SensorFileKind.allCases { try sinks[kind]?.close() }
    }
}

/// One buffered CSV output file.
final class CSVSink {
    let kind: SensorFileKind
    private let fd: Int32
    private var bytes: [UInt8] = []
    private var lastTime = -Double.infinity
    private var rows = 0
    private var closed = false
    private static let flushThreshold = 256 * 1024

    init(path: String, kind: SensorFileKind) throws {
        self.kind = kind
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw SensorLogError(kind: .io, file: kind.fileName, message: "cannot be created (\(String(cString: strerror(errno))))", advice: "Check the path and permissions")
        }
        bytes.reserveCapacity(Self.flushThreshold + 4096)
        bytes.append(contentsOf: kind.columns.joined(separator: ",").utf8)
        bytes.append(0x0A)
    }

    private func invalid(_ message: String) -> SensorLogError {
        SensorLogError(kind: .invalidSample, file: kind.fileName, line: rows + 2, message: message, advice: "Only finite values in non-decreasing time order can be written")
    }

    /// Checks a row before any of it is written, so a refused sample leaves no partial line.
    @inline(__always)
    private func check(t: Double, _ values: Double?...) throws {
        guard t.isFinite else { throw invalid("t is \(t)") }
        guard t >= lastTime else { throw invalid("t \(t) is before the previous sample's t \(lastTime)") }
        for (index, value) in values.enumerated() {
            if let value, !value.isFinite { throw invalid("\(kind.columns[index + 1]) is \(value)") }
        }
        lastTime = t
    }

    @inline(__always)
    private func number(_ value: Double) {
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    func row(t: Double, _ a: Double) throws {
        try check(t: t, a)
        number(t)
        bytes.append(0x2C); number(a)
        try endRow()
    }

    func row(t: Double, _ a: Double, _ b: Double, _ c: Double) throws {
        try check(t: t, a, b, c)
        number(t)
        bytes.append(0x2C); number(a)
        bytes.append(0x2C); number(b)
        bytes.append(0x2C); number(c)
        try endRow()
    }

    func location(_ s: LocationSample) throws {
        guard s.latitudeDegrees >= -90, s.latitudeDegrees <= 90, s.longitudeDegrees >= -180, s.longitudeDegrees <= 180 else {
            throw invalid("lat/lon \(s.latitudeDegrees), \(s.longitudeDegrees) out of range")
        }
        let optionals = [
            s.altitudeMeters, s.horizontalAccuracyMeters, s.verticalAccuracyMeters,
            s.speedMetersPerSecond, s.courseDegrees, s.pressureAltitudeFeet,
        ]
        try check(t: s.t, s.latitudeDegrees, s.longitudeDegrees, optionals[0], optionals[1], optionals[2], optionals[3], optionals[4], optionals[5])
        number(s.t)
        bytes.append(0x2C); number(s.latitudeDegrees)
        bytes.append(0x2C); number(s.longitudeDegrees)
        for value in optionals {
            bytes.append(0x2C)
            if let value { number(value) }
        }
        bytes.append(0x2C)
        bytes.append(contentsOf: s.source.rawValue.utf8)
        try endRow()
    }

    @inline(__always)
    private func endRow() throws {
        bytes.append(0x0A)
        rows += 1
        if bytes.count >= Self.flushThreshold { try flush() }
    }

    private func flush() throws {
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

    func close() throws {
        guard !closed else { return }
        closed = true
        defer { closeDescriptor(fd) }
        try flush()
    }
}

/// Closes a file descriptor (a free function, so `CSVSink.close()` does not shadow the system call).
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
