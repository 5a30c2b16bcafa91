#if Tools
import Foundation
import Testing

@testable import EddyServerKit

/// The built `eddy-server`: `ingest-pilot-reports` (per-line errors on standard error, the summary, exit status 1 only
/// when nothing could be read, a second run storing nothing) and `serve --pilot-reports-folder` polling a folder.
@Suite struct PilotReportServerTests {
    static func fixture(_ name: String) -> String { PilotReportOracleTests.folder.appendingPathComponent(name).path }

    @Test func ingestCommandReportsEveryBadLineAndIsIdempotent() async throws {
        let scratch = try OperatorCommandTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let arguments = ["ingest-pilot-reports", "--db", scratch + "/s.sqlite", "--stations", Self.fixture("stations.csv"),
                         "--reference-time", "2022-09-01T06:00:00Z", Self.fixture("awc-aircraftreports-2022-09-01.csv"),
                         Self.fixture("bad-lines.txt")]
        let first = try await OperatorCommandTests.run(arguments)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("2 file(s), 22 line(s): 10 stored, 1 already held, 1 without turbulence or altitude, 10 line error(s)"),
                "\(first.out)")
        let errorLines = first.err.split(separator: "\n").filter { $0.hasPrefix(Self.fixture("bad-lines.txt") + ":") }
        #expect(errorLines.count == 10, "\(first.err)")
        #expect(first.err.contains("bad-lines.txt:6: time /TM 2561 is not hhmm UTC; write four digits"), "\(first.err)")
        let again = try await OperatorCommandTests.run(arguments)
        #expect(again.status == 0 && again.out.contains(": 0 stored, 11 already held"), "\(again.out)")

        let missing = try await OperatorCommandTests.run(["ingest-pilot-reports", "--db", scratch + "/s.sqlite", scratch + "/none.txt"])
        #expect(missing.status == 1 && missing.err.contains("none.txt: no such file or folder"), "\(missing)")
        let onlyBad = scratch + "/only-bad.txt"
        try "*** NOT A REPORT ***\n1F0 UA /OV KADH120005 /FL210 /TP AT75 /TB MOD\n".write(toFile: onlyBad, atomically: true, encoding: .utf8)
        let bad = try await OperatorCommandTests.run(["ingest-pilot-reports", "--db", scratch + "/s.sqlite", onlyBad])
        #expect(bad.status == 1 && bad.err.contains("only-bad.txt:2: location KADH120005 is relative to station KADH and no station table was given"),
                "\(bad)")
    }

    /// A real server process watching a folder (polled every 0.2 s): a file dropped in is stored, a second file too,
    /// a file rewritten with the same reports adds nothing.
    @Test func serverIngestsFilesDroppedIntoItsFolder() async throws {
        let scratch = try OperatorCommandTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/incoming"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let database = scratch + "/s.sqlite"
        let (server, _) = try await OperatorCommandTests.serve([
            "serve", "--db", database, "--port", "0", "--pilot-reports-folder", folder, "--pilot-reports-poll-seconds", "0.2",
            "--stations", Self.fixture("stations.csv"),
        ])
        let storage = try SQLiteServerStorage(path: database)
        func waitForCount(_ expected: Int) async throws -> Int {
            var count = -1
            for _ in 0..<300 {
                count = try await storage.pilotReportCount()
                if count == expected { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            return count
        }
        try FileManager.default.copyItem(atPath: Self.fixture("awc-aircraftreports-2022-09-01.csv"), toPath: folder + "/a.csv")
        #expect(try await waitForCount(10) == 10, "\(server.standardError)\(server.standardOutput)")
        try FileManager.default.copyItem(atPath: Self.fixture("awc-aircraftreports-2022-04-23.csv"), toPath: folder + "/b.csv")
        #expect(try await waitForCount(11) == 11, "\(server.standardError)\(server.standardOutput)")
        let again = try String(contentsOfFile: folder + "/a.csv", encoding: .utf8) + "\n"
        try again.write(toFile: folder + "/a.csv", atomically: true, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await storage.pilotReportCount() == 11)
        #expect(try await OperatorCommandTests.stop(server) == 0)
        #expect(server.standardOutput.contains("watching for pilot reports") || server.standardError.contains("watching for pilot reports"))
    }
}
#endif
