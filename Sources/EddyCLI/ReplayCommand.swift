import ArgumentParser
import EddyCore
import EddyReplay
import EddySensorLog
import EddyStore
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

    @Option(help: "Store the flight's tile reports (own-report outbox) in this Eddy store file; created if absent.")
    var db: String?

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
            if let db { try storeReports(summary, path: db) }
        } catch let error as StoreError {
            output.flush()
            FileHandle.standardError.write(Data("eddy replay: store \(db ?? ""): \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as SensorLogError {
            output.flush()
            let place = error.kind == .missingDirectory ? "" : "\(flight): "
            FileHandle.standardError.write(Data("eddy replay: \(place)\(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Writes the replay's tile reports (epoch times) into the store's outbox; says what it did on stderr,
    /// so `--json` output stays pure.
    private func storeReports(_ summary: ReplaySummary, path: String) throws {
        let store = try EddyStore.open(path: path)
        if let notice = store.openOutcome.notice {
            FileHandle.standardError.write(Data("eddy replay: \(notice)\n".utf8))
        }
        let reports = summary.tileReportsInEpochTime
        let inserted = try store.insertOwnReports(reports)
        try store.close()
        FileHandle.standardError.write(Data(
            "eddy replay: stored \(inserted) new of \(reports.count) tile reports in \(path)\n".utf8))
    }
}
