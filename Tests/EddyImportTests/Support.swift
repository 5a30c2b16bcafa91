import EddySensorLog
import EddyVocabulary
import Foundation
import Testing
@testable import EddyImport

/// Paths of the import fixtures (written by scripts/make-import-fixtures.py).
enum ImportFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

/// A fresh temporary directory, removed when released.
final class TempDirectory {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "eddy-import-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the directory.
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Writes bytes to a file inside the directory.
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let full = file(name)
        try? FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
        return full
    }
}

/// Output resolution of EddyImport (FlightSink.resolution): half a unit of the last written decimal.
enum Resolution {
    static let time = 0.5e-6
    static let acceleration = 0.5e-6
    static let rotation = 0.5e-6
    static let pressure = 0.5e-4
    static let angle = 0.5e-8
    static let meters = 0.5e-3
}

/// Samples of one Eddy file, in file order.
func samples(of all: [SensorSample], _ kind: SensorFileKind) -> [SensorSample] {
    all.filter { SensorFileKind($0) == kind }
}

/// Whether two optional values agree within `tolerance` (both nil counts as agreeing).
func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case let (x?, y?): abs(x - y) <= tolerance * (1 + 1e-9) + 1e-12 * max(abs(x), abs(y))
    default: false
    }
}

/// Imports `source` into a temporary flight and compares it with the expected flight, sample by sample.
func expectRoundTrip(_ source: String, expected: String, format: ImportFormat? = nil, options: ImportOptions = ImportOptions(),
                     timeTolerance: Double = Resolution.time, sourceLocation: SourceLocation = #_sourceLocation) throws -> ImportSummary {
    let out = TempDirectory()
    var options = options
    options.format = format
    let summary = try FlightImport.run(source: source, to: out.path, options: options)
    let got = try FlightLogReader.readAll(directory: out.path)
    let want = try FlightLogReader.readAll(directory: expected)
    #expect(got.meta.timeOrigin == want.meta.timeOrigin, "time_origin", sourceLocation: sourceLocation)
    for kind in SensorFileKind.allCases {
        let a = samples(of: got.samples, kind), b = samples(of: want.samples, kind)
        #expect(a.count == b.count, "\(kind.fileName): \(a.count) samples, expected \(b.count)", sourceLocation: sourceLocation)
        var mismatches = 0
        for (x, y) in zip(a, b) where !agree(x, y, timeTolerance: timeTolerance) {
            mismatches += 1
            if mismatches <= 3 { Issue.record("\(kind.fileName): got \(x), expected \(y)", sourceLocation: sourceLocation) }
        }
        #expect(mismatches == 0, "\(kind.fileName): \(mismatches) samples differ", sourceLocation: sourceLocation)
    }
    // No sample before the origin, and the origin is the earliest sample.
    #expect(got.samples.allSatisfy { $0.t >= 0 }, sourceLocation: sourceLocation)
    if let first = got.samples.map(\.t).min() { #expect(first == 0, "earliest sample at t = \(first)", sourceLocation: sourceLocation) }
    #expect(summary.droppedBeforeOrigin == 0, sourceLocation: sourceLocation)
    return summary
}

/// Whether two samples agree within the output resolution.
func agree(_ a: SensorSample, _ b: SensorSample, timeTolerance: Double) -> Bool {
    guard close(a.t, b.t, timeTolerance) else { return false }
    switch (a, b) {
    case let (.accelerometer(x), .accelerometer(y)):
        return close(x.x, y.x, Resolution.acceleration) && close(x.y, y.y, Resolution.acceleration) && close(x.z, y.z, Resolution.acceleration)
    case let (.gyroscope(x), .gyroscope(y)):
        return close(x.x, y.x, Resolution.rotation) && close(x.y, y.y, Resolution.rotation) && close(x.z, y.z, Resolution.rotation)
    case let (.barometer(x), .barometer(y)):
        return close(x.pressureHectopascals, y.pressureHectopascals, Resolution.pressure)
    case let (.location(x), .location(y)):
        return close(x.latitudeDegrees, y.latitudeDegrees, Resolution.angle) && close(x.longitudeDegrees, y.longitudeDegrees, Resolution.angle)
            && close(x.altitudeMeters, y.altitudeMeters, Resolution.meters) && close(x.horizontalAccuracyMeters, y.horizontalAccuracyMeters, Resolution.meters)
            && close(x.verticalAccuracyMeters, y.verticalAccuracyMeters, Resolution.meters)
            && close(x.speedMetersPerSecond, y.speedMetersPerSecond, Resolution.meters) && close(x.courseDegrees, y.courseDegrees, Resolution.meters)
            && close(x.pressureAltitudeFeet, y.pressureAltitudeFeet, Resolution.meters) && x.source == y.source
    default:
        return false
    }
}

/// The ImportError thrown by an import (nil when it succeeds).
func importError(_ source: String, format: ImportFormat? = nil) -> ImportError? {
    let out = TempDirectory()
    return importError { _ = try FlightImport.run(source: source, to: out.path, options: ImportOptions(format: format)) }
}

/// The ImportError thrown importing a folder held in memory (`files`: name → text) as `format` (nil when it succeeds).
func importError(memory files: [String: String], format: ImportFormat) -> ImportError? {
    importError {
        _ = try FlightImport.run(ExportSource(folder: "export", files: files.mapValues { Array($0.utf8) }), to: InMemoryFlight(),
                                 options: ImportOptions(format: format))
    }
}

/// The ImportError `run` throws (nil when it throws nothing; any other error is recorded as an issue).
func importError(_ run: () throws -> Void) -> ImportError? {
    do {
        try run()
        return nil
    } catch let error as ImportError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}
