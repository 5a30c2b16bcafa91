#if Tools
import EddyH3
import EddyProtocol
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// `GET /metrics` of a real `eddy-server` process passes `promtool check metrics` (Debian's `prometheus` package; issue
/// 30): every family has HELP text, the `process_*`, build-info and database-up metrics are there and tell the truth.
@Suite struct MetricsExpositionTests {
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue

    /// promtool's path; the test is skipped when it is missing (it fails instead under `CI=true`: `make test` installs it).
    static func promtool() throws -> String {
        let found = try PostgresFaultCluster.runBlocking(["bash", "-c", "command -v promtool || true"], environment: [:])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard found.isEmpty else { return found }
        let message = "promtool not found: install Debian's prometheus package (apt-get install prometheus; make test does)"
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw StorageTestError(message + " — required under CI=true") }
        try Test.cancel("\(message): promtool check skipped")
    }

    /// Runs `promtool check metrics` on `text`; its exit status and what it printed.
    static func check(_ text: String, promtool: String) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-metrics-\(UUID().uuidString).txt").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let process = try Subprocess(["bash", "-c", "\"$PROMTOOL\" check metrics < \"$FILE\""], environment: ["PROMTOOL": promtool, "FILE": file])
        defer { process.removeFiles() }
        let status = process.waitForExit()
        return (status, process.standardOutput + process.standardError)
    }

    /// `curl` of `path` on `base`; the status code and body.
    static func curl(_ base: String, _ path: String, method: String = "GET", body: String? = nil, token: String? = nil) throws
        -> (status: Int, body: String) {
        var arguments = ["curl", "-s", "-m", "30", "-X", method, "-w", "\n%{http_code}", "-H", "Content-Type: application/json",
                         "-H", "X-Eddy-Client-Version: 1.0.0"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        if let body { arguments += ["-d", body] }
        let process = try Subprocess(arguments + [base + path])
        defer { process.removeFiles() }
        _ = process.waitForExit()
        let output = process.standardOutput
        guard let newline = output.lastIndex(of: "\n"), let code = Int(output[output.index(after: newline)...]) else {
            throw StorageTestError("curl \(path) printed \(output) \(process.standardError)")
        }
        return (code, String(output[..<newline]))
    }

    /// A database of `backend` with one key for DAL: the `serve` arguments naming it, the key and its row id.
    static func database(_ backend: StorageBackend) async throws -> (arguments: [String], key: String, keyId: Int64) {
        let storage = try await backend.makeStorage()
        let (key, record) = try await storage.addKey(airline: "DAL", label: "metrics", now: Date().timeIntervalSince1970)
        await storage.shutdown()
        switch storage {
        case let postgres as PostgresServerStorage:
            let location = postgres.location
            return (["--database", "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database)"], key, record.id)
        case let sqlite as SQLiteServerStorage:
            return (["--db", sqlite.path], key, record.id)
        default:
            throw StorageTestError("eddy-server serve has no \(backend) backend")
        }
    }

    static func json(_ value: some Encodable) throws -> String { String(decoding: try JSONEncoder().encode(value), as: UTF8.self) }

    @Test(arguments: StorageBackend.databases) func aRealServersMetricsPassPromtoolAndTellTheTruth(backend: StorageBackend) async throws {
        let promtool = try Self.promtool()
        let binary = try #require(BuiltExecutable.locate("eddy-server"), "eddy-server not built: run `swift build --build-tests`")
        let (storageArguments, key, keyId) = try await Self.database(backend)
        let started = Date().timeIntervalSince1970
        // A burst of 3 requests a session: the fourth authenticated request is refused 429 (eddy_rate_limited_total).
        let serve = try Subprocess([binary.path, "serve"] + storageArguments + ["--port", "0", "--log-level", "error",
                                                                                 "--rate-limit", "1", "--rate-burst", "3"])
        defer { serve.send(SIGKILL); _ = serve.waitForExit(); serve.removeFiles() }
        let base = try await serve.eddyServerBaseURL()

        // Something in every family: a session, an upload with a rejected report, its duplicate, a 401, a 429, /readyz.
        let session = try Self.curl(base, "/v1/session", method: "POST", body: Self.json(
            SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")))
        #expect(session.status == 200, "\(session)")
        let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(session.body.utf8)).token
        let exit = Date().timeIntervalSince1970 - 120
        let batch = try Self.json(ReportBatch(reports: [
            TileReport(id: UUID(), tile: TileID(h3: Self.cell, layer: 35), enterTime: exit - 60, exitTime: exit, edrPeak: 0.3,
                       edrMedian: 0.1, reporterClass: .medium),
            TileReport(id: UUID(), tile: TileID(h3: Self.cell, layer: 120), enterTime: exit - 60, exitTime: exit, edrPeak: 0.3,
                       edrMedian: 0.1, reporterClass: .medium),
        ]))
        for _ in 0..<2 { #expect(try Self.curl(base, "/v1/reports", method: "POST", body: batch, token: token).status == 200) }
        #expect(try Self.curl(base, "/v1/fetch", method: "POST", body: "{}").status == 401)
        var statuses: [Int] = []
        for _ in 0..<4 where !statuses.contains(429) {
            statuses.append(try Self.curl(base, "/v1/fetch", method: "POST", body: Self.json(
                DeltaFetchRequest(dataType: .turbulence, area: .global)), token: token).status)
        }
        #expect(statuses.contains(429), "no 429 with a burst of 3: \(statuses)")
        #expect(try Self.curl(base, "/readyz").status == 200)
        try await Task.sleep(for: .seconds(2))   // an upkeep round (every second) has counted itself

        let scrape = try Self.curl(base, "/metrics")
        #expect(scrape.status == 200)
        let text = scrape.body
        let promtoolSays = try Self.check(text, promtool: promtool)
        #expect(promtoolSays.status == 0, "promtool check metrics: \(promtoolSays.output)\n\(text)")

        // Every family of ServerMetrics is exposed, with HELP text, and nothing else is.
        let typed = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        let helped = Set(text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map { String($0.split(separator: " ")[2]) })
        #expect(typed == Set(ServerMetrics.Families.all.map(\.name)),
                "missing: \(Set(ServerMetrics.Families.all.map(\.name)).subtracting(typed)); unknown: \(typed.subtracting(ServerMetrics.Families.all.map(\.name)))")
        #expect(helped == typed, "no HELP: \(typed.subtracting(helped))")

        let parsed = try PrometheusText(text)
        let backendName = backend == .postgres ? "postgres" : "sqlite"
        #expect(parsed.value("eddy_build_info", ["version": EddyVersion.current, "backend": backendName]) == 1)
        #expect(parsed.value("eddy_database_up") == 1)
        #expect(parsed.value("eddy_database_clock_offset_seconds") == 0)   // one host, one clock
        #expect(parsed.value("eddy_rate_limited_total") == 1)
        // The key's requests: the session start, two uploads, the fetches answered 200, and the one refused 429; the
        // unauthenticated fetch is nobody's. The secret is nowhere in the text.
        let keyLabels = ["key": String(keyId), "airline": "DAL"]
        #expect(parsed.value("eddy_api_key_requests_total", keyLabels.merging(["outcome": "ok"]) { $1 })
                == Double(3 + statuses.filter { $0 == 200 }.count))
        #expect(parsed.value("eddy_api_key_requests_total", keyLabels.merging(["outcome": "rate_limited"]) { $1 }) == 1)
        #expect(!text.contains(key))
        #expect((parsed.value("eddy_storage_upkeep_runs_total", ["task": "maintain", "outcome": "ok"]) ?? 0) >= 1)
        #expect(parsed.value("eddy_storage_upkeep_runs_total", ["task": "maintain", "outcome": "failed"]) == 0)
        #expect(parsed.value("eddy_storage_upkeep_runs_total", ["task": "purge", "outcome": "failed"]) == 0)
        // The process figures are this server's: its own /proc entry, read now, agrees with what it exposed.
        let status = try String(contentsOfFile: "/proc/\(serve.pid)/status", encoding: .utf8)
        let vmRSS = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ").dropFirst().first
            .flatMap { Double($0) }) * 1024
        let rss = try #require(parsed.value("process_resident_memory_bytes"))
        #expect(rss > 4 * 1024 * 1024 && abs(rss - vmRSS) < 0.5 * vmRSS, "exposed RSS \(rss), /proc says \(vmRSS)")
        let start = try #require(parsed.value("process_start_time_seconds"))
        #expect(start >= started.rounded(.down) - 1 && start <= Date().timeIntervalSince1970, "start time \(start), test began \(started)")
        #expect((parsed.value("process_cpu_seconds_total") ?? 0) > 0)
        let openFDs = try #require(parsed.value("process_open_fds"))
        let listed = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(serve.pid)/fd").count
        #expect(openFDs >= 3 && abs(openFDs - Double(listed)) <= 8, "exposed \(openFDs) open fds, /proc lists \(listed)")
        #expect((parsed.value("process_max_fds") ?? 0) >= openFDs)
    }

    /// The check above can fail: promtool refuses the text without HELP lines the server served before (issue 30).
    @Test func promtoolRefusesFamiliesWithoutHelp() throws {
        let promtool = try Self.promtool()
        let helpless = "# TYPE eddy_sessions_opened_total counter\neddy_sessions_opened_total 1\n"
        let refused = try Self.check(helpless, promtool: promtool)
        #expect(refused.status != 0 && refused.output.contains("no help text"), "\(refused)")
        let helped = "# HELP eddy_sessions_opened_total Sessions started.\n" + helpless
        #expect(try Self.check(helped, promtool: promtool).status == 0)
    }

    @Test func processFiguresAreReadFromProcTexts() throws {
        // The command name holds a space and a parenthesis; fields count from the last ")".
        let stat = "4242 (eddy (server) x) S 1 4242 4242 0 -1 4194560 9000 0 12 0 250 50 0 0 20 0 9 0 123456 987654321 5000 "
            + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0"
        let status = "Name:\teddy-server\nVmSize:\t  964504 kB\nVmRSS:\t   41234 kB\nThreads:\t9\n"
        let system = "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n"
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n"
            + "Max open files            1024                 524288               files     \n"
        let figures = try #require(ProcessFigures.parse(stat: stat, status: status, systemStat: system, limits: limits,
                                                         clockTicksPerSecond: 100, openFDs: 12))
        #expect(figures == ProcessFigures(residentBytes: 41234 * 1024, virtualBytes: 964504 * 1024, cpuSeconds: 3,
                                          startTimeSeconds: 1_700_000_000 + 1234.56, openFDs: 12, maxFDs: 1024))
        #expect(ProcessFigures.parse(stat: "garbage", status: status, systemStat: system, limits: limits, clockTicksPerSecond: 100,
                                     openFDs: nil) == nil)
        // This process: Linux has /proc.
        let current = try #require(ProcessFigures.current())
        #expect(current.residentBytes > 0 && current.startTimeSeconds > 1_600_000_000 && current.startTimeSeconds <= Date().timeIntervalSince1970)
    }
}
#endif
