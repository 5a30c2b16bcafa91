import EddyTesting
import Foundation
import Testing

/// The README's shell examples run as written: every fenced block whose info string is `sh tested` is run line by line
/// (a line ending in `\` continues on the next) with `/bin/bash` in one temporary directory where `.build/release`
/// points at this build's binaries. Each line must exit 0; a line with `# → TEXT` must print TEXT.
@Suite struct ReadmeExamplesTests {
    /// One runnable README line.
    struct Example: Sendable, CustomStringConvertible {
        /// The command as bash runs it (continuations joined).
        var command: String
        /// Text the output must contain (after `# →`); nil: only the exit status is checked.
        var expected: String?
        /// README line number of its first line.
        var line: Int
        var description: String { "README.md:\(line): \(command)" }
    }

    /// The tested blocks' commands, in README order.
    static func examples(in readme: String) -> [Example] {
        var examples: [Example] = []
        var inTested = false, inBlock = false
        var pending = "", pendingLine = 0
        for (index, raw) in readme.components(separatedBy: "\n").enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                if inBlock { inBlock = false; inTested = false } else { inBlock = true; inTested = line == "```sh tested" }
                continue
            }
            guard inTested else { continue }
            if pending.isEmpty && (line.isEmpty || line.hasPrefix("#")) { continue }
            if pending.isEmpty { pendingLine = index + 1 }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()).trimmingCharacters(in: .whitespaces) + " "
                continue
            }
            pending += line
            var command = pending, expected: String?
            if let marker = pending.range(of: "# → ") {
                expected = String(pending[marker.upperBound...]).components(separatedBy: " (").first?.trimmingCharacters(in: .whitespaces)
                command = String(pending[..<marker.lowerBound])
            }
            examples.append(Example(command: command.trimmingCharacters(in: .whitespaces), expected: expected, line: pendingLine))
            pending = ""
        }
        return examples
    }

    @Test func theParserFindsOnlyTestedBlocksAndTheirExpectations() {
        let text = "```sh\nmake test\n```\n```sh tested\n# note\necho a \\\n  b   # → a b\necho c\n```\n"
        let found = Self.examples(in: text)
        #expect(found.map(\.command) == ["echo a b", "echo c"])
        #expect(found.map(\.expected) == ["a b", nil])
        #expect(found.map(\.line) == [6, 8])
    }

    @Test func readmeShellExamplesRunAsWritten() throws {
        let readme = try String(contentsOf: Package.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = Self.examples(in: readme)
        #expect(examples.count >= 8, "the README's tested blocks: \(examples.count) commands")
        let binaries = try Package.executable("eddy").deletingLastPathComponent()
        let directory = try TemporaryDirectory(prefix: "eddy-readme")
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent(".build"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: directory.url.appendingPathComponent(".build/release"), withDestinationURL: binaries)
        for example in examples {
            let output = try BuiltExecutable.run(
                URL(fileURLWithPath: "/bin/bash"), ["-c", "cd \"$EDDY_README_DIR\" && " + example.command],
                environment: ProcessInfo.processInfo.environment.merging(["EDDY_README_DIR": directory.url.path]) { $1 })
            #expect(output.status == 0, "\(example) exited \(output.status): \(output.stderr.suffix(500))")
            if let expected = example.expected {
                #expect(output.stdout.contains(expected), "\(example) printed no \(expected): \(output.stdout.prefix(500))")
            }
        }
    }
}
