#if Tools
import Foundation
package import Logging

/// The files an ingest command's path names (`ingest-pilot-reports`, `ingest-forecast` and their watched folders).
enum IngestFiles {
    /// Why a path names no files: what is wrong, what to do.
    struct Problem: Error {
        let problem: String
        let remedy: String
    }

    /// The path itself, or a folder's regular, non-hidden files sorted by name; `expected` names the files wanted
    /// ("a GRIB2 file"), for the remedy of a path that does not exist.
    static func files(at path: String, expected: String) throws(Problem) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw Problem(problem: "no such file or folder", remedy: "give \(expected) or a folder of them")
        }
        guard isFolder.boolValue else { return [path] }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw Problem(problem: "the folder cannot be listed (\(error.localizedDescription))", remedy: "check its permissions")
        }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { (path as NSString).appendingPathComponent($0) }.filter { file in
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &folder) && !folder.boolValue
        }
    }
}

/// An ingest's summary, as a folder watcher merges and logs it (`PilotReportIngestSummary`, `ForecastIngestSummary`).
package protocol IngestSummary: Sendable {
    /// An empty summary.
    init()
    /// Files read (1 when a file was read and stored, so that it is not read again until it changes).
    var filesRead: Int { get }
    /// Parts of files (lines, messages) that failed, with file, place, problem and remedy.
    var errors: [String] { get }
    /// Files that could not be read or stored, with the reason.
    var unreadable: [String] { get set }
    /// The one-line summary.
    var line: String { get }
    /// Adds another summary's counts and messages.
    mutating func add(_ other: Self)
}

extension IngestSummary {
    /// Ingests every file `paths` name, one at a time with `file`: a path is itself or a folder's files as `files` lists
    /// them; a path that cannot be listed is counted unreadable with the reason.
    package static func ingesting(paths: [String], files: (String) throws -> [String], file: (String) async -> Self) async -> Self {
        var summary = Self()
        for path in paths {
            do {
                for name in try files(path) { summary.add(await file(name)) }
            } catch {
                summary.unreadable.append("\(error)")
            }
        }
        return summary
    }
}

/// Watches a folder while the server runs: every `pollSeconds` it ingests the files that are new or changed since it
/// last read them (name, size and modification time). Polling rather than inotify: it works on every platform and network
/// file system, and a delay of a poll interval is nothing for reports minutes old or forecasts issued hours ahead.
package actor IngestFolderWatcher<Summary: IngestSummary> {
    private let folder: String
    private let noun: String
    private let part: String
    private let ingest: @Sendable (String) async -> Summary
    private let logger: Logger
    /// (size, modification time) of each file as last ingested without a storage failure.
    private var ingested: [String: [Double]] = [:]

    /// A watcher of `folder` whose files `ingest` reads; log lines name them `noun` ("pilot report") and their failing
    /// parts `part` ("line").
    package init(folder: String, noun: String, part: String, logger: Logger, ingest: @escaping @Sendable (String) async -> Summary) {
        (self.folder, self.noun, self.part, self.logger, self.ingest) = (folder, noun, part, logger, ingest)
    }

    /// Ingests the new and changed files once; returns what it did (nothing when nothing changed).
    package func poll() async -> Summary {
        var summary = Summary()
        let files: [String]
        do { files = try IngestFiles.files(at: folder, expected: "a folder") } catch {
            logger.warning("\(noun) folder not readable", metadata: ["folder": "\(folder)", "error": "\(error.problem)"])
            return summary
        }
        for file in files {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file) else { continue }
            let stamp = [Double((attributes[.size] as? NSNumber)?.int64Value ?? -1),
                         (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0]
            if ingested[file] == stamp { continue }
            let result = await ingest(file)
            if result.filesRead == 1 { ingested[file] = stamp }
            for error in result.errors { logger.warning("\(noun) \(part) rejected: \(error)") }
            for problem in result.unreadable { logger.error("\(noun) file not ingested: \(problem)") }
            summary.add(result)
        }
        if summary.filesRead > 0 || !summary.unreadable.isEmpty { logger.info("\(summary.line)", metadata: ["folder": "\(folder)"]) }
        return summary
    }

    /// Polls every `pollSeconds` until the task is cancelled.
    package func run(pollSeconds: Double) async {
        while !Task.isCancelled {
            _ = await poll()
            try? await Task.sleep(nanoseconds: UInt64(max(0.05, pollSeconds) * 1e9))
        }
    }
}
#endif
