package import EddySensorLog
package import EddyVocabulary
import Foundation

/// The export formats Eddy imports (docs/import.md).
package enum ImportFormat: String, CaseIterable, Sendable {
    /// SensorLog (iOS, Bernd Thomas): one wide CSV, g and rad/s, boot-relative sensor stamps.
    case sensorlog
    /// Sensor Logger (Kelvin Choi, iOS and Android): one CSV per sensor, in a folder or a .zip, epoch nanoseconds.
    case sensorlogger
    /// phyphox (RWTH Aachen): CSV export, one file per sensor, seconds since the experiment started.
    case phyphox
    /// AndroSensor (Android): one wide `;`-separated CSV, m/s², milliseconds since start.
    case androsensor
    /// Physics Toolbox Sensor Suite (Vieyra Software): one wide CSV, g-force and rad/s.
    case physicstoolbox
    /// IGC flight recorder files (FAI): B records with GNSS and pressure altitude.
    case igc

    /// The app's name as people know it.
    package var displayName: String {
        switch self {
        case .sensorlog: "SensorLog (iOS)"
        case .sensorlogger: "Sensor Logger"
        case .phyphox: "phyphox"
        case .androsensor: "AndroSensor"
        case .physicstoolbox: "Physics Toolbox Sensor Suite"
        case .igc: "IGC flight log"
        }
    }

    /// What identifies the format (files and tell-tale columns), for the unknown-format message.
    package var tellTale: String {
        switch self {
        case .sensorlog: "one CSV with loggingTime(txt), accelerometerTimestamp_sinceReboot(s), accelerometerAccelerationX(G)…"
        case .sensorlogger: "Accelerometer.csv / Gyroscope.csv / Location.csv with time, seconds_elapsed, z, y, x (folder or .zip)"
        case .phyphox: "Accelerometer.csv with \"Time (s)\", \"Acceleration x (m/s^2)\" (or \"X (m/s^2)\"), meta/time.csv"
        case .androsensor: "one ;-separated CSV with ACCELEROMETER X (m/s²), Time since start in ms, optional sep=; line"
        case .physicstoolbox: "one CSV with time, gFx, gFy, gFz (and wx, wy, wz, p, Latitude, Longitude)"
        case .igc: ".igc file with an A record, HFDTE date and B fix records"
        }
    }

    var importer: any FormatImporter.Type {
        switch self {
        case .sensorlog: SensorLogImporter.self
        case .sensorlogger: SensorLoggerImporter.self
        case .phyphox: PhyphoxImporter.self
        case .androsensor: AndroSensorImporter.self
        case .physicstoolbox: PhysicsToolboxImporter.self
        case .igc: IGCImporter.self
        }
    }
}

/// One importer per format: a confidence from file names and headers, and a streaming import into a `FlightSink`.
protocol FormatImporter {
    /// The format handled.
    static var format: ImportFormat { get }
    /// 0 (certainly not) … 1 (certainly this format), from file names and header rows only.
    static func confidence(_ source: ExportSource) -> Double
    /// Streams the export into the flight (calls `context.begin` once it knows the sensors and the time origin).
    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError)
}

/// Options of an import.
package struct ImportOptions {
    /// The format, or nil to detect it.
    package var format: ImportFormat?
    /// The aircraft class written to meta.json (the export does not know it).
    package var aircraftClass: AircraftClass
    /// ICAO type designator written to meta.json, if known.
    package var aircraftType: String?
    /// Geoid undulation N (metres, EGM96) at a latitude/longitude, to turn ellipsoidal GNSS heights (Sensor Logger's
    /// `altitude`, IGC GNSS altitude) into MSL (h − N). Without it such heights are left out (alt_m empty).
    package var geoidUndulationMeters: ((Double, Double) -> Double?)?
    /// Called with (bytes read, total bytes) as the import goes.
    package var progress: ((Int, Int) -> Void)?
    /// How the recording device was installed, written to meta.json's device.mount; nil writes no device block.
    package var mount: DeviceMount?

    /// Creates options.
    package init(format: ImportFormat? = nil, aircraftClass: AircraftClass = .small, aircraftType: String? = nil,
                geoidUndulationMeters: ((Double, Double) -> Double?)? = nil, progress: ((Int, Int) -> Void)? = nil,
                mount: DeviceMount? = nil) {
        self.format = format; self.aircraftClass = aircraftClass; self.aircraftType = aircraftType
        self.geoidUndulationMeters = geoidUndulationMeters; self.progress = progress; self.mount = mount
    }
}

/// What an import recognised and wrote.
package struct ImportSummary: Sendable {
    /// Rows written to one Eddy file.
    package struct Sensor: Sendable, Equatable {
        /// The Eddy file.
        package var kind: SensorFileKind
        /// Samples written.
        package var samples: Int
        /// First and last `t`, seconds since the time origin.
        package var firstT: Double?
        /// Last `t`.
        package var lastT: Double?
    }
    /// The format read.
    package var format: ImportFormat
    /// The export files read, with what they became.
    package var filesRead: [String]
    /// Per Eddy file: samples and time span.
    package var sensors: [Sensor]
    /// meta.json's time_origin (the earliest sample).
    package var timeOrigin: String
    /// How each quantity was converted (one line each: source column/unit → Eddy column/unit).
    package var unitMappings: [String]
    /// Anything the user should know (assumed zones, dropped values, placeholders).
    package var notes: [String]
    /// Samples dropped because they were stamped before the time origin (should be 0: see docs/import.md).
    package var droppedBeforeOrigin: Int

    /// Total samples written.
    package var totalSamples: Int { sensors.reduce(0) { $0 + $1.samples } }
    /// Seconds from the first to the last sample.
    package var spanSeconds: Double {
        let firsts = sensors.compactMap(\.firstT), lasts = sensors.compactMap(\.lastT)
        guard let first = firsts.min(), let last = lasts.max() else { return 0 }
        return last - first
    }

    /// A readable multi-line description.
    package var text: String {
        var lines = ["format: \(format.displayName) (\(format.rawValue))", "files: \(filesRead.map(LocatedErrorText.printableName).joined(separator: ", "))"]
        lines.append("time_origin: \(timeOrigin) (earliest sample)")
        lines.append(String(format: "span: %.3f s, %d samples", spanSeconds, totalSamples))
        for sensor in sensors {
            let span = sensor.firstT.flatMap { f in sensor.lastT.map { String(format: " t %.3f…%.3f s", f, $0) } } ?? ""
            lines.append("  \(sensor.kind.fileName): \(sensor.samples) rows\(span)")
        }
        if !unitMappings.isEmpty { lines.append("units:"); lines += unitMappings.map { "  " + $0 } }
        if droppedBeforeOrigin > 0 { lines.append("dropped before time_origin: \(droppedBeforeOrigin)") }
        if !notes.isEmpty { lines.append("notes:"); lines += notes.map { "  " + $0 } }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Shared state of one import: options, notes, the sink once the importer knows sensors and origin.
final class ImportContext {
    let options: ImportOptions
    let outputDirectory: String
    /// The in-memory flight written instead of `outputDirectory` (the fuzz targets' entry point), or nil.
    let memory: InMemoryFlight?
    var unitMappings: [String] = []
    var notes: [String] = []
    /// The type designator meta.json gets: the `--type` option, or what an importer found in the export.
    lazy var aircraftType: String? = options.aircraftType
    var filesRead: [String] = []
    private(set) var sink: FlightSink?
    private var bytesDone = 0
    private var bytesTotal = 0

    init(options: ImportOptions, outputDirectory: String, memory: InMemoryFlight? = nil) {
        self.options = options
        self.outputDirectory = outputDirectory
        self.memory = memory
    }

    /// Sets the total byte count for progress.
    func expectBytes(_ total: Int) { bytesTotal = max(total, 1) }

    /// Adds consumed bytes and reports progress.
    func consumed(_ count: Int) {
        bytesDone += count
        options.progress?(bytesDone, bytesTotal)
    }

    /// A reader for one file of the export, wired to progress.
    func reader(_ source: ExportSource, _ name: String) throws(ImportError) -> DelimitedReader {
        let reader = DelimitedReader(source: try source.open(name), file: source.displayName(name))
        reader.onBytes = { [unowned self] in consumed($0) }
        if !filesRead.contains(name) { filesRead.append(name) }
        return reader
    }

    /// Creates the flight: `originEpochSeconds` becomes time_origin (nil: none known, a placeholder is written).
    func begin(kinds: Set<SensorFileKind>, originEpochSeconds: Double?) throws(ImportError) -> FlightSink {
        var files = kinds
        files.insert(.accelerometer)
        let origin: String
        if let originEpochSeconds {
            // Years 1…9999 (what an ISO 8601 date can say); anything else is a time column in the wrong unit.
            guard originEpochSeconds.isFinite, (-62_135_596_800.0...253_402_300_799.0).contains(originEpochSeconds) else {
                throw ImportError(kind: .badTime, file: filesRead.first ?? outputDirectory,
                                  message: "the first time stamp, \(originEpochSeconds) s since 1970, is not a date between the years 1 and 9999",
                                  advice: "Check the time column's unit (seconds, milliseconds or nanoseconds since 1970) and fix or delete the line")
            }
            origin = TimeParsing.isoString(epochSeconds: originEpochSeconds)
        } else {
            origin = "2000-01-01T00:00:00Z"
            notes.append("the export carries no wall-clock time: time_origin is a placeholder (2000-01-01T00:00:00Z); t is exact relative time")
        }
        let meta = FlightMeta(
            timeOrigin: origin, aircraft: .init(type: aircraftType, aircraftClass: options.aircraftClass),
            device: options.mount.map { FlightMeta.Device(mount: $0) }, truth: nil)
        let sink = try FlightSink(directory: outputDirectory, memory: memory, kinds: files, meta: meta)
        self.sink = sink
        return sink
    }
}

/// Entry point: detect the format, import an export into an Eddy flight directory.
package enum FlightImport {
    /// Every format's confidence for a source, best first.
    package static func detect(_ source: ExportSource) -> [(format: ImportFormat, confidence: Double)] {
        ImportFormat.allCases.map { ($0, $0.importer.confidence(source)) }.sorted { $0.1 > $1.1 }
    }

    /// The list of known formats with their tell-tale files and columns (for the unknown-format message).
    package static var knownFormatsText: String {
        ImportFormat.allCases.map { "  \($0.rawValue) (\($0.displayName)): \($0.tellTale)" }.joined(separator: "\n")
    }

    /// Imports `sourcePath` (a file, a folder or a .zip) into the flight directory `outputDirectory`.
    package static func run(source sourcePath: String, to outputDirectory: String, options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportSummary {
        try run(try ExportSource(path: sourcePath), context: ImportContext(options: options, outputDirectory: outputDirectory))
    }

    /// The same import from a source held in memory (`ExportSource(name:bytes:)`) into a flight held in memory: the
    /// fuzz targets' entry point (docs/reliability.md §7). Detection, importers, checks and errors are the code
    /// `run(source:to:options:)` runs; only the system calls that read the export and write the flight are replaced.
    package static func run(_ source: ExportSource, to flight: InMemoryFlight, options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportSummary {
        try run(source, context: ImportContext(options: options, outputDirectory: flight.label, memory: flight))
    }

    private static func run(_ source: ExportSource, context: ImportContext) throws(ImportError) -> ImportSummary {
        let sourcePath = source.path
        let options = context.options
        // Every importer reads the source's files; an empty folder or zip (with `--format` forced, detection is skipped)
        // reached `fileNames[0]` and trapped (a fuzz finding, docs/reliability.md §7).
        guard !source.fileNames.isEmpty else {
            throw ImportError(kind: .noSamples, file: TextFastPaths.baseName(sourcePath), message: "holds no files",
                              advice: "Pass the export: its file, or the folder or .zip holding its files")
        }
        let format: ImportFormat
        if let chosen = options.format {
            format = chosen
        } else {
            guard let best = detect(source).first, best.confidence >= 0.5 else {
                // The names are the export's (zip entries, folder files): their control bytes escaped.
                let sample = source.fileNames.prefix(6).map(LocatedErrorText.printableName).joined(separator: ", ")
                let header = source.fileNames.first.flatMap { source.headerLine($0) }.map { " (header: \(Excerpt.escaped($0.utf8, limit: 80)))" } ?? ""
                throw ImportError(
                    kind: .unknownFormat, file: TextFastPaths.baseName(sourcePath),
                    message: "is not an export Eddy recognises (files: \(sample))\(header)",
                    advice: "Known formats and their tell-tale files and columns:\n\(knownFormatsText)\nPass --format to force one, or convert the file to an Eddy flight (docs/sensor-log.md)")
            }
            format = best.format
        }
        try format.importer.run(source, context)
        guard let sink = context.sink else {
            throw ImportError(kind: .noSamples, file: TextFastPaths.baseName(sourcePath), message: "holds no sensor sample", advice: "Check that the recording has data")
        }
        try sink.finish()
        guard sink.total > 0 else {
            throw ImportError(kind: .noSamples, file: TextFastPaths.baseName(sourcePath), message: "holds no sensor sample after its header(s)", advice: "Check that the recording has data")
        }
        return ImportSummary(
            format: format, filesRead: context.filesRead, sensors: sink.sensors, timeOrigin: sink.meta.timeOrigin ?? "",
            unitMappings: context.unitMappings, notes: context.notes, droppedBeforeOrigin: sink.droppedBeforeOrigin)
    }
}
