// `Process` exists on Linux and macOS only: iOS, tvOS, watchOS and visionOS builds of EddyTesting leave this file out.
#if os(Linux) || os(macOS)
import EddySupport
public import Foundation
import Synchronization

/// Finds an executable of this package's build (`eddy`, `eddy-server`, `eddy-store-crash-writer`) for tests that run it
/// as a real process.
public enum BuiltExecutable {
    /// Every place ``locate(_:explicitPath:environmentVariable:callerFilePath:)`` looks, in order: the explicit path,
    /// the environment variable, next to the running test executable or bundle (walking up a few levels: a test
    /// bundle may be a directory), then `.build/debug` and `.build/release` of the package above the caller's source
    /// file and above EddyTesting's own.
    public static func candidates(_ name: String, explicitPath: String? = nil, environmentVariable: String? = nil,
                                  callerFilePath: String = #filePath) -> [URL] {
        var candidates: [URL] = []
        if let explicitPath, !explicitPath.isEmpty { candidates.append(URL(fileURLWithPath: explicitPath)) }
        if let variable = environmentVariable, let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty {
            candidates.append(URL(fileURLWithPath: value))
        }
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in directories {
            var url = directory
            for _ in 0..<4 {
                candidates.append(url.appendingPathComponent(name))
                url = url.deletingLastPathComponent()
            }
        }
        for source in [callerFilePath, #filePath] {
            guard let root = packageRoot(above: source) else { continue }
            candidates.append(root.appendingPathComponent(".build/debug/\(name)"))
            candidates.append(root.appendingPathComponent(".build/release/\(name)"))
        }
        var seen = Set<String>()
        return candidates.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The first executable candidate; nil when none exists. An explicit path or a set environment variable is a
    /// decision: it is never silently passed over (nil when it is not executable).
    public static func locate(_ name: String, explicitPath: String? = nil, environmentVariable: String? = nil,
                              callerFilePath: String = #filePath) -> URL? {
        let chosen = explicitPath ?? environmentVariable.flatMap { ProcessInfo.processInfo.environment[$0] }
        if let chosen, !chosen.isEmpty {
            return FileManager.default.isExecutableFile(atPath: chosen) ? URL(fileURLWithPath: chosen) : nil
        }
        return candidates(name, callerFilePath: callerFilePath).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The nearest directory above `filePath` that holds a `Package.swift`.
    public static func packageRoot(above filePath: String) -> URL? {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" && !directory.path.isEmpty {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs `executable` to the end and captures both output streams (drained concurrently, so neither pipe can fill
    /// up and block the child). Throws only when the process cannot be launched.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessOutput {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stderrData = Mutex<Data?>(nil)
        let stderrRead = DispatchSemaphore(value: 0)
        let reader = Thread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            stderrData.withLock(visibleToThreadSanitizerAs: stderrRead) { $0 = data }
            stderrRead.signal()
        }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        stderrRead.wait()
        return ProcessOutput(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                             stderr: String(decoding: stderrData.withLock(visibleToThreadSanitizerAs: stderrRead) { $0 } ?? Data(), as: UTF8.self),
                             pid: process.processIdentifier)
    }
}

/// What a finished process left.
public struct ProcessOutput: Sendable, Equatable {
    /// Exit status.
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: String
    /// Everything written to standard error.
    public var stderr: String
    /// Its process id (names of files it made may contain it).
    public var pid: Int32
    /// Creates one.
    public init(status: Int32, stdout: String, stderr: String, pid: Int32) {
        self.status = status; self.stdout = stdout; self.stderr = stderr; self.pid = pid
    }
    /// Standard output's non-empty lines.
    public var lines: [Substring] { stdout.split(separator: "\n") }
}
#endif
