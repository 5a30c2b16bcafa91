#if Tools
import Foundation
import Testing

@testable import EddyServerKit

/// The built `eddy-server ingest-forecast`: per-message errors on standard error, the summary, the same cells after a
/// second run, exit status 1 only when nothing could be read.
@Suite struct ForecastGridServerTests {
    @Test func ingestCommandReportsEveryBadMessageAndIsIdempotent() async throws {
        let scratch = try OperatorCommandTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let database = scratch + "/s.sqlite"
        let bad = ForecastGridReaderTests.fixture("bad-messages.grib2")
        let arguments = ["ingest-forecast", "--db", database, ForecastGridReaderTests.fixture("wafs-egrr-isobaric.grib2"),
                         ForecastGridReaderTests.fixture("gtg-kwbc-altitude.grib2"), bad]
        let first = try await OperatorCommandTests.run(arguments)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("forecast grids: 3 file(s), 15 message(s): 12 EDR field(s) read,"), "\(first.out)")
        #expect(first.out.contains("1 other field(s) skipped, 2 message error(s), 0 unreadable file(s)"), "\(first.out)")
        let errorLines = first.err.split(separator: "\n").filter { $0.hasPrefix(bad + ": message ") }
        #expect(errorLines.count == 2, "\(first.err)")
        let storage = try SQLiteServerStorage(path: database)
        let count = try await storage.forecastCellCount()
        #expect(count > 0 && first.out.contains("\(count) cell(s) stored"), "\(first.out)")
        let again = try await OperatorCommandTests.run(arguments)
        #expect(again.status == 0 && again.out.contains("\(count) cell(s) stored"), "\(again.out)")
        #expect(try await storage.forecastCellCount() == count)

        let missing = try await OperatorCommandTests.run(["ingest-forecast", "--db", database, scratch + "/none.grib2"])
        #expect(missing.status == 1 && missing.err.contains("none.grib2: no such file or folder"), "\(missing)")
        let onlyBad = try await OperatorCommandTests.run(["ingest-forecast", "--db", database, bad])
        #expect(onlyBad.status == 1 && onlyBad.err.contains(": message 1: level type 1"), "\(onlyBad)")
    }

    /// A real server process watching a folder (polled every 0.2 s): a GRIB2 file dropped in is stored, a second one
    /// too, a file written again with the same messages adds nothing.
    @Test func serverIngestsForecastFilesDroppedIntoItsFolder() async throws {
        let scratch = try OperatorCommandTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/forecasts"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let database = scratch + "/s.sqlite"
        let (server, _) = try await OperatorCommandTests.serve([
            "serve", "--db", database, "--port", "0", "--forecast-folder", folder, "--forecast-poll-seconds", "0.2",
        ])
        let storage = try SQLiteServerStorage(path: database)
        func waitForCount(_ expected: Int) async throws -> Int {
            var count = -1
            for _ in 0..<300 {
                count = try await storage.forecastCellCount()
                if count == expected { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            return count
        }
        let wafs = try ForecastGridIngester.read(file: ForecastGridReaderTests.fixture("wafs-egrr-isobaric.grib2"), product: nil, minimumEDR: 0)
        let gtg = try ForecastGridIngester.read(file: ForecastGridReaderTests.fixture("gtg-kwbc-altitude.grib2"), product: nil, minimumEDR: 0)
        try FileManager.default.copyItem(atPath: ForecastGridReaderTests.fixture("wafs-egrr-isobaric.grib2"), toPath: folder + "/a.grib2")
        #expect(try await waitForCount(wafs.cells.count) == wafs.cells.count, "\(server.standardError)\(server.standardOutput)")
        try FileManager.default.copyItem(atPath: ForecastGridReaderTests.fixture("gtg-kwbc-altitude.grib2"), toPath: folder + "/b.grib2")
        let total = wafs.cells.count + gtg.cells.count
        #expect(try await waitForCount(total) == total, "\(server.standardError)\(server.standardOutput)")
        let again = try Data(contentsOf: URL(fileURLWithPath: folder + "/a.grib2"))
        try FileManager.default.removeItem(atPath: folder + "/a.grib2")
        try (again + Data("\n".utf8)).write(to: URL(fileURLWithPath: folder + "/a.grib2"))
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await storage.forecastCellCount() == total)
        #expect(try await OperatorCommandTests.stop(server) == 0)
        #expect(server.standardOutput.contains("watching for forecast grids") || server.standardError.contains("watching for forecast grids"))
    }
}
#endif
