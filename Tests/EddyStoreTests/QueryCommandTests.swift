import EddyCore
import EddyH3
import Foundation
import Testing
@testable import EddyStore

/// End-to-end checks of `eddy query` (the executable built next to the tests).
@Suite("eddy query end to end")
struct QueryCommandTests {
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let eddy = builtExecutable("eddy") else {
            Issue.record("eddy not built: run `swift build --build-tests`")
            return (-1, "", "")
        }
        let process = Process()
        process.executableURL = eddy
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
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
}
