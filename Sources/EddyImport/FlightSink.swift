import EddySensorLog
import EddyVocabulary

/// Writes imported samples into an Eddy flight: `t` in seconds since the time origin, Eddy units and axes.
///
/// Samples are batched per file and handed to `FlightLogWriter` in chunks. A sample stamped before the origin is
/// dropped and counted (the importers pick the earliest sample as origin, so this stays 0; docs/import.md).
final class FlightSink {
    /// Output precision: µs, µg, 1e-6 rad/s, 1e-4 hPa, 1e-8°, 1 mm — below every phone sensor's resolution, and
    /// written through the writer's fixed-decimal path (fast: no `Double.description` per value).
    static let resolution = FlightLogWriter.Resolution(
        timeDecimals: 6, accelerationDecimals: 6, rotationDecimals: 6, pressureDecimals: 4, angleDecimals: 8, otherDecimals: 3)

    let meta: FlightMeta
    private let writer: FlightLogWriter
    private var accelerometer: [AccelerometerSample] = []
    private var gyroscope: [GyroscopeSample] = []
    private var barometer: [BarometerSample] = []
    private var location: [LocationSample] = []
    /// Per kind (indexed by raw value): samples flushed, first and last t (fixed buffers: no exclusivity check per sample).
    private let counts: UnsafeMutablePointer<Int> = .allocate(capacity: 4)
    private let first: UnsafeMutablePointer<Double> = .allocate(capacity: 4)
    private let last: UnsafeMutablePointer<Double> = .allocate(capacity: 4)
    private(set) var droppedBeforeOrigin = 0
    private let kinds: Set<SensorFileKind>
    private static let batch = 4096

    /// A sink writing the flight directory `directory`, or into `memory` when given (the fuzz targets' entry point).
    init(directory: String, memory: InMemoryFlight? = nil, kinds: Set<SensorFileKind>, meta: FlightMeta) throws(ImportError) {
        self.meta = meta
        self.kinds = kinds
        do throws(SensorLogError) {
            if let memory {
                writer = try FlightLogWriter(memory: memory, meta: meta, files: kinds, resolution: Self.resolution)
            } else {
                writer = try FlightLogWriter(directory: directory, meta: meta, files: kinds, resolution: Self.resolution)
            }
        } catch {
            throw ImportError(writing: error)
        }
        accelerometer.reserveCapacity(Self.batch); gyroscope.reserveCapacity(Self.batch)
        counts.initialize(repeating: 0, count: 4)
        first.initialize(repeating: .nan, count: 4)
        last.initialize(repeating: .nan, count: 4)
    }

    deinit { counts.deallocate(); first.deallocate(); last.deallocate() }

    /// Samples written in total.
    var total: Int { (0..<4).reduce(0) { $0 + counts[$1] } + accelerometer.count + gyroscope.count + barometer.count + location.count }

    /// Per-file counts and spans (after `finish`).
    var sensors: [ImportSummary.Sensor] {
        SensorFileKind.allCases.filter { kinds.contains($0) }.map {
            ImportSummary.Sensor(kind: $0, samples: counts[$0.rawValue], firstT: first[$0.rawValue].isNaN ? nil : first[$0.rawValue],
                                 lastT: last[$0.rawValue].isNaN ? nil : last[$0.rawValue])
        }
    }

    @inline(__always)
    private func keep(_ t: Double, _ kind: SensorFileKind) -> Bool {
        if t < 0 { droppedBeforeOrigin += 1; return false }
        let index = kind.rawValue
        if first[index].isNaN { first[index] = t }
        last[index] = t
        return true
    }

    /// Adds an accelerometer sample (g, iOS sign: face-up at rest reads z ≈ −1).
    @inline(__always)
    func accelerometer(t: Double, x: Double, y: Double, z: Double) throws(ImportError) {
        guard keep(t, .accelerometer) else { return }
        accelerometer.append(AccelerometerSample(t: t, x: x, y: y, z: z))
        if accelerometer.count >= Self.batch { try flush(.accelerometer) }
    }

    /// Adds a gyroscope sample (rad/s).
    @inline(__always)
    func gyroscope(t: Double, x: Double, y: Double, z: Double) throws(ImportError) {
        guard keep(t, .gyroscope) else { return }
        gyroscope.append(GyroscopeSample(t: t, x: x, y: y, z: z))
        if gyroscope.count >= Self.batch { try flush(.gyroscope) }
    }

    /// Adds a barometer sample (hPa).
    func barometer(t: Double, hectopascals: Double) throws(ImportError) {
        guard keep(t, .barometer) else { return }
        barometer.append(BarometerSample(t: t, pressureHectopascals: hectopascals))
        if barometer.count >= Self.batch { try flush(.barometer) }
    }

    /// Adds a location fix.
    func location(_ fix: LocationSample) throws(ImportError) {
        guard keep(fix.t, .location) else { return }
        location.append(fix)
        if location.count >= Self.batch { try flush(.location) }
    }

    private func flush(_ kind: SensorFileKind) throws(ImportError) {
        do throws(SensorLogError) {
            switch kind {
            case .accelerometer:
                counts[kind.rawValue] += accelerometer.count
                try writer.append(accelerometer: accelerometer); accelerometer.removeAll(keepingCapacity: true)
            case .gyroscope:
                counts[kind.rawValue] += gyroscope.count
                try writer.append(gyroscope: gyroscope); gyroscope.removeAll(keepingCapacity: true)
            case .barometer:
                counts[kind.rawValue] += barometer.count
                try writer.append(barometer: barometer); barometer.removeAll(keepingCapacity: true)
            case .location:
                counts[kind.rawValue] += location.count
                try writer.append(location: location); location.removeAll(keepingCapacity: true)
            }
        } catch {
            throw ImportError(writing: error)
        }
    }

    /// Writes what is pending and closes the files.
    func finish() throws(ImportError) {
        for kind in SensorFileKind.allCases where kinds.contains(kind) { try flush(kind) }
        do throws(SensorLogError) { try writer.finish() } catch { throw ImportError(writing: error) }
    }
}

/// Unit constants used by the importers.
enum Units {
    /// Standard gravity, m/s² (CGPM 1901; the value Android's SensorManager.STANDARD_GRAVITY and Sensor Logger use).
    static let standardGravity = 9.80665
    /// Metres per foot (international foot).
    static let metersPerFoot = 0.3048
}

/// Tracks one stream's last time to refuse times going backwards with file:line.
struct Monotonic {
    private var last = -Double.infinity
    /// Whether `t` is a repeat of the last time (equal).
    @inline(__always)
    mutating func check(_ t: Double, _ reader: DelimitedReader, _ what: String) throws(ImportError) -> Bool {
        guard abs(t) <= FlightLogReader.maximumTimeMagnitudeSeconds else {
            throw reader.lineError(.badTime, "\(what) time \(t) s is beyond ±1e11 s from the recording's start",
                                   "Fix or delete the line (a time in ms or ns where the format has seconds?)")
        }
        if t < last {
            throw reader.lineError(.timeWentBackwards, "\(what) time \(t) is before the previous row's \(last)", "The rows must be in time order: sort the file by time, or delete the out-of-order lines")
        }
        let repeated = t == last
        last = t
        return repeated
    }
}
