import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A failure of the test harness itself (missing binary, server that would not start).
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// Paths of the package, its fixtures and its built executables, found from this file's location.
enum Package {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func flight(_ name: String) -> String { root.appendingPathComponent("Fixtures/flights/\(name)").path }

    /// An executable built next to the tests, or under `.build/debug`.
    static func executable(_ name: String) throws -> URL {
        var directories: [URL] = []
        if let exe = Bundle.main.executableURL { directories.append(exe.deletingLastPathComponent()) }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        directories.append(root.appendingPathComponent(".build/debug"))
        for directory in directories {
            var url = directory
            for _ in 0..<4 {   // a test bundle may be a directory: walk up a few levels
                let candidate = url.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                url = url.deletingLastPathComponent()
            }
        }
        throw HarnessError(description: "\(name) not built: run `swift build --build-tests`")
    }
}

/// What a finished subprocess left.
struct ProcessOutput {
    var status: Int32
    var stdout: String
    var stderr: String
    var pid: Int32
    var lines: [Substring] { stdout.split(separator: "\n") }
}

/// Runs an executable to the end and captures its output.
func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Drain stderr on another thread so neither pipe can fill up and block the child.
    let stderrBox = DataBox()
    let reader = Thread { stderrBox.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let stderr = stderrBox.wait()
    return ProcessOutput(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self), pid: process.processIdentifier)
}

/// Runs `eddy` with arguments.
func eddy(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessOutput {
    try runProcess(try Package.executable("eddy"), arguments, environment: environment)
}

/// Data handed from a reader thread to the test.
final class DataBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?
    func set(_ value: Data) { condition.lock(); data = value; condition.signal(); condition.unlock() }
    func wait() -> Data {
        condition.lock(); defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data!
    }
}

/// A real `eddy-server` on 127.0.0.1 with its own temporary database and one API key (started with `--port 0`,
/// the port read from its stdout), terminated on release.
final class TestServer {
    let directory: String
    let apiKey: String
    let airline: String
    private(set) var port = 0
    private let process = Process()

    init(airline: String = "DAL") throws {
        self.airline = airline
        directory = NSTemporaryDirectory() + "eddy-cli-server-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = directory + "/server.sqlite"
        let server = try Package.executable("eddy-server")
        let added = try runProcess(server, ["keys", "add", "--db", database, "--airline", airline, "--label", "cli-test"])
        guard added.status == 0, let key = added.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).last.map(String.init),
              key.hasPrefix("eddy_") else { throw HarnessError(description: "keys add failed: \(added.stdout) \(added.stderr)") }
        apiKey = key
        let stdoutPath = directory + "/stdout.log"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        process.executableURL = server
        process.arguments = ["serve", "--db", database, "--port", "0", "--tick-seconds", "1", "--log-level", "warning"]
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            if let text = try? String(contentsOfFile: stdoutPath, encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("eddy-server listening on") }),
               let bound = line.split(separator: ":").last.flatMap({ Int($0) }) {
                port = bound
                return
            }
            usleep(20_000)
        }
        process.terminate()
        throw HarnessError(description: "eddy-server did not start within 30 s")
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The server's base URL.
    var baseURL: String { "http://127.0.0.1:\(port)" }
}
