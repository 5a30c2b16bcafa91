#if Tools
import ArgumentParser
import EddyServerKit
import Foundation

/// `eddy-server ingest-pilot-reports <file|folder>…`: reads PIREPs and AIREPs (raw text lines or the AWC
/// aircraft-report CSV) into the server's database (docs/nowcast.md "Pilot reports").
struct IngestPilotReports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest-pilot-reports",
        abstract: "Store PIREPs and AIREPs from files or folders (raw report lines or the AWC aircraft-report CSV).",
        discussion: """
            Every line that cannot be used is printed as FILE:LINE: what is wrong; what to do, and counted. Reports already \
            stored are counted, not stored again. Exit status 1 only when nothing could be read.
            """)
    @OptionGroup var database: DatabaseOption
    @OptionGroup var pilotReports: PilotReportOptions
    @Argument(help: "Files or folders of reports.") var paths: [String]

    func run() async throws {
        let stations = try pilotReports.stationTable()
        let reference = try pilotReports.reference()
        let summary = try await database.with { storage -> PilotReportIngestSummary in
            guard let reportStorage = storage as? any PilotReportStorage else {
                throw ValidationError("this database backend cannot store pilot reports")
            }
            return await PilotReportIngester(storage: reportStorage, stations: stations, referenceTime: reference).ingest(paths: paths)
        }
        for line in summary.errors + summary.unreadable { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
        print(summary.line)
        if summary.nothingRead { throw ExitCode(1) }
    }
}

/// The options of pilot-report ingest, shared by `ingest-pilot-reports` and `serve --pilot-reports-folder`.
struct PilotReportOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Station table for /OV locations relative to a station: CSV with id,latitude_deg,longitude_deg[,variation_deg] (OurAirports' navaids columns work).",
        valueName: "csv"))
    var stations: String?
    @Option(help: ArgumentHelp(
        "Date raw reports' /TM hhmm times on the last day not after this ISO 8601 UTC time (default: each file's modification time).",
        valueName: "time"))
    var referenceTime: String?

    /// The station table, when given; a table that cannot be read stops the command with its file and line.
    func stationTable() throws -> StationTable? { try Self.stationTable(path: stations) }

    /// The station table at `path` (nil for none); errors name the file and line.
    static func stationTable(path: String?) throws -> StationTable? {
        guard let stations = path else { return nil }
        let text: String
        do { text = try String(contentsOfFile: stations, encoding: .utf8) } catch {
            throw ValidationError("--stations \(stations) cannot be read: \(error.localizedDescription)")
        }
        do { return try StationTable(csv: text, source: stations) } catch { throw ValidationError("\(error)") }
    }

    /// The reference time, when given.
    func reference() throws -> Double? {
        guard let referenceTime else { return nil }
        guard let time = AircraftReportCSV.instant(referenceTime) else {
            throw ValidationError("--reference-time \(referenceTime) is not an ISO 8601 UTC time such as 2022-09-01T06:00:00Z")
        }
        return time
    }
}
#endif
