import Foundation

/// A failure of the test harness itself (a missing binary).
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
