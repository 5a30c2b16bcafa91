/// Everything that can go wrong while running a ``LocalEddyServer``; each message says what to do.
public enum LocalEddyServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No executable `eddy-server` was found at any of the searched paths.
    case binaryNotFound(searched: [String])
    /// The temporary working directory could not be created.
    case directoryUnavailable(path: String, reason: String)
    /// The `eddy-server` process could not be launched at all.
    case launchFailed(binary: String, reason: String)
    /// An `eddy-server` subcommand exited with a non-zero status.
    case commandFailed(arguments: [String], status: Int32, output: String)
    /// `eddy-server keys add` printed something that does not end with an API key.
    case unexpectedKeyOutput(String)
    /// The server exited before it printed its listening line.
    case exitedDuringStartup(status: Int32, stderr: String)
    /// The server did not print its listening line within the timeout.
    case startTimedOut(seconds: Double, stderr: String)
    /// An operation needs a running server but it is stopped.
    case notRunning(operation: String)
    /// A test-hook request failed (no answer, or a non-200 status).
    case requestFailed(path: String, status: Int?, message: String)

    /// A human-readable explanation with the fix.
    public var description: String {
        switch self {
        case .binaryNotFound(let searched):
            "eddy-server binary not found: build it with `make build` or `swift build --traits LibcurlTransport,Tools` (product eddy-server) or set EDDY_SERVER_BIN "
                + "to its path; searched \(searched.joined(separator: ", "))"
        case .directoryUnavailable(let path, let reason):
            "cannot create the server's working directory \(path): \(reason); check TMPDIR is writable"
        case .launchFailed(let binary, let reason):
            "cannot launch \(binary): \(reason); check the file is an executable eddy-server build"
        case .commandFailed(let arguments, let status, let output):
            "eddy-server \(arguments.joined(separator: " ")) exited with status \(status): \(output)"
        case .unexpectedKeyOutput(let output):
            "eddy-server keys add did not print an API key (got \(output.debugDescription)); "
                + "is the binary an eddy-server of the same version as EddyTesting?"
        case .exitedDuringStartup(let status, let stderr):
            "eddy-server exited with status \(status) before listening; its stderr: \(stderr)"
        case .startTimedOut(let seconds, let stderr):
            "eddy-server did not report its port within \(seconds) s (machine overloaded? raise startTimeoutSeconds); "
                + "its stderr: \(stderr)"
        case .notRunning(let operation):
            "\(operation) needs a running server: call start() first"
        case .requestFailed(let path, let status, let message):
            "POST \(path) failed (\(status.map { "status \($0)" } ?? "no answer")): \(message); "
                + "test hooks need the server started with testHooks: true"
        }
    }
}
