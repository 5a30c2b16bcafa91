public import EddyVocabulary
import Foundation

/// Streams a flight directory (docs/sensor-log.md) as one time-ordered sequence of `SensorSample`s.
///
/// Each CSV file is read in 256 KiB chunks and parsed in place, so memory stays flat whatever the
/// flight's length. The files are merged by `t` (a k-way merge over at most four heads); samples
/// with equal `t` come in the fixed order of `SensorFileKind` (location, barometer, gyroscope,
/// accelerometer). `t` values are passed through unchanged: they are either Unix epoch seconds or
/// seconds since `meta.timeOrigin`.
public final class FlightLogReader {
    /// The largest |t| a flight may hold, seconds: 10¹¹ (the detection pipeline's bound; Unix seconds reach it in the
    /// year 5138). The reader refuses larger times with the line; the writer and the importers never write them.
    package static let maximumTimeMagnitudeSeconds = 1e11
    /// Barometer readings a flight may hold lie strictly between 0 and this, hPa (reader, writer and importers agree).
    package static let maximumPressureHectopascals = 2000.0
    /// Reading options.
    public struct Options: Sendable, Equatable {
        /// Skip and count bad lines (non-numeric, non-finite, out of range, time going backwards,
        /// wrong field count) instead of stopping at the first one.
        public var lenient: Bool
        /// Creates options.
        public init(lenient: Bool = false) { self.lenient = lenient }
    }

    /// The flight directory.
    public let directory: String
    /// Its `meta.json`.
    public let meta: FlightMeta
    /// The CSV files present, in tie-break order.
    public let files: [SensorFileKind]
    /// The options in use.
    public let options: Options

    private var merge: MergeState

    /// Opens a flight: reads `meta.json` and every CSV header. Throws a `SensorLogError` on a
    /// missing directory, meta.json or accelerometer.csv, an empty file or a bad header.
    public convenience init(directory: String, options: Options = Options()) throws(SensorLogError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SensorLogError(kind: .missingDirectory, file: directory, message: "no such flight directory", advice: "Pass a directory holding meta.json and accelerometer.csv (see docs/sensor-log.md)")
        }
        let meta = try FlightMeta.load(directory: directory)
        let opened = try Self.openFiles { (kind) throws(SensorLogError) -> CSVReadState? in
            let path = (directory as NSString).appendingPathComponent(kind.fileName)
            guard FileManager.default.fileExists(atPath: path) else {
                if kind.isRequired { throw Self.missing(kind, in: directory) }
                return nil
            }
            return try CSVReadState.openWithHeader(directory: directory, kind: kind, lenient: options.lenient)
        }
        self.init(directory: directory, meta: meta, options: options, sources: opened)
    }

    /// Opens a flight held in memory: `meta` already decoded, each CSV file's bytes by kind (a kind left out is a
    /// file that does not exist). Everything after reading the bytes — header, rows, checks, errors, the merge — is
    /// the code `init(directory:options:)` runs; the fuzz targets use this entry point (docs/reliability.md §7).
    /// `label` stands for the directory in messages.
    package convenience init(meta: FlightMeta, files: [SensorFileKind: [UInt8]], label: String = "(memory)", options: Options = Options()) throws(SensorLogError) {
        let opened = try Self.openFiles { (kind) throws(SensorLogError) -> CSVReadState? in
            guard let bytes = files[kind] else {
                if kind.isRequired { throw Self.missing(kind, in: label) }
                return nil
            }
            return try CSVReadState.openWithHeader(bytes: bytes, kind: kind, lenient: options.lenient)
        }
        self.init(directory: label, meta: meta, options: options, sources: opened)
    }

    private init(directory: String, meta: FlightMeta, options: Options, sources: [CSVReadState]) {
        self.directory = directory
        self.options = options
        self.meta = meta
        files = sources.map(\.kind)
        merge = MergeState(sources: sources)
    }

    deinit { merge.release() }

    /// The reading state of every kind `open` opens (nil: that file does not exist), in tie-break order; when one
    /// fails, those opened before it are released and its error thrown.
    private static func openFiles(
        _ open: (SensorFileKind) throws(SensorLogError) -> CSVReadState?
    ) throws(SensorLogError) -> [CSVReadState] {
        var opened: [CSVReadState] = []
        do throws(SensorLogError) {
            for kind in SensorFileKind.allCases {
                if let state = try open(kind) { opened.append(state) }
            }
        } catch {
            for state in opened { state.release() }
            throw error
        }
        return opened
    }

    private static func missing(_ kind: SensorFileKind, in directory: String) -> SensorLogError {
        SensorLogError(kind: .missingFile, file: kind.fileName, message: "missing in \(directory)", advice: "A flight needs accelerometer.csv with columns t, ax, ay, az")
    }

    /// The next sample in time order, or nil when every file is exhausted.
    @inline(__always)
    public func next() throws(SensorLogError) -> SensorSample? { try merge.next() }

    /// Appends up to `maximumCount` next samples in time order to `samples` (fewer only at the end of the flight or
    /// at a bad line), under one exclusive access to the reader's state instead of one per sample. Returns the error
    /// that stopped reading, if any, after the samples before it were appended: the caller hands those on first, then
    /// throws it, as a `next()` loop would.
    package func next(upTo maximumCount: Int, into samples: inout [SensorSample]) -> SensorLogError? {
        merge.next(upTo: maximumCount, into: &samples)
    }

    /// Calls `body` with every sample in time order. Throws the reader's `SensorLogError` or what `body` throws, so its
    /// errors stay untyped (`readAll` and `next()` throw `SensorLogError` alone).
    public func forEach(_ body: (SensorSample) throws -> Void) throws {
        while let sample = try next() { try body(sample) }
    }

    /// Per-file counts of lines skipped in lenient mode (files with none are left out).
    public var skippedLines: [SkippedLines] {
        merge.sources.map(\.skipped).filter { $0.count > 0 }
    }

    /// Samples delivered so far, per file.
    public var sampleCounts: [SensorFileKind: Int] {
        Dictionary(uniqueKeysWithValues: merge.sources.map { ($0.kind, $0.sampleCount) })
    }

    /// Reads a whole (small) flight into memory: for tests and tools, never for long flights.
    public static func readAll(directory: String, options: Options = Options()) throws(SensorLogError) -> (meta: FlightMeta, samples: [SensorSample]) {
        let reader = try FlightLogReader(directory: directory, options: options)
        var samples: [SensorSample] = []
        while let sample = try reader.next() { samples.append(sample) }
        return (reader.meta, samples)
    }
}

/// The k-way merge over the open files' head samples. It owns the files' reading states (a struct: one exclusive access
/// per call, none per file).
struct MergeState {
    /// Each open file's reading state, in tie-break order.
    private(set) var sources: [CSVReadState]
    private var heads: [SensorSample?]
    private var headTimes: [Double]
    private var started = false

    init(sources: [CSVReadState]) {
        self.sources = sources
        heads = Array(repeating: nil, count: sources.count)
        headTimes = Array(repeating: .infinity, count: sources.count)
    }

    /// Closes the files and frees their buffers (once, by the owner).
    func release() {
        for source in sources { source.release() }
    }

    /// The head with the smallest `t` (first file in tie-break order on ties), replaced by its successor.
    @inline(__always)
    mutating func next() throws(SensorLogError) -> SensorSample? {
        if !started {
            started = true
            for index in sources.indices { try advance(index) }
        }
        var best = -1
        var bestTime = Double.infinity
        for index in headTimes.indices where headTimes[index] < bestTime {
            best = index; bestTime = headTimes[index]
        }
        guard best >= 0 else { return nil }
        let sample = heads[best]
        try advance(best)
        return sample
    }

    /// Up to `maximumCount` samples appended (see `FlightLogReader.next(upTo:into:)`).
    mutating func next(upTo maximumCount: Int, into samples: inout [SensorSample]) -> SensorLogError? {
        do throws(SensorLogError) {
            for _ in 0..<maximumCount {
                guard let sample = try next() else { break }
                samples.append(sample)
            }
            return nil
        } catch {
            return error
        }
    }

    @inline(__always)
    private mutating func advance(_ index: Int) throws(SensorLogError) {
        if let sample = try sources[index].next() {
            heads[index] = sample
            headTimes[index] = sample.t
        } else {
            heads[index] = nil
            headTimes[index] = .infinity
        }
    }
}
