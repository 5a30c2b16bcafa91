import EddySensorLog
package import EddySimulation
package import EddyVocabulary
import Foundation

/// Streams a simulated flight into the sensor-log format.
package enum SimulatedFlightWriter {
    /// Simulates `scenario` chunk by chunk and writes it to `directory` (meta.json with the truth and the scenario's ISA
    /// deviation as the flight plan's, then the CSVs), at sensor resolution unless `exact`. Memory stays bounded for any length.
    /// A scenario that uses an altitude feature also gets `truth-track.csv` (the true track, full precision);
    /// otherwise a stale one from an earlier run is removed.
    package static func write(
        _ scenario: FlightScenario, to directory: String, timeOrigin: String? = "2026-11-22T10:00:00Z",
        aircraftType: String? = nil, exact: Bool = false
    ) throws {
        let truth = FlightSimulator.truth(for: scenario)
        var meta = FlightMeta(
            timeOrigin: timeOrigin,
            aircraft: .init(type: aircraftType ?? defaultType(scenario.aircraftClass), aircraftClass: scenario.aircraftClass),
            device: .init(model: "eddy simulate", pressurizedCabin: scenario.pressurizedCabin),
            truth: .init(
                turbulence: truth.turbulence.map { FlightMeta.Interval(start: $0.start, end: $0.end, edr: $0.edr) },
                handling: truth.handling.map { FlightMeta.Interval(start: $0.start, end: $0.end) },
                manoeuvres: truth.manoeuvres.map { FlightMeta.Interval(start: $0.start, end: $0.end, kind: $0.kind.rawValue) }))
        // The simulated air is ISA + the scenario's deviation wherever and whenever it flies; an EFB's flight plan would
        // give that deviation (with a forecast's 2 °C), so the replay judges a GNSS-only altitude in the world it is
        // in rather than in the date's and latitude's climatology (docs/altitude.md "Host hints").
        meta.flightPlan = FlightMeta.FlightPlan(plannedLevels: nil, clearedLevels: nil,
                                                isaDeviation: .init(celsius: scenario.isaDeviationCelsius))
        var files: Set<SensorFileKind> = [.accelerometer, .location]
        if scenario.includeGyroscope { files.insert(.gyroscope) }
        if scenario.includeBarometer { files.insert(.barometer) }
        let writer = try FlightLogWriter(directory: directory, meta: meta, files: files, resolution: exact ? nil : .sensor)
        let trackPath = directory.hasSuffix("/") ? directory + TruthTrack.fileName : directory + "/" + TruthTrack.fileName
        var track: TruthTrackFileWriter?
        if scenario.usesAltitudeFeatures {
            track = try TruthTrackFileWriter(directory: directory, conditions: scenario.truthConditions)
        } else if FileManager.default.fileExists(atPath: trackPath) {
            try? FileManager.default.removeItem(atPath: trackPath)
        }
        try FlightSimulator.simulate(scenario) { chunk in
            try track?.append(chunk.truth)
            try writer.append(location: chunk.location)
            try writer.append(accelerometer: chunk.accelerometer)
            if scenario.includeGyroscope { try writer.append(gyroscope: chunk.gyroscope) }
            if scenario.includeBarometer { try writer.append(barometer: chunk.barometer) }
        }
        try writer.finish()
        try track?.finish()
    }

    /// A representative ICAO type for a class (meta.json's aircraft.type).
    package static func defaultType(_ aircraftClass: AircraftClass) -> String {
        switch aircraftClass {
        case .small: "C172"
        case .medium: "B738"
        case .large: "B77W"
        }
    }
}
