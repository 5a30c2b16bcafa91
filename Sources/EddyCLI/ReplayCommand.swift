import ArgumentParser
import EddyCore
import EddyReplay
import EddySensorLog
import Foundation

/// `eddy replay FLIGHT`: runs a flight log through the detection pipeline.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a flight log through the turbulence detector and report what it found.",
        discussion: """
            Without --json: a readable report (truth comparison, position changes, minutes, tiles).
            With --json: JSON Lines, one event per line (position, minute, tile) and a summary last;
            byte-identical run after run. See docs/replay.md.
            """)

    @Argument(help: "Flight directory (meta.json, accelerometer.csv, …).")
    var flight: String

    @Flag(help: "Print JSON Lines instead of the report.")
    var json = false

    @Flag(help: "Skip and count bad lines instead of stopping at the first one.")
    var lenient = false

    @Option(name: .customLong("class"), help: "Use this aircraft class instead of meta.json's (small, medium, large).", transform: parseClass)
    var aircraftClass: AircraftClass?

    func run() async throws {
        let output = OutputBuffer()
        do {
            let replay = try FlightReplay(directory: flight, options: ReplayOptions(lenient: lenient, aircraftClass: aircraftClass))
            let viewer = replay.aircraftClass
            let summary = try replay.run { event in
                if json { output.line(ReplayJSON.line(for: event, viewer: viewer)) }
            }
            if json { output.line(ReplayJSON.summaryLine(summary)) } else { output.write(ReplayReport.text(summary)) }
            output.flush()
        } catch let error as SensorLogError {
            output.flush()
            let place = error.kind == .missingDirectory ? "" : "\(flight): "
            FileHandle.standardError.write(Data("eddy replay: \(place)\(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
