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
}
#endif
