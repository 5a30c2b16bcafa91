import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `openssl s_server -www` on 127.0.0.1 with a fresh self-signed certificate (subjectAltName IP:127.0.0.1): a TLS
/// server no system trust store accepts. Needs the `openssl` command (Debian package `openssl`, in the Makefile's
/// APT_PACKAGES).
final class SelfSignedTLSServer {
    /// The port it listens on.
    let port: Int
    /// The certificate (PEM), usable as a CA bundle: it is its own issuer.
    let certificatePath: String
    private let directory: URL
    private let process: Process

    struct Failure: Error, CustomStringConvertible { let description: String }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let openssl = try Self.openssl()
        let made = try Self.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificatePath,
                                          "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        guard made == 0 else { throw Failure(description: "openssl req exited \(made)") }
        // A free port: bind to 0, read it back, release it for s_server (a small race, retried by the caller's test).
        let (probe, free) = try LoopbackSocket.listen()
        close(probe)
        port = free
        process = Process()
        process.executableURL = openssl
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(free)", "-cert", certificatePath, "-key", key, "-www", "-quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let fd = try? LoopbackSocket.connect(port: free) { LoopbackSocket.closeNow(fd); return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        _ = kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw Failure(description: "openssl s_server did not listen on \(free)")
    }

    deinit {
        // SIGKILL: s_server may run with SIGTERM ignored (inherited from the test runner), and then never exits.
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func openssl() throws -> URL {
        for path in ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        throw Failure(description: "the openssl command is missing: install the Debian package openssl (make deps does)")
    }

    private static func run(_ executable: URL, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
