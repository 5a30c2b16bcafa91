import Foundation
import Testing

/// Issue 29 deliverable 2: a host app that depends on the `Eddy` product resolves only what the engine links. A
/// throw-away package outside the repository depends on it by path, `swift package resolve` runs there, and its
/// `Package.resolved` is counted. The command line's and the server's dependencies come with trait `Tools`, off by
/// default, and SwiftPM leaves trait-gated dependencies out of resolution (before: 29 packages).
@Suite struct HostPackageResolutionTests {
    @Test func aHostAppResolvesOnlyTheEnginesPackages() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-host-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "HostApp",
                platforms: [.macOS(.v15), .iOS(.v18)],
                dependencies: [.package(path: "\(ArchitectureTests.root.path)")],
                targets: [.executableTarget(name: "App", dependencies: [.product(name: "Eddy", package: "\(ArchitectureTests.root.lastPathComponent)")])]
            )
            """.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import Eddy\nprint(EddyVersion.current)\n".write(to: folder.appendingPathComponent("Sources/App/main.swift"), atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "resolve"]
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")

        let resolved = try Data(contentsOf: folder.appendingPathComponent("Package.resolved"))
        let pins = try #require((try JSONSerialization.jsonObject(with: resolved) as? [String: Any])?["pins"] as? [[String: Any]])
        let identities = Set(pins.compactMap { $0["identity"] as? String })
        #expect(identities.count <= 5, "a host app resolves \(identities.count) packages: \(identities.sorted())")
        #expect(identities.isSubset(of: ["grdb.swift", "swift-log"]), "\(identities.sorted())")
    }
}
