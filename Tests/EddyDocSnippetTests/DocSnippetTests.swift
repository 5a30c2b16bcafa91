import Eddy
import EddyVocabulary
import Foundation
import Testing

/// The DocC getting-started article's code compiles (it is GettingStartedSnippets.swift) and runs.
@Suite struct DocSnippetTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The ```swift blocks of a Markdown text, each without its common indentation.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = [], current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                if let block = current { blocks.append(dedent(block)); current = nil }
                else if line.trimmingCharacters(in: .whitespaces) == "```swift" { current = [] }
                continue
            }
            current?.append(line)
        }
        return blocks
    }

    /// The `// snippet` … `// end` regions of a Swift file, each without its common indentation.
    static func snippetRegions(in swift: String) -> [String] {
        var regions: [String] = [], current: [String]?
        for line in swift.components(separatedBy: "\n") {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "// snippet": current = []
            case "// end": if let region = current { regions.append(dedent(region)) }; current = nil
            default: current?.append(line)
            }
        }
        return regions
    }

    static func dedent(_ lines: [String]) -> String {
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n")
    }

    @Test func everyArticleBlockIsACompiledSnippet() throws {
        let article = try String(contentsOf: Self.root.appendingPathComponent("Sources/Eddy/Eddy.docc/GettingStarted.md"), encoding: .utf8)
        let snippets = try String(contentsOf: Self.root.appendingPathComponent("Tests/EddyDocSnippetTests/GettingStartedSnippets.swift"),
                                  encoding: .utf8)
        let blocks = Self.swiftBlocks(in: article), regions = Self.snippetRegions(in: snippets)
        #expect(blocks.count >= 5)
        for block in blocks { #expect(regions.contains(block), "article block not in GettingStartedSnippets.swift:\n\(block)") }
        #expect(Set(regions) == Set(blocks), "every snippet region is shown in the article")
    }

    @Test func theSnippetsRunOnAnOfflineEngine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (engine, thresholds, logFile) = try await gettingStarted(
            storeDirectory: directory.path, apiKey: "key", delegate: Listener(), now: Date().timeIntervalSince1970)
        #expect(engine.isStarted && engine.aircraft.designator == "B738" && engine.flight?.flightNumber == "DAL123")
        #expect(!engine.isDemoRunning && !thresholds.isFromServer)
        #expect(FileManager.default.fileExists(atPath: logFile.path))
        engine.stop()
    }
}
