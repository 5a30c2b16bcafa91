import Foundation
import Testing

/// The layout's rules (docs/architecture.md), checked on the sources themselves so that the next change cannot break
/// them unseen: the engine's core does no I/O, the wall clock is read only by the system clock, the engine's facade
/// stays small, no source file grows past 600 lines, and no module's folders depend on each other in a cycle.
@Suite struct ArchitectureTests {
    /// The package's root (this file is Tests/EddyTests/ArchitectureTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Swift files under `folder` (relative to the root), with their text.
    static func sources(in folder: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            files.append((String(url.path.dropFirst(root.path.count + 1)), try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The lines of `text` without `//` comments.
    static func codeLines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let comment = line.range(of: "//") else { return line }
            return line[..<comment.lowerBound]
        }
    }

    @Test func theEngineCoreDoesNoIO() throws {
        let files = try Self.sources(in: "Sources/Eddy/Core")
        #expect(files.count >= 10, "the core's files are found")
        // Modules that do I/O or read the clock, and calls that do: none may appear in the core.
        let forbiddenImports = ["Foundation", "Dispatch", "Glibc", "Darwin", "FoundationNetworking", "GRDB", "EddyTerrain", "Logging"]
        let forbiddenCalls = ["Date()", "FileManager", "EddyStore.open", "store.", "scheduler.", ".send(", "Thread", "DispatchQueue", "clock.now()"]
        for (path, text) in files {
            for line in Self.codeLines(text) {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), index + 1 < words.count {
                    #expect(!forbiddenImports.contains(String(words[index + 1])), "\(path): \(line)")
                }
                for call in forbiddenCalls { #expect(!line.contains(call), "\(path) calls \(call): \(line)") }
            }
        }
    }

    @Test func onlyTheSystemClockReadsTheWallClock() throws {
        var readers: [String] = []
        for folder in ["Sources/Eddy", "Sources/EddySync", "Sources/EddySupport", "Sources/EddyNavigation", "Sources/EddyDetection",
                       "Sources/EddyAlerts", "Sources/EddyVocabulary", "Sources/EddyStore"] {
            for (path, text) in try Self.sources(in: folder) where Self.codeLines(text).contains(where: { $0.contains("Date()") }) {
                readers.append(path)
            }
        }
        #expect(readers == ["Sources/EddySupport/Clock/EpochClock.swift"], "Date() is read by \(readers)")
        let sync = try Self.sources(in: "Sources/EddySync") + Self.sources(in: "Sources/Eddy")
        for (path, text) in sync {
            for word in ["NSCondition", "Thread {", "Thread(", "Thread.sleep"] {
                #expect(!Self.codeLines(text).contains { $0.contains(word) }, "\(path) uses \(word)")
            }
        }
    }

    @Test func theEngineFacadeStaysSmall() throws {
        let facade = try #require(try Self.sources(in: "Sources/Eddy/Shell").first { $0.path.hasSuffix("/EddyEngine.swift") })
        let lines = facade.text.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 400, "EddyEngine.swift has \(lines) lines")
    }

    /// The targets whose dependencies come with trait `Tools` (Package.swift) compile only with it: every file of theirs
    /// is inside `#if Tools` (but the stand-in entry points for a build without it), so a plain `swift build` works.
    @Test func toolTargetsCompileOnlyWithTheToolsTrait() throws {
        for folder in ["Sources/EddyServerKit", "Sources/EddyServer", "Sources/EddyCLI", "Tests/EddyServerTests"] {
            let files = try Self.sources(in: folder)
            #expect(!files.isEmpty, "\(folder)")
            for (path, text) in files where !path.hasSuffix("/WithoutTools.swift") {
                let code = text.split(separator: "\n").drop { $0.hasPrefix("//") }
                #expect(code.first == "#if Tools" && code.last == "#endif", "\(path) must be inside #if Tools … #endif")
            }
        }
    }

    @Test func noSourceFileIsOver600LinesButDataTables() throws {
        let dataTables: Set<String> = ["Sources/EddyGeoid/EGM96Grid.swift"]
        for (path, text) in try Self.sources(in: "Sources") where !dataTables.contains(path) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 600, "\(path) has \(lines) lines")
        }
    }

    /// Folder-level dependencies inside each module: a folder depends on another when it names a type declared there.
    @Test func noModuleHasFoldersThatDependOnEachOtherInACycle() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path)
        for module in modules.sorted() {
            let files = try Self.sources(in: "Sources/" + module)
            func folder(_ path: String) -> String {
                let parts = path.split(separator: "/").dropFirst(2).dropLast()
                return parts.joined(separator: "/")
            }
            // Top-level type names declared once, and the folder that declares each.
            var declared: [String: Set<String>] = [:]
            for (path, text) in files {
                for line in Self.codeLines(text) where !line.hasPrefix(" ") {
                    let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
                    for (i, word) in words.enumerated() where ["struct", "enum", "class", "protocol", "actor"].contains(String(word)) && i + 1 < words.count {
                        declared[String(words[i + 1]), default: []].insert(folder(path))
                    }
                }
            }
            let owner = declared.compactMapValues { $0.count == 1 ? $0.first : nil }
            var edges: [String: Set<String>] = [:]
            for (path, text) in files {
                let from = folder(path)
                let code = Self.codeLines(text).joined(separator: "\n")
                for (name, to) in owner where to != from && !from.isEmpty && !to.isEmpty {
                    if code.range(of: "\\b\(name)\\b", options: .regularExpression) != nil { edges[from, default: []].insert(to) }
                }
            }
            if let cycle = Self.cycle(in: edges) { Issue.record("\(module): folders in a cycle: \(cycle.joined(separator: " → "))") }
        }
    }

    /// A cycle of the directed graph `edges`, if it has one (depth-first search), as the nodes along it.
    static func cycle(in edges: [String: Set<String>]) -> [String]? {
        var state: [String: Int] = [:]   // 1: on the current path, 2: done
        var path: [String] = []
        func visit(_ node: String) -> [String]? {
            state[node] = 1
            path.append(node)
            for next in (edges[node] ?? []).sorted() {
                if state[next] == 1, let start = path.firstIndex(of: next) { return Array(path[start...]) + [next] }
                if state[next] == nil, let found = visit(next) { return found }
            }
            path.removeLast()
            state[node] = 2
            return nil
        }
        for node in edges.keys.sorted() where state[node] == nil {
            if let found = visit(node) { return found }
        }
        return nil
    }

    @Test func theCycleFinderFindsCycles() {
        #expect(Self.cycle(in: ["a": ["b"], "b": ["c"], "c": ["a"]]) == ["a", "b", "c", "a"])
        #expect(Self.cycle(in: ["a": ["b"], "b": ["c"], "d": ["a"]]) == nil)
    }
}
