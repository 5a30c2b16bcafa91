#if Tools
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import EddyServerKit

/// What operators run (issue 30, deliverable 6), on the built `eddy-server` binary: `--version`, settings from a file and
/// the environment (flag > environment > file > default), JSON logs with start-up and shutdown lines, `migrate --status`
/// and `--dry-run`, and a malformed `--database` exiting 2.
@Suite struct OperatorCommandTests {
    static let binary = PostgresFaultCluster.root.appendingPathComponent(".build/debug/eddy-server").path

    /// A scratch folder of this test.
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-operator-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `eddy-server arguments` to its end (at most 60 s): exit status, standard output and error. Waits with
    /// `Task.sleep`, never blocking one of the few threads every test's tasks (and the in-process servers) run on.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, out: String, err: String) {
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build eddy-server first (swift build)")
        let process = try Subprocess([binary] + arguments, environment: environment)
        defer { process.removeFiles() }
        let start = Date()
        var status = process.exitStatus()
        while status == nil {
            guard Date().timeIntervalSince(start) < 60 else {
                process.send(SIGKILL)
                throw StorageTestError("eddy-server \(arguments) still running after 60 s")
            }
            try await Task.sleep(for: .milliseconds(20))
            status = process.exitStatus()
        }
        return (status ?? -1, process.standardOutput, process.standardError)
    }

    /// Starts `eddy-server serve` and waits for its "listening on" line: the process and its port.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Subprocess, Int) {
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build eddy-server first (swift build)")
        let process = try Subprocess([binary] + arguments, environment: environment)
        // The output is read once more after the deadline passed: with both of CI's cooperative threads busy in long
        // computing tests, this task may wake only after the 60 s although the server listened long before.
        let start = Date()
        while true {
            if let port = process.standardOutput.firstMatch(of: /listening on [0-9.]+:([0-9]+)/).flatMap({ Int($0.1) }) { return (process, port) }
            if process.exitStatus() != nil { throw StorageTestError("eddy-server ended: \(process.standardError)") }
            guard Date().timeIntervalSince(start) < 60 else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.send(SIGKILL)
        throw StorageTestError("eddy-server did not listen within 60 s: \(process.standardError)")
    }

    /// Stops a server with SIGTERM and waits for it (at most 60 s; -1 when it is still running then).
    static func stop(_ process: Subprocess) async throws -> Int32 {
        process.send(SIGTERM)
        for _ in 0..<3000 {
            if let status = process.exitStatus() { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.send(SIGKILL)
        return -1
    }

    @Test func versionNamesTheBuildTheProtocolAndTheSchemas() async throws {
        let result = try await Self.run(["--version"])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("eddy-server \(ServerVersion.number) (wire protocol"), "\(result.out)")
        #expect(result.out.contains("PostgreSQL version \(PostgresServerStorage.schemaVersion)"), "\(result.out)")
    }

    @Test func settingsComeFromFlagThenEnvironmentThenFile() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The page limit is seen in the start-up line (port 0 everywhere: no port to race other tests for).
        let config = folder + "/eddy-server.conf"
        try "# eddy-server settings\ndatabase = \"sqlite:\(folder)/db.sqlite\"\nmax-answer-items = 111\nport = 0\nlog-format = json\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        for (environment, flags, expected) in [
            (["EDDY_SERVER_CONFIG": config], [String](), "111"),
            (["EDDY_SERVER_CONFIG": config, "EDDY_SERVER_MAX_ANSWER_ITEMS": "222"], [], "222"),
            (["EDDY_SERVER_MAX_ANSWER_ITEMS": "222"], ["--config", config, "--max-answer-items", "333"], "333"),
            ([:], ["--db", folder + "/db.sqlite", "--port", "0", "--log-format", "json"], "10000"),
        ] {
            let (process, _) = try await Self.serve(["serve"] + flags, environment: environment)
            #expect(try await Self.stop(process) == 0)
            let started = process.standardError.split(separator: "\n").first { $0.contains("\"eddy-server started\"") }.map(String.init) ?? ""
            #expect(started.contains("\"max_answer_items\":\"\(expected)\""), "\(environment) \(flags): \(started)")
            process.removeFiles()
        }
        try "port = 1\nno-such-setting = 3\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try await Self.run(["serve", "--config", config])
        #expect(bad.status == 2)
        #expect(bad.err.contains("\(config) line 2") && bad.err.contains("no setting 'no-such-setting'"), "\(bad.err)")
        let badFlag = try await Self.run(["serve"], environment: ["EDDY_SERVER_NO_METRICS": "maybe"])
        #expect(badFlag.status == 2 && badFlag.err.contains("EDDY_SERVER_NO_METRICS: no-metrics is a flag"), "\(badFlag.err)")
    }

    @Test func jsonLogsCarryStartUpAndShutdownLinesAndNoSecret() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, port) = try await Self.serve(["serve", "--db", folder + "/db.sqlite", "--port", "0", "--log-format", "json", "--access-log"])
        defer { process.removeFiles() }
        #expect(try await Self.stop(process) == 0)
        let lines = process.standardError.split(separator: "\n").map(String.init)
        let objects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let started = try #require(objects.first { $0["message"] as? String == "eddy-server started" }, "\(lines)")
        #expect(started["level"] as? String == "notice" && started["address"] as? String == "127.0.0.1:\(port)")
        #expect((started["database"] as? String)?.hasPrefix("sqlite:") == true && started["max_answer_items"] as? String == "10000")
        #expect(objects.contains { $0["message"] as? String == "eddy-server stopping: graceful shutdown began" }, "\(lines)")
        #expect(objects.last?["message"] as? String == "eddy-server stopped", "\(lines)")
        #expect(objects.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
    }

    @Test func migrateStatusAndDryRunChangeNothingAndMigrateApplies() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/old.sqlite"
        // A database of an older build: its first three migrations.
        let queue = try DatabaseQueue(path: path)
        let all = SQLiteServerStorage.migrator.migrations
        try SQLiteServerStorage.migrator.migrate(queue, upTo: all[2])
        try queue.close()
        let pending = all.dropFirst(3).joined(separator: ", ")
        let status = try await Self.run(["migrate", "--status", "--db", path])
        #expect(status.status == 0)
        #expect(status.out.contains("applied: \(all.prefix(3).joined(separator: ", "))") && status.out.contains("pending: \(pending)"), "\(status.out)")
        let dryRun = try await Self.run(["migrate", "--dry-run", "--db", path])
        #expect(dryRun.status == 0 && dryRun.out.contains("were undone; nothing changed"), "\(dryRun.out) \(dryRun.err)")
        #expect(try await Self.run(["migrate", "--status", "--db", path]).out.contains("pending: \(pending)"), "the dry run changed nothing")
        let applied = try await Self.run(["migrate", "--db", path])
        #expect(applied.status == 0 && applied.out.contains("pending: none"), "\(applied.out) \(applied.err)")
    }

    @Test func aMalformedDatabaseValueExits2WithTheReason() async throws {
        let result = try await Self.run(["serve", "--database", "mysql://u@h/db"])
        #expect(result.status == 2)
        #expect(result.err.contains("starts with neither sqlite: nor postgres://"), "\(result.err)")
    }

    @Test func theAccessLogShowsEveryRequestAtInfoWithKeysInQueriesRedacted() async throws {
        #expect(SecretQuery.redacted("key=dal_abc&hours=6&TOKEN=x&keyboard=1") == "key=***&hours=6&TOKEN=***&keyboard=1")
        let lines = CapturedLines()
        var logger = Logger(label: "access-test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .info
        var options = ServerOptions()
        options.accessLog = true
        let service = try SyncService(database: InMemoryServerStorage(), options: options, logger: logger)
        let app = EddyServerApplication.make(service: service, logger: logger, checkpointInterval: nil)
        try await app.test(.router) { client in
            _ = try await client.execute(uri: "/map?key=dal_secret123456&hours=6", method: .get)
            _ = try await client.execute(uri: "/v1/tick", method: .get)
        }
        let access = lines.all.filter { $0.message == "request" }
        #expect(access.map(\.level) == [.info, .info])
        #expect(access.first?.metadata["query"] == "key=***&hours=6" && access.first?.metadata["status"] == "401", "\(access)")
        #expect(access.last?.metadata["path"] == "/v1/tick" && access.last?.metadata["status"] == "200", "\(access)")
        #expect(!lines.all.contains { "\($0)".contains("secret123456") }, "no line shows the key")
    }
}
#endif
