// `Process` exists on Linux and macOS only: iOS, tvOS, watchOS and visionOS builds of EddyTesting leave this file out.
#if os(Linux) || os(macOS)
import EddySupport
import EddySync
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `eddy-server` process on 127.0.0.1 for a host app's tests.
///
/// It owns a temporary directory with its own SQLite database and an API key for one airline,
/// starts `eddy-server serve --port 0` (the kernel picks a free port, read back from the server's
/// `eddy-server listening on HOST:PORT` line), and can stop, SIGKILL and restart the server on the
/// same port, so a test can check what an engine does while the server is away. The process is
/// stopped and the directory removed when the object is released.
public final class LocalEddyServer: Sendable {
    /// How the server is started; every field has a default suited to fast tests.
    public struct Options: Sendable, Equatable {
        /// Airline (ICAO code) the issued API key belongs to. Default "DAL".
        public var airline: String
        /// Label stored with the issued key. Default "test".
        public var keyLabel: String
        /// Server tick length, seconds (delta fetches advance per tick). Default 1.
        public var tickSeconds: Double
        /// Enables the `/v1/_test/*` hooks (fault injection, session expiry). Default true.
        public var testHooks: Bool
        /// Server log level (trace, debug, info, notice, warning, error, critical). Default "warning".
        public var logLevel: String
        /// Extra `serve` arguments appended last, e.g. `["--rate-limit", "120"]`.
        public var extraServeArguments: [String]
        /// Explicit path of the `eddy-server` executable; nil searches (see ``LocalEddyServer/locateBinary(explicitPath:callerFilePath:)``).
        public var binaryPath: String?
        /// How long to wait for the listening line at each start, seconds. Default 30.
        public var startTimeoutSeconds: Double
        /// Keeps the temporary directory (database, logs) after the server is released. Default false.
        public var keepDirectory: Bool

        /// Creates options; every argument has the documented default.
        public init(
            airline: String = "DAL", keyLabel: String = "test", tickSeconds: Double = 1, testHooks: Bool = true,
            logLevel: String = "warning", extraServeArguments: [String] = [], binaryPath: String? = nil,
            startTimeoutSeconds: Double = 30, keepDirectory: Bool = false
        ) {
            self.airline = airline
            self.keyLabel = keyLabel
            self.tickSeconds = tickSeconds
            self.testHooks = testHooks
            self.logLevel = logLevel
            self.extraServeArguments = extraServeArguments
            self.binaryPath = binaryPath
            self.startTimeoutSeconds = startTimeoutSeconds
            self.keepDirectory = keepDirectory
        }
    }

    /// The options the server was created with.
    public let options: Options
    /// The `eddy-server` executable in use.
    public let binary: URL
    /// The server's temporary working directory (database, stdout / stderr logs).
    public let directory: URL
    /// Path of the server's SQLite database (pass it to `eddy-server keys … --db`).
    public let databasePath: String
    /// The API key issued for ``Options/airline`` before the first start.
    public let apiKey: String
    /// The server's stderr, appended across restarts (its log lines go here).
    public let stderrLogURL: URL

    private struct State {
        var port = 0
        var process: Process?
    }
    private let state = Mutex(State())

    /// Creates a database and an API key for `options.airline`, then starts the server (unless `startImmediately` is false).
    ///
    /// `callerFilePath` only helps find the binary under the caller's package `.build`; leave the default.
    public init(
        options: Options, startImmediately: Bool = true, callerFilePath: String = #filePath
    ) throws(LocalEddyServerError) {
        self.options = options
        binary = try Self.locateBinary(explicitPath: options.binaryPath, callerFilePath: callerFilePath)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-local-server-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .directoryUnavailable(path: directory.path, reason: error.localizedDescription)
        }
        databasePath = directory.appendingPathComponent("server.sqlite").path
        stderrLogURL = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stderrLogURL.path, contents: nil)
        apiKey = try Self.addKey(binary: binary, databasePath: databasePath, airline: options.airline, label: options.keyLabel)
        if startImmediately { try start() }
    }

    /// Creates and starts a server: the common case in one call.
    public convenience init(
        airline: String = "DAL", tickSeconds: Double = 1, extraServeArguments: [String] = [], binaryPath: String? = nil,
        callerFilePath: String = #filePath
    ) throws(LocalEddyServerError) {
        try self.init(
            options: Options(airline: airline, tickSeconds: tickSeconds, extraServeArguments: extraServeArguments, binaryPath: binaryPath),
            callerFilePath: callerFilePath)
    }

    deinit {
        if options.keepDirectory {
            stop()
        } else {
            kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The TCP port the server listens on (0 before the first start); restarts reuse it.
    public var port: Int { state.withLock(visibleToThreadSanitizerAs: self) { $0.port } }

    /// Base URL of the server, e.g. `http://127.0.0.1:53117`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Whether the server process is running.
    public var isRunning: Bool { state.withLock(visibleToThreadSanitizerAs: self) { $0.process?.isRunning ?? false } }

    /// Starts the server (on the previous port after a stop or kill) and waits until it listens; no-op when running.
    public func start() throws(LocalEddyServerError) {
        try state.withLock(visibleToThreadSanitizerAs: self) { (state: inout State) throws(LocalEddyServerError) in
            if let process = state.process, process.isRunning { return }
            state.process = nil
            let stdoutURL = directory.appendingPathComponent("stdout-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            let process = Process()
            process.executableURL = binary
            process.arguments = serveArguments(port: state.port)
            let stdout: FileHandle, stderr: FileHandle
            do {
                stdout = try FileHandle(forWritingTo: stdoutURL)
                stderr = try FileHandle(forWritingTo: stderrLogURL)
                try stderr.seekToEnd()
            } catch {
                throw .directoryUnavailable(path: directory.path, reason: error.localizedDescription)
            }
            process.standardOutput = stdout
            process.standardError = stderr
            do { try process.run() } catch { throw .launchFailed(binary: binary.path, reason: error.localizedDescription) }
            try? stdout.close()
            try? stderr.close()
            let deadline = Date().addingTimeInterval(options.startTimeoutSeconds)
            while Date() < deadline {
                if let bound = Self.listeningPort(in: stdoutURL) {
                    state.port = bound
                    state.process = process
                    return
                }
                guard process.isRunning else {
                    process.waitUntilExit()
                    throw .exitedDuringStartup(status: process.terminationStatus, stderr: stderrText())
                }
                usleep(10_000)
            }
            Self.signal(process, SIGKILL)
            throw .startTimedOut(seconds: options.startTimeoutSeconds, stderr: stderrText())
        }
    }

    /// Stops the server gracefully (SIGTERM) and waits for it to exit; no-op when stopped.
    public func stop() { end(with: SIGTERM) }

    /// Kills the server at once (SIGKILL, no graceful shutdown) and waits for it to exit; no-op when stopped.
    public func kill() { end(with: SIGKILL) }

    /// Stops the server gracefully, then starts it again on the same port.
    public func restart() throws(LocalEddyServerError) {
        stop()
        try start()
    }

    /// Queues injected faults: POST `json` to `/v1/_test/faults` (see the server's test-hook docs for the format).
    public func injectFaults(_ json: String) throws(LocalEddyServerError) {
        try postTestHook(path: "/v1/_test/faults", body: json)
    }

    /// A fault the server injects into one request (test hooks only); the kinds of `POST /v1/_test/faults`.
    public enum Fault: Sendable, Equatable {
        /// The request is answered 500 `internal` without being run.
        case status500
        /// The request is answered 200 with a truncated JSON body without being run.
        case malformed
        /// The request is run after `seconds`.
        case delay(seconds: Double)
        /// The request is run (it commits), then answered after `seconds`: a client timing out sees no answer.
        case hangAfterCommit(seconds: Double)

        /// The fault as one entry of the wire format (`{"kind": …, "seconds": …, "path": …}`).
        func wireEntry(path: String?) -> [String: Any] {
            var entry: [String: Any]
            switch self {
            case .status500: entry = ["kind": "status500"]
            case .malformed: entry = ["kind": "malformed"]
            case .delay(let seconds): entry = ["kind": "delay", "seconds": seconds]
            case .hangAfterCommit(let seconds): entry = ["kind": "hangAfterCommit", "seconds": seconds]
            }
            if let path { entry["path"] = path }
            return entry
        }
    }

    /// Queues `faults`, in order, for the next requests to `path` (any API path when nil); each applies to one request.
    public func injectFaults(_ faults: [Fault], path: String? = nil) throws(LocalEddyServerError) {
        let plan: [String: Any] = ["faults": faults.map { $0.wireEntry(path: path) }]
        guard let json = try? JSONSerialization.data(withJSONObject: plan, options: [.sortedKeys]) else {
            throw .requestFailed(path: "/v1/_test/faults", status: nil, message: "could not encode the fault plan")
        }
        try injectFaults(String(decoding: json, as: UTF8.self))
    }

    /// Expires every session on the server (POST `/v1/_test/expire-sessions`): the next request gets a 401.
    public func expireSessions() throws(LocalEddyServerError) {
        try postTestHook(path: "/v1/_test/expire-sessions", body: "{}")
    }

    /// Issues another API key (e.g. for a second airline) in this server's database.
    public func addKey(airline: String, label: String = "test") throws(LocalEddyServerError) -> String {
        try Self.addKey(binary: binary, databasePath: databasePath, airline: airline, label: label)
    }

    /// Runs an `eddy-server` subcommand (e.g. `["keys", "revoke", "--db", databasePath, "1"]`) and returns its output.
    @discardableResult
    public func runCLI(_ arguments: [String]) throws(LocalEddyServerError) -> String {
        try Self.run(binary: binary, arguments: arguments)
    }

    /// The server's stderr so far (log lines), for assertions and failure messages.
    public func stderrText() -> String {
        Self.text(of: stderrLogURL) ?? ""
    }

    /// Finds the `eddy-server` executable.
    ///
    /// Search order: `explicitPath`; `$EDDY_SERVER_BIN`; next to the running executable or test bundle;
    /// then `.build/debug` and `.build/release` under the package roots above `callerFilePath` and above
    /// this source file (the first directory upwards that holds a `Package.swift`).
    public static func locateBinary(explicitPath: String? = nil, callerFilePath: String = #filePath) throws(LocalEddyServerError) -> URL {
        let variable = "EDDY_SERVER_BIN"
        if let found = BuiltExecutable.locate("eddy-server", explicitPath: explicitPath, environmentVariable: variable,
                                              callerFilePath: callerFilePath) {
            return found
        }
        let chosen = explicitPath ?? ProcessInfo.processInfo.environment[variable]
        if let chosen, !chosen.isEmpty { throw .binaryNotFound(searched: [chosen]) }
        throw .binaryNotFound(searched: BuiltExecutable.candidates("eddy-server", callerFilePath: callerFilePath).map(\.path))
    }

    // MARK: - Internals

    private func serveArguments(port: Int) -> [String] {
        var arguments = [
            "serve", "--db", databasePath, "--host", "127.0.0.1", "--port", String(port),
            "--tick-seconds", String(options.tickSeconds), "--log-level", options.logLevel,
        ]
        if options.testHooks { arguments.append("--test-hooks") }
        return arguments + options.extraServeArguments
    }

    private func end(with signal: Int32) {
        state.withLock(visibleToThreadSanitizerAs: self) { state in
            guard let process = state.process else { return }
            if process.isRunning { Self.signal(process, signal) }
            process.waitUntilExit()
            state.process = nil
        }
    }

    private static func signal(_ process: Process, _ signal: Int32) {
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, signal)
        #else
        _ = Darwin.kill(process.processIdentifier, signal)
        #endif
    }

    private func postTestHook(path: String, body: String) throws(LocalEddyServerError) {
        guard isRunning else { throw .notRunning(operation: "POST \(path)") }
        let response: SyncHTTPResponse
        do {
            let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: baseURL))
            response = try transport.send(SyncHTTPRequest(
                method: "POST", path: path, headers: ["Content-Type": "application/json"], body: Data(body.utf8)))
        } catch {
            throw .requestFailed(path: path, status: nil, message: String(describing: error))
        }
        guard response.status == 200 else {
            throw .requestFailed(path: path, status: response.status, message: String(decoding: response.body, as: UTF8.self))
        }
    }

    private static func listeningPort(in stdoutURL: URL) -> Int? {
        guard let text = Self.text(of: stdoutURL) else { return nil }
        // Only complete lines: a half-written "…:51" must not be read as port 51.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        guard let line = lines.first(where: { $0.hasPrefix("eddy-server listening on ") }),
              let portText = line.split(separator: ":").last else { return nil }
        return Int(portText.trimmingCharacters(in: .whitespaces))
    }

    /// The whole file at `url` as UTF-8 text (invalid bytes repaired), or nil when it cannot be read. Through `FileHandle`,
    /// not `String(contentsOf:)`: on Linux that leaks a 4-KB buffer for every read of an empty file (a FoundationEssentials
    /// bug, scripts/sanitizers/lsan_empty_file_repro.swift), and `start()` polls a file that stays empty until the server
    /// prints its port (docs/reliability.md §10).
    private static func text(of url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        do { return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self) } catch { return nil }
    }

    private static func addKey(binary: URL, databasePath: String, airline: String, label: String) throws(LocalEddyServerError) -> String {
        let output = try run(binary: binary, arguments: ["keys", "add", "--db", databasePath, "--airline", airline, "--label", label])
        guard let key = output.split(whereSeparator: \.isWhitespace).last.map(String.init), key.hasPrefix("eddy_") else {
            throw .unexpectedKeyOutput(output)
        }
        return key
    }

    private static func run(binary: URL, arguments: [String]) throws(LocalEddyServerError) -> String {
        let output: ProcessOutput
        do { output = try BuiltExecutable.run(binary, arguments) } catch {
            throw .launchFailed(binary: binary.path, reason: error.localizedDescription)
        }
        let text = output.stdout + output.stderr
        guard output.status == 0 else { throw .commandFailed(arguments: arguments, status: output.status, output: text) }
        return text
    }
}
#endif
