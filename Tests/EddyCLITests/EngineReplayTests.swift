import EddyReplay
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

/// Parses JSON Lines into objects (records an issue for a line that is not a JSON object).
func jsonObjects(_ output: ProcessOutput) -> [[String: Any]] {
    output.lines.compactMap { line in
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        if object == nil { Issue.record("not a JSON object: \(line)") }
        return object
    }
}

/// `eddy replay FLIGHT --engine`: the whole engine on a flight, end to end through the executable.
@Suite("eddy replay --engine", .serialized)
struct EngineReplayTests {
    let flight = Package.flight("sim-medium-mixed")

    @Test func offlineJSONIsDeterministicOrderedAndMatchesThePlainReplay() throws {
        let first = try eddy(["replay", flight, "--engine", "--json"])
        let second = try eddy(["replay", flight, "--engine", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout, "offline output is byte-identical run after run")
        #expect(first.stderr.isEmpty, "\(first.stderr)")

        let objects = jsonObjects(first)
        let delegate = objects.dropLast()
        #expect(delegate.count >= 5)
        for object in delegate {
            #expect(object["type"] as? String == "delegate")
            #expect(object["t"] is Double)
            #expect(object["callback"] is String)
        }
        let times = delegate.compactMap { $0["t"] as? Double }
        #expect(times.count == delegate.count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "callback times never go back")
        #expect(delegate.first?["callback"] as? String == "didUpdateRecordingStatus")
        #expect(delegate.first?["recording"] as? Bool == true)

        // The engine finds the same tile crossings as the plain detection replay of the same samples.
        let plain = try FlightReplay.run(directory: flight)
        let detected = delegate.filter { $0["callback"] as? String == "detectedTurbulence" }
        #expect(detected.count == plain.tiles.count)
        #expect(plain.tiles.count > 10)
        #expect(detected.compactMap { $0["h3"] as? String } == plain.tiles.map(\.tile.h3String))
        #expect(detected.compactMap { $0["t_exit"] as? Double } == plain.tiles.map(\.exitTime))
        // The engine rounds flight time (Unix time − base) to the microsecond, so the Unix shift changes nothing:
        // the same EDR and severities as the plain replay.
        #expect(detected.compactMap { $0["severity"] as? String } == plain.tiles.map { $0.severity(for: .medium).name })
        #expect(detected.compactMap { $0["edr_peak"] as? Double } == plain.tiles.map { ($0.edrPeak * 10_000).rounded() / 10_000 })

        let summary = try #require(objects.last)
        #expect(summary["type"] as? String == "summary")
        #expect(summary["aircraft_type"] as? String == "B738")
        #expect(summary["aircraft_source"] as? String == "meta")
        #expect(summary["tiles"] as? Int == plain.tiles.count)
        #expect(summary["samples"] as? Int == plain.totalSamples)
        #expect(summary["outbox_pending"] as? Int == plain.tiles.count, "offline, every report waits in the outbox")
        #expect(summary["outbox_sent"] as? Int == 0)
        let counts = try #require(summary["callbacks"] as? [String: Int])
        for (name, count) in counts {
            #expect(delegate.filter { $0["callback"] as? String == name }.count == count, "\(name)")
        }
        #expect(counts["serverReachabilityUpdated"] == 0, "offline: no server to reach")
    }

    /// A copy of the flight without `time_origin` (log `t` taken as Unix seconds, no shift): the engine then feeds
    /// detection exactly the plain replay's sample times and must report exactly the same tiles, EDR and severities.
    @Test func withoutTimeShiftTheEngineReportsWhatThePlainReplayReports() throws {
        let directory = NSTemporaryDirectory() + "eddy-cli-noshift-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: flight, toPath: directory)
        let metaPath = directory + "/meta.json"
        var meta = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: metaPath))) as? [String: Any])
        meta["time_origin"] = nil
        try JSONSerialization.data(withJSONObject: meta).write(to: URL(fileURLWithPath: metaPath))

        let output = try eddy(["replay", directory, "--engine", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let detected = jsonObjects(output).filter { $0["callback"] as? String == "detectedTurbulence" }
        let plain = try FlightReplay.run(directory: directory)
        #expect(detected.count == plain.tiles.count)
        #expect(detected.compactMap { $0["severity"] as? String } == plain.tiles.map { $0.severity(for: .medium).name })
        #expect(detected.compactMap { $0["edr_peak"] as? Double } == plain.tiles.map { ($0.edrPeak * 10_000).rounded() / 10_000 })
        #expect(detected.compactMap { $0["t_enter"] as? Double } == plain.tiles.map(\.enterTime))
    }

    @Test func readableTimelineEndsWithASummary() throws {
        let output = try eddy(["replay", flight, "--engine"])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.lines
        #expect(lines.first?.hasPrefix("00:00:00  didUpdateRecordingStatus") == true)
        let tiles = lines.filter { !$0.hasPrefix("#") && $0.contains(" detectedTurbulence ") }
        #expect(tiles.count > 10)
        #expect(tiles.allSatisfy { $0.range(of: #"^\d\d:\d\d:\d\d  detectedTurbulence +[0-9a-f]{15}/\d+  "#, options: .regularExpression) != nil })
        #expect(output.stdout.contains("# tiles: \(tiles.count) reports"))
        #expect(output.stdout.contains("# outbox: \(tiles.count) pending, 0 sent"))
        #expect(lines.last?.hasPrefix("# outbox:") == true)
    }

    @Test func dbKeepsTheStoreAndATemporaryStoreIsRemoved() throws {
        let directory = NSTemporaryDirectory() + "eddy-cli-db-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/engine.sqlite"
        let first = try eddy(["replay", flight, "--engine", "--json", "--db", path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: path))
        let second = try eddy(["replay", flight, "--engine", "--json", "--db", path])
        let tiles = first.lines.filter { $0.contains("\"callback\":\"detectedTurbulence\"") }.count
        // Same session, flight and aircraft: the same report ids, so the outbox does not grow.
        #expect(second.lines.last?.contains("\"outbox_pending\":\(tiles),") == true, "\(second.lines.last ?? "")")

        let temporary = try eddy(["replay", flight, "--engine", "--json"])
        #expect(temporary.status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("eddy-engine-replay-\(temporary.pid)-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func badInputFailsWithExitStatusOneAndSaysWhatToDo() throws {
        let missing = try eddy(["replay", "/nonexistent/flight", "--engine"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/flight"))
        #expect(missing.stdout.isEmpty)

        let noKey = try eddy(["replay", flight, "--engine", "--server", "http://127.0.0.1:9"], environment: [:])
        #expect(noKey.status == 1)
        #expect(noKey.stderr.contains("--api-key"))

        let badURL = try eddy(["replay", flight, "--engine", "--server", "not a url", "--api-key", "k"])
        #expect(badURL.status == 1)
        #expect(badURL.stderr.contains("--server not a url"))

        let unreachable = try eddy(["replay", flight, "--engine", "--server", "http://127.0.0.1:9", "--api-key", "k"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("could not be reached"), "\(unreachable.stderr)")

        let badAirline = try eddy(["replay", flight, "--engine", "--airline", "dal"])
        #expect(badAirline.status == 1)
        #expect(badAirline.stderr.contains("--airline"))

        let serverWithoutEngine = try eddy(["replay", flight, "--server", "http://127.0.0.1:9"])
        #expect(serverWithoutEngine.status != 0)
        #expect(serverWithoutEngine.stderr.contains("--server needs --engine"))
    }

    /// Against a real `eddy-server` on loopback: A uploads every report; B, flying the same route later, is alerted
    /// to A's reports ahead of it.
    @Test func serverRunUploadsEverythingAndAlertsASecondAircraft() throws {
        let server = try LocalEddyServer(airline: "DAL")
        let common = ["replay", flight, "--engine", "--json", "--server", server.baseURL, "--api-key", server.apiKey,
                      "--airline", "DAL"]
        let a = try eddy(common + ["--user-id", "pilot-a"])
        #expect(a.status == 0, "\(a.stderr)")
        let objects = jsonObjects(a)
        let summary = try #require(objects.last)
        let tiles = try #require(summary["tiles"] as? Int)
        #expect(tiles > 10)
        #expect(summary["outbox_pending"] as? Int == 0, "every report uploaded")
        #expect(summary["outbox_sent"] as? Int == tiles)
        let reachability = objects.filter { $0["callback"] as? String == "serverReachabilityUpdated" }
        #expect(reachability.count == 1)
        #expect(reachability.first?["reachable"] as? Bool == true)
        #expect(objects.contains { $0["callback"] as? String == "didFailToFetchNewData" } == false, "\(a.stdout)")
        let ownAlerts = objects.filter { $0["callback"] as? String == "didReceiveAlert" }
        #expect(ownAlerts.isEmpty, "own recent reports never alert")

        let b = try eddy(common + ["--user-id", "pilot-b"])
        #expect(b.status == 0, "\(b.stderr)")
        let alerts = jsonObjects(b).filter { $0["callback"] as? String == "didReceiveAlert" }
        #expect(!alerts.isEmpty, "B flies into A's reports")
        let reportedByA = Set(objects.filter { $0["callback"] as? String == "detectedTurbulence" && $0["severity"] as? String != "none" }
            .compactMap { $0["h3"] as? String })
        let items = alerts.flatMap { ($0["items"] as? [[String: Any]]) ?? [] }
        #expect(!items.isEmpty)
        for item in items {
            #expect(reportedByA.contains(item["h3"] as? String ?? ""), "alerting tile \(item) was reported by A")
            #expect(item["origin"] as? String == "server")
            #expect((item["distance_nm"] as? Double ?? 1000) <= 100)
        }

        let wrongKey = try eddy(["replay", flight, "--engine", "--server", server.baseURL, "--api-key", "eddy_wrong", "--airline", "DAL"])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("API key invalid"), "\(wrongKey.stderr)")
    }

    /// Issue 27 deliverable 7: a synced replay drains its outbox before it exits, through the server's default request
    /// pacing (429s), on both JSBSim fixture flights; with the longest user id `start` accepts (128 scalars: combining
    /// marks, emoji, CJK), no fetch fails for any reason but that pacing.
    @Test(arguments: ["jsbsim-737-mixed", "jsbsim-c172-mixed"])
    func serverRunDrainsTheOutboxBeforeItExits(flightName: String) throws {
        let server = try LocalEddyServer(airline: "DAL")
        let longUserId = String(repeating: "e\u{301}", count: 20) + String(repeating: "✈️", count: 20) + String(repeating: "飛", count: 48)
        #expect(longUserId.unicodeScalars.count == 128)
        let run = try eddy(["replay", Package.flight(flightName), "--engine", "--json", "--server", server.baseURL,
                            "--api-key", server.apiKey, "--airline", "DAL", "--user-id", longUserId])
        #expect(run.status == 0, "\(run.stderr)")
        let fetchFailures = jsonObjects(run).filter { $0["callback"] as? String == "didFailToFetchNewData" }
        for failure in fetchFailures {
            let error = failure["error"] as? String ?? ""
            #expect(error.contains("the server asks to wait"), "a fetch failed for another reason than pacing: \(error)")
        }
        let summary = try #require(jsonObjects(run).last)
        let tiles = try #require(summary["tiles"] as? Int)
        #expect(tiles > 5)
        #expect(summary["outbox_pending"] as? Int == 0, "\(run.stderr)")
        #expect(summary["outbox_sent"] as? Int == tiles)
        #expect(run.stderr.contains("outbox drained:") && run.stderr.contains("0 still pending"), "\(run.stderr)")
    }

    /// A temporary store that still holds pending reports when the drain gives up is kept, and its path printed.
    @Test func aTemporaryStoreWithPendingReportsIsKept() throws {
        let server = try LocalEddyServer(airline: "DAL")
        try server.injectFaults(Array(repeating: .status500, count: 400), path: "/v1/reports")
        let run = try eddy(["replay", flight, "--engine", "--server", server.baseURL, "--api-key", server.apiKey, "--airline", "DAL",
                            "--drain-timeout", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("outbox drained:") }, "\(run.stderr)")
        #expect(!line.contains(" 0 still pending"), "\(line)")
        let path = try #require(line.components(separatedBy: "the store is kept at ").last?.components(separatedBy: " (").first)
        #expect(FileManager.default.fileExists(atPath: path), "\(line)")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
