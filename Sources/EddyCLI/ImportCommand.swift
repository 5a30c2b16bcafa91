#if Tools
import ArgumentParser
import EddyDetection
import EddyGeoid
import EddyImport
import EddyNavigation
import EddyReplay
import EddySensorLog
import EddyVocabulary
import Foundation

/// `eddy import SOURCE OUTDIR`: turns another app's sensor export into an Eddy flight.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a sensor-app export (SensorLog, Sensor Logger, phyphox, AndroSensor, Physics Toolbox, IGC) as an Eddy flight.",
        discussion: """
            SOURCE is an export file, an export folder or a .zip. The format is detected from file names and
            header rows unless --format says it. Prints what was recognised (format, sensors, rows, time span,
            unit mapping). Units, axes and time bases per format: docs/import.md.
            """)

    @Argument(help: "Export file, folder or .zip.")
    var source: String

    @Argument(help: "Flight directory to write (created; its CSV files are replaced).")
    var outdir: String

    @Option(help: "auto, \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: String = "auto"

    @Option(name: .customLong("class"), help: "Aircraft class for meta.json: small, medium, large.", transform: parseClass)
    var aircraftClass: AircraftClass = .small

    @Option(help: "ICAO aircraft type designator for meta.json (e.g. C172).")
    var type: String?

    @Option(help: "How the device was installed, for meta.json's device.mount: cradle (tablet or phone; flat = lying on a seat) or fixed (AHRS, logger, panel mount; flat is correct). Default: none written (replay reads cradle).",
            transform: parseMount)
    var mount: DeviceMount?

    func validate() throws {
        if format != "auto", ImportFormat(rawValue: format) == nil {
            throw ValidationError("--format \(format) is not one of auto, \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let progress = ProgressReporter(label: "import")
        do {
            let summary = try Self.importExport(
                source: source, to: outdir, format: format, aircraftClass: aircraftClass, type: type, mount: mount, progress: progress)
            progress.finish()
            print("imported \(source) → \(outdir)" + (mount.map { " (device.mount \($0.rawValue))" } ?? ""))
            print(summary.text, terminator: "")
        } catch {
            progress.finish()
            FileHandle.standardError.write(Data("eddy import: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Runs an import with the EGM96 geoid for ellipsoidal heights and a progress reporter.
    static func importExport(source: String, to outdir: String, format: String, aircraftClass: AircraftClass, type: String?,
                             mount: DeviceMount? = nil, progress: ProgressReporter) throws -> ImportSummary {
        var options = ImportOptions(format: ImportFormat(rawValue: format), aircraftClass: aircraftClass, aircraftType: type)
        options.mount = mount
        options.geoidUndulationMeters = { EGM96.undulationMeters(latitudeDegrees: $0, longitudeDegrees: $1) }
        if progress.enabled { options.progress = { progress.update(done: Double($0) / 1e6, total: Double($1) / 1e6, unit: "MB") } }
        return try FlightImport.run(source: source, to: outdir, options: options)
    }
}

/// A replay input that is not an Eddy flight: imported to a temporary directory first (removed afterwards).
final class ImportedFlight {
    /// The flight directory to replay.
    let directory: String
    /// The temporary directory holding the import (nil: `path` was an Eddy flight), removed with this object.
    private let temporaryParent: String?

    /// `path` itself when it is an Eddy flight (a directory with meta.json), else an import of it; says on stderr
    /// what it recognised.
    init(path: String, json: Bool) throws {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !exists || (isDirectory.boolValue && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("meta.json"))) {
            directory = path; temporaryParent = nil
            return
        }
        // A directory named after the export (the replay report shows the flight's name), inside a unique temporary one.
        let parent = NSTemporaryDirectory() + "eddy-import-" + UUID().uuidString
        let base = TextFastPaths.deletingExtension(TextFastPaths.baseName(path))
        let target = (parent as NSString).appendingPathComponent(base.isEmpty ? "flight" : base)
        let progress = ProgressReporter(label: "import", allowed: !json)
        do {
            let summary = try ImportCommand.importExport(source: path, to: target, format: "auto", aircraftClass: .small, type: nil, progress: progress)
            progress.finish()
            let text = summary.text.split(separator: "\n").map { "eddy replay: " + $0 }.joined(separator: "\n")
            FileHandle.standardError.write(Data("eddy replay: \(path) is not an Eddy flight; imported it:\n\(text)\n".utf8))
        } catch {
            progress.finish()
            try? FileManager.default.removeItem(atPath: parent)
            throw error
        }
        directory = target; temporaryParent = parent
    }

    deinit { if let temporaryParent { try? FileManager.default.removeItem(atPath: temporaryParent) } }
}

/// The first and last `t` of a flight's accelerometer.csv (its second line and its tail; `t` is its first column
/// in what Eddy writes), for replay progress; nil when unknown.
enum FlightLength {
    static func span(directory: String) -> (first: Double, last: Double)? {
        let path = (directory as NSString).appendingPathComponent("accelerometer.csv")
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        func firstCell(_ line: Substring?) -> Double? { line?.split(separator: ",").first.flatMap { Double($0) } }
        guard let head = try? handle.read(upToCount: 4096) else { return nil }
        let first = firstCell(String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().first)
        guard let size = try? handle.seekToEnd(), size > 0 else { return nil }
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        guard let tail = try? handle.readToEnd() else { return nil }
        guard let first, let last = firstCell(String(decoding: tail, as: UTF8.self).split(whereSeparator: \.isNewline).last), last > first else { return nil }
        return (first, last)
    }
}

/// Replay progress from the events' times (altitude estimates about once a second, minutes).
struct ReplayProgress {
    let reporter: ProgressReporter
    let span: (first: Double, last: Double)?

    init(directory: String, json: Bool) {
        reporter = ProgressReporter(label: "replay", allowed: !json)
        span = reporter.enabled ? FlightLength.span(directory: directory) : nil
    }

    func event(_ event: DetectionEvent) {
        guard let span else { return }
        let t: Double
        switch event {
        case .altitude(let a): t = a.t
        case .minute(let m): t = m.t
        default: return
        }
        reporter.update(done: t - span.first, total: span.last - span.first, unit: "s of flight")
    }
}
#endif
