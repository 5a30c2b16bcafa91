import EddyH3
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import EddyStore

/// End-to-end checks of `eddy query` (the executable built next to the tests).
@Suite("eddy query end to end")
struct QueryCommandTests {
    func run(_ arguments: [String]) throws -> ProcessOutput {
        guard let eddy = builtExecutable("eddy") else {
            Issue.record("eddy not built: run `swift build --build-tests`")
            return ProcessOutput(status: -1, stdout: "", stderr: "", pid: 0)
        }
        return try BuiltExecutable.run(eddy, arguments)
    }

    @Test func routeQueryPrintsGeoJSONAndBadInputFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("cli.sqlite")
        let now = 1_800_000_000.0
        do {
            let store = try EddyStore.open(path: path)
            try store.upsertObservations([
                observation(1, at: (40.0, -95.0), layer: 37, time: now - 60, edrPeak: 0.35),
                observation(2, at: (45.0, -95.0), layer: 37, time: now - 60, edrPeak: 0.35),  // off the route
                observation(3, at: (40.0, -94.0), layer: 20, time: now - 60, edrPeak: 0.35),  // below the range
            ])
            try store.close()
        }
        let common = ["query", "--db", path, "--now", "1800000000", "--route", "40,-100 40,-90", "--width-nm", "20"]
        let geo = try run(common + ["--alt-min-feet", "35000", "--alt-max-feet", "39000", "--geojson"])
        #expect(geo.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(geo.stdout.utf8)) as? [String: Any]
        let features = json?["features"] as? [[String: Any]]
        #expect(features?.count == 1)
        #expect(features?.first?["id"] as? String == testUUID(1).uuidString.lowercased())
        #expect((features?.first?["properties"] as? [String: Any])?["severity"] as? String == "moderateSevere")

        let text = try run(common)
        #expect(text.status == 0)
        #expect(text.stdout.contains("# 2 tiles"))

        let bad = try run(common + ["--alt-min-feet", "35500", "--alt-max-feet", "39000"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("altRangeNotRoundToThousandFeet"))
        let missing = try run(["query", "--db", folder.path("none.sqlite")])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no store at"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("none.sqlite")))
    }

    /// `eddy replay --db` puts the flight's tile reports into the outbox with epoch times, once:
    /// a second replay of the same flight adds nothing (deterministic, salted report ids).
    @Test func replayStoresOwnReportsIdempotently() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("replay.sqlite")
        let flight = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/flights/sim-medium-mixed").path
        let first = try run(["replay", flight, "--json", "--db", path])
        #expect(first.status == 0, "\(first.stderr)")
        let tileLines = first.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"tile\"") }
        #expect(tileLines.count > 10)
        #expect(first.stderr.contains("stored \(tileLines.count) new of \(tileLines.count) tile reports"), "\(first.stderr)")
        #expect(!first.stdout.contains("stored"), "store messages stay on stderr")
        let second = try run(["replay", flight, "--db", path])
        #expect(second.status == 0)
        #expect(second.stderr.contains("stored 0 new of \(tileLines.count) tile reports"), "\(second.stderr)")

        let store = try EddyStore.open(path: path)
        defer { try? store.close() }
        let pending = try store.pendingOwnReports()
        #expect(pending.count == tileLines.count)
        // time_origin 2026-11-22T10:00:00Z = 1795341600; the flight lasts 24 minutes.
        for report in pending {
            #expect(report.enterTime >= 1_795_341_600 && report.exitTime <= 1_795_341_600 + 24 * 60 + 1)
        }
    }
}
