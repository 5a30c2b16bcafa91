import EddySync
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Errors of the loopback server harness.
struct LoopbackError: Error, CustomStringConvertible {
    var description: String
}

/// A real `eddy-server` process on 127.0.0.1 for tests: its own temporary database and API key,
/// started with `--port 0` (the chosen port is read from its stdout), stopped or SIGKILLed on demand.
final class LoopbackServer: @unchecked Sendable {
    let directory: URL
    let databasePath: String
    let apiKey: String
    let extraArguments: [String]
    private(set) var port = 0
    private var process: Process?

    /// The built `eddy-server` next to the test bundle (or under `.build/debug`).
    static func binary() throws -> URL {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["EDDY_SERVER_BIN"] { candidates.append(URL(fileURLWithPath: env)) }
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent().appendingPathComponent("eddy-server")) }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("eddy-server"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/eddy-server"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        throw LoopbackError(description: "eddy-server binary not found (build it: swift build --build-tests); looked in \(candidates.map(\.path))")
    }

    /// Creates the database and a key for `airline`, then starts the server.
    init(airline: String = "DAL", arguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-loopback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("server.sqlite").path
        extraArguments = arguments
        let output = try Self.runCLI(["keys", "add", "--db", databasePath, "--airline", airline, "--label", "test"])
        guard let key = output.split(separator: " ").last.map({ String($0).trimmingCharacters(in: .whitespacesAndNewlines) }),
              key.hasPrefix("eddy_") else { throw LoopbackError(description: "keys add printed \(output)") }
        apiKey = key
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Base URL of the running server.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server (on the previous port when restarting) and waits until it listens.
    func start() throws {
        let stdoutPath = directory.appendingPathComponent("stdout-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stdoutPath.path, contents: nil)
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = ["serve", "--db", databasePath, "--port", String(port), "--tick-seconds", "1", "--test-hooks",
                             "--log-level", "warning"] + extraArguments
        process.standardOutput = try FileHandle(forWritingTo: stdoutPath)
        let stderrPath = directory.appendingPathComponent("stderr.log")
        if !FileManager.default.fileExists(atPath: stderrPath.path) {
            _ = FileManager.default.createFile(atPath: stderrPath.path, contents: nil)
        }
        process.standardError = try FileHandle(forWritingTo: stderrPath)
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOf: stdoutPath, encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("eddy-server listening on") }),
               let portText = line.split(separator: ":").last, let bound = Int(portText) {
                port = bound
                return
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
        throw LoopbackError(description: "eddy-server did not start: \(log)")
    }

    /// Stops the server gracefully.
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
    }

    /// Kills the server at once (SIGKILL): no graceful shutdown.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Queues injected faults (`/v1/_test/faults`).
    func injectFaults(_ json: String) throws {
        let transport = try CurlTransport(configuration: TransportConfiguration(baseURL: baseURL))
        let response = try transport.send(SyncHTTPRequest(method: "POST", path: "/v1/_test/faults", body: Data(json.utf8)))
        guard response.status == 200 else { throw LoopbackError(description: "fault injection failed: \(response.status)") }
    }

    /// Expires every session on the server.
    func expireSessions() throws {
        let transport = try CurlTransport(configuration: TransportConfiguration(baseURL: baseURL))
        let response = try transport.send(SyncHTTPRequest(method: "POST", path: "/v1/_test/expire-sessions", body: Data("{}".utf8)))
        guard response.status == 200 else { throw LoopbackError(description: "expire-sessions failed: \(response.status)") }
    }

    /// Runs an `eddy-server` subcommand against this server's database.
    func cli(_ arguments: [String]) throws -> String { try Self.runCLI(arguments) }

    static func runCLI(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw LoopbackError(description: "eddy-server \(arguments.first ?? ""): \(text)") }
        return text
    }
}
