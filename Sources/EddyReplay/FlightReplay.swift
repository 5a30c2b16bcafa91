package import EddyDetection
import EddyNavigation
package import EddySensorLog
import EddySupport
package import EddyVocabulary

/// Options of a replay.
package struct ReplayOptions: Sendable, Equatable {
    /// Skip and count bad lines instead of stopping at the first one.
    package var lenient: Bool
    /// Aircraft class to use instead of `meta.json`'s (response model and severity bands).
    package var aircraftClass: AircraftClass?
    /// ICAO type designator to fly instead of `meta.json`'s (its airframe and, without `aircraftClass`, its class).
    package var typeDesignator: String?
    /// Salt of the tile-report ids; nil derives it from the flight (`FlightReplay.flightSalt`).
    package var reportSalt: UInt64?
    /// Device mount to use instead of `meta.json`'s `device.mount` (default there: cradle).
    package var mount: DeviceMount?

    /// Creates options.
    package init(
        lenient: Bool = false, aircraftClass: AircraftClass? = nil, typeDesignator: String? = nil, reportSalt: UInt64? = nil,
        mount: DeviceMount? = nil
    ) {
        self.lenient = lenient
        self.aircraftClass = aircraftClass
        self.typeDesignator = typeDesignator
        self.reportSalt = reportSalt
        self.mount = mount
    }
}

/// Runs a flight log through the detection pipeline, streaming: samples are read, processed and
/// dropped; only the (few) events are kept for the summary.
///
/// Opening (the initializer) reads `meta.json` and the CSV headers, so callers know the flight and
/// the class in force before the first event; `run` then streams the samples once.
package final class FlightReplay {
    /// The flight directory.
    package let directory: String
    /// The options in use.
    package let options: ReplayOptions
    /// The flight's meta.json.
    package let meta: FlightMeta
    /// The class the pipeline runs with: the `--class` override, else the `--type` override's, else meta.json's.
    package let aircraftClass: AircraftClass
    /// The type designator the pipeline flies: the `--type` override, else meta.json's (nil: the class model).
    package let typeDesignator: String?
    /// The device mount in force: the `--mount` override, else meta.json's, else cradle.
    package let mount: DeviceMount
    private let reader: FlightLogReader
    private var used = false
    /// Samples taken from the reader at a time (about 70 KB of samples: stays in cache).
    static let readBatchSize = 512

    /// Opens a flight. Throws `SensorLogError` for a missing/bad meta.json, a missing or empty file, a bad header.
    package init(directory: String, options: ReplayOptions = ReplayOptions()) throws(SensorLogError) {
        self.directory = directory
        self.options = options
        reader = try FlightLogReader(directory: directory, options: .init(lenient: options.lenient))
        meta = reader.meta
        typeDesignator = options.typeDesignator.map { AircraftTypeTable.type(designator: $0)?.designator ?? $0 } ?? reader.meta.aircraft.type
        aircraftClass = options.aircraftClass
            ?? options.typeDesignator.flatMap { AircraftTypeTable.type(designator: $0)?.aircraftClass }
            ?? reader.meta.aircraft.aircraftClass
        mount = options.mount ?? reader.meta.device?.mount ?? .cradle
    }

    /// The report-id salt of a flight: FNV-1a 64 of the directory name, `time_origin` and aircraft.
    ///
    /// Report ids are name-based on (tile, enter time, salt), so replays of one flight give the same ids
    /// (uploads and stores stay idempotent) while two flights crossing a tile at the same log time don't collide.
    package static func flightSalt(directoryName: String, meta: FlightMeta) -> UInt64 {
        FNV1a.hash64([directoryName, meta.timeOrigin ?? "", meta.aircraft.type ?? "", meta.aircraft.aircraftClass.rawValue])
    }

    /// Streams the flight through the pipeline. `onEvent` sees every event in order as it happens
    /// (JSON Lines output, a store); the summary holds them too, plus counts and the truth comparison.
    /// Throws `SensorLogError` on bad input (after the events before it were delivered), or what `onEvent` throws: two
    /// sources, so the error stays untyped. Runs once.
    package func run(onEvent: (DetectionEvent) throws -> Void = { _ in }) throws -> ReplaySummary {
        precondition(!used, "FlightReplay.run may be called once")
        used = true
        var configuration = DetectionConfiguration(aircraftClass: aircraftClass, typeDesignator: typeDesignator)
        configuration.reportSalt = options.reportSalt ?? Self.flightSalt(directoryName: Self.lastPathComponent(directory), meta: meta)
        configuration.mount = mount
        var detection = NavigatedDetection(configuration: configuration)
        var collector = EventCollector()
        var events: [DetectionEvent] = []
        events.reserveCapacity(16)
        var firstTime: Double?
        var lastTime = 0.0
        // Samples come from the reader in batches: one exclusive access to its state per batch, not per sample.
        var batch: [SensorSample] = []
        batch.reserveCapacity(Self.readBatchSize)
        while true {
            batch.removeAll(keepingCapacity: true)
            let readError = reader.next(upTo: Self.readBatchSize, into: &batch)
            for sample in batch {
                if firstTime == nil { firstTime = sample.t }
                detection.process(sample, into: &events)
                if !events.isEmpty {
                    for event in events {
                        collector.add(event)
                        try onEvent(event)
                    }
                    events.removeAll(keepingCapacity: true)
                }
                lastTime = sample.t
            }
            if let readError { throw readError }
            if batch.count < Self.readBatchSize { break }
        }
        detection.finish(into: &events)
        for event in events {
            collector.add(event)
            try onEvent(event)
        }
        var summary = ReplaySummary(
            flightName: Self.lastPathComponent(directory), meta: meta, aircraftClass: aircraftClass,
            sampleCounts: reader.sampleCounts, firstTime: firstTime, lastTime: firstTime == nil ? nil : lastTime,
            positions: collector.positions, minutes: collector.minutes, tiles: collector.tiles,
            skippedLines: reader.skippedLines, segments: [], altitude: collector.altitude, warnings: collector.warnings,
            notices: collector.notices, mount: mount)
        summary.typeDesignator = typeDesignator
        summary.segments = TruthComparison.segments(summary: summary)
        return summary
    }

    /// Opens and replays in one call.
    package static func run(
        directory: String, options: ReplayOptions = ReplayOptions(),
        onEvent: (DetectionEvent) throws -> Void = { _ in }
    ) throws -> ReplaySummary {
        try FlightReplay(directory: directory, options: options).run(onEvent: onEvent)
    }

    /// The directory's name (so output does not depend on where the flight lives).
    static func lastPathComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed.split(separator: "/").last.map(String.init) ?? String(trimmed)
    }
}

/// Keeps the events of a replay, by kind.
struct EventCollector {
    var positions: [PositionEvent] = []
    var minutes: [MinuteEvent] = []
    var tiles: [TileReport] = []
    var warnings: [ConsistencyWarning] = []
    var notices: [MeasurementNotice] = []
    var altitude = AltitudeTally()

    mutating func add(_ event: DetectionEvent) {
        switch event {
        case .position(let p): positions.append(p)
        case .minute(let m): minutes.append(m)
        case .tile(let t): tiles.append(t)
        case .altitude(let a): altitude.add(a)
        case .warning(let w): warnings.append(w)
        case .notice(let n): if n.phase == .ended { notices.append(n) }
        }
    }
}
