#if Tools
import Foundation
import Testing

@testable import EddyServerKit

/// A PostgreSQL cluster of one test's own, which the test may stop (`pg_ctl stop -m fast`) and start again on the same
/// port — the shared cluster of `EDDY_TEST_POSTGRES_URL` serves every other test at the same time and must stay up.
///
/// Made with scripts/pg_cluster.sh (under `.build/pg-fault-<id>`, fsync off) and run only where that cluster can be:
/// when `EDDY_TEST_POSTGRES_URL` is set (PostgreSQL is installed); otherwise the test is skipped like every PostgreSQL case
/// (and fails under `CI=true`).
final class PostgresFaultCluster: Sendable {
    /// The cluster's folder.
    let directory: String
    /// Its `postgres://` URL.
    let url: String
    /// The checkout (where scripts/pg_cluster.sh is).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private init(directory: String, url: String) {
        self.directory = directory
        self.url = url
    }

    /// Creates and starts a cluster (the test is cancelled as skipped without PostgreSQL).
    static func start() async throws -> PostgresFaultCluster {
        let environment = ProcessInfo.processInfo.environment
        guard let shared = environment["EDDY_TEST_POSTGRES_URL"], !shared.isEmpty else {
            if environment["CI"] == "true" { throw StorageTestError("EDDY_TEST_POSTGRES_URL is unset under CI=true") }
            try Test.cancel("EDDY_TEST_POSTGRES_URL is unset: PostgreSQL fault case skipped (scripts/pg_cluster.sh start)")
        }
        let directory = root.appendingPathComponent(".build/pg-fault-\(UUID().uuidString.prefix(8))").path
        let url = try await run(["bash", "scripts/pg_cluster.sh", "start"], environment: ["EDDY_PG_DIR": directory, "EDDY_PG_FAST": "1"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard url.hasPrefix("postgres://") else { throw StorageTestError("pg_cluster.sh start printed \(url)") }
        return PostgresFaultCluster(directory: directory, url: url)
    }

    /// `pg_ctl stop -m fast`: every session is ended at once, the server goes away.
    func stopFast() async throws { _ = try await Self.run(["bash", "-c", Self.control + "stop_fast"], environment: ["DIR": directory]) }

    /// Starts the stopped cluster again on its port.
    func startAgain() async throws { _ = try await Self.run(["bash", "-c", Self.control + "start_again"], environment: ["DIR": directory]) }

    /// Stops the cluster and removes its folder (blocking: it runs from a `defer`).
    func destroy() {
        _ = try? Self.runBlocking(["bash", "scripts/pg_cluster.sh", "destroy"], environment: ["EDDY_PG_DIR": directory])
    }

    /// pg_ctl as scripts/pg_cluster.sh runs it (as the `postgres` user when root), on the cluster's own port.
    static let control = #"""
        set -euo pipefail
        BIN="$(pg_config --bindir 2>/dev/null || true)"
        [ -x "$BIN/pg_ctl" ] || BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V -r | head -1)"
        AS=""
        if [ "$(id -u)" = 0 ]; then owner=postgres; getent passwd postgres >/dev/null 2>&1 || owner=nobody; AS="runuser -u $owner --"; fi
        stop_fast() { $AS "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null; }
        start_again() {
            $AS "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start \
                -o "-p $(cat "$DIR/port") -c listen_addresses=127.0.0.1 -k $DIR/sock -c fsync=off -c synchronous_commit=off" >/dev/null
        }

        """#

    /// `runBlocking` on a thread of its own, not one of the few that run every test's tasks.
    static func run(_ arguments: [String], environment: [String: String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try runBlocking(arguments, environment: environment) }) }
        }
    }

    /// Runs a command in the checkout; returns its standard output, or throws with its standard error.
    static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> String {
        let process = try Subprocess(arguments, environment: environment)
        defer { process.removeFiles() }
        let status = process.waitForExit()
        guard status == 0 else {
            throw StorageTestError("\(arguments.joined(separator: " ")) failed (status \(status)): \(process.standardError)")
        }
        return process.standardOutput
    }
}

/// A command started in the checkout with `posix_spawn`, its output going to files, reaped with `waitpid`: Foundation's
/// `Process` never saw pg_cluster.sh end here (the child stayed a zombie and `isRunning` true, perhaps because pg_ctl's
/// server outlives it in the same session).
final class Subprocess: Sendable {
    /// Its process id.
    let pid: pid_t
    /// Where its standard output and error go.
    let outputPath: String, errorPath: String

    /// Starts `arguments` (found on the PATH) with `environment` added.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-subprocess-\(UUID().uuidString)").path
        (outputPath, errorPath) = (scratch + ".out", scratch + ".err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let command = ["/usr/bin/env", "-C", PostgresFaultCluster.root.path] + environment.map { "\($0.key)=\($0.value)" } + arguments
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else { throw StorageTestError("cannot run \(arguments.joined(separator: " ")): errno \(spawned)") }
        self.pid = pid
    }

    /// What it printed so far.
    var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// What it complained about so far.
    var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits for it to end; its exit status (or 128 + the signal that ended it).
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return Self.decoded(status)
    }

    /// Its exit status once it has ended, nil while it runs (never blocks).
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? Self.decoded(status) : nil
    }

    /// Sends `signal` to it.
    func send(_ signal: Int32) { kill(pid, signal) }

    /// Removes the output files.
    func removeFiles() {
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }

    static func decoded(_ status: Int32) -> Int32 { status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }

    /// For an `eddy-server serve --port 0`: `http://127.0.0.1:PORT` once it printed where it listens (waits up to 30 s;
    /// throws with its standard error when it did not start).
    func eddyServerBaseURL() async throws -> String {
        for _ in 0..<600 {
            if let port = standardOutput.firstMatch(of: /listening on [0-9.]+:([0-9]+)/).map({ String($0.1) }) {
                return "http://127.0.0.1:\(port)"
            }
            if exitStatus() != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StorageTestError("eddy-server did not start: \(standardError)")
    }
}
#endif
