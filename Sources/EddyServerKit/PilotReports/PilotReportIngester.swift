#if Tools
package import EddySupport
import Foundation
package import Logging

/// What an ingest did: counts, and every line that failed with its file, line, problem and remedy.
package struct PilotReportIngestSummary: Sendable {
    /// An empty summary.
    package init() {}

    /// Files read.
    package var filesRead = 0
    /// Lines that were reports, skipped reports or errors (blank, comment and CSV preamble lines are not counted).
    package var linesRead = 0
    /// Reports stored now.
    package var stored = 0
    /// Reports already held (the same report read before).
    package var duplicates = 0
    /// Reports without turbulence or altitude: counted, not stored.
    package var skipped = 0
    /// Lines that failed: `FILE:LINE: problem; remedy`.
    package var errors: [String] = []
    /// Files that could not be read or stored, with the reason.
    package var unreadable: [String] = []

    /// Whether nothing at all could be read (every file unreadable, or no line decoded): the command's failure.
    package var nothingRead: Bool { stored + duplicates + skipped == 0 && (!errors.isEmpty || !unreadable.isEmpty || filesRead == 0) }

    /// The one-line summary.
    package var line: String {
        "pilot reports: \(filesRead) file(s), \(linesRead) line(s): \(stored) stored, \(duplicates) already held, "
            + "\(skipped) without turbulence or altitude, \(errors.count) line error(s), \(unreadable.count) unreadable file(s)"
    }

    /// Adds another summary's counts and messages.
    package mutating func add(_ other: PilotReportIngestSummary) {
        filesRead += other.filesRead; linesRead += other.linesRead; stored += other.stored; duplicates += other.duplicates
        skipped += other.skipped; errors += other.errors; unreadable += other.unreadable
    }
}

/// Reads pilot-report files (raw PIREP / AIREP lines or the AWC aircraft-report CSV) into the server's storage: the
/// I/O around `PilotReportReader`. Idempotent: reading a file twice stores nothing new.
package struct PilotReportIngester: Sendable {
    /// Where reports go.
    package var storage: any PilotReportStorage
    /// Stations for station-relative locations (`--stations`).
    package var stations: StationTable?
    /// Dates raw lines' `/TM` times instead of each file's modification time, Unix seconds (`--reference-time`).
    package var referenceTime: Double?
    /// The clock of `received_at`.
    package var clock: any EpochClock

    /// An ingester into `storage`.
    package init(storage: any PilotReportStorage, stations: StationTable?, referenceTime: Double? = nil,
                 clock: any EpochClock = SystemEpochClock()) {
        self.storage = storage
        self.stations = stations
        self.referenceTime = referenceTime
        self.clock = clock
    }

    /// The files a path names: itself, or a folder's regular, non-hidden files sorted by name.
    package static func files(at path: String) throws(PilotReportLineError) -> [String] {
        do { return try IngestFiles.files(at: path, expected: "a PIREP/AIREP text file, an AWC aircraft-report CSV") } catch {
            throw PilotReportLineError("\(path): \(error.problem)", error.remedy)
        }
    }

    /// Ingests every file `paths` name (folders: their files).
    package func ingest(paths: [String]) async -> PilotReportIngestSummary {
        await .ingesting(paths: paths, files: { path throws in try Self.files(at: path) }, file: { await ingest(file: $0) })
    }

    /// Ingests one file: decodes every line, stores the reports in one transaction and counts the rest.
    package func ingest(file: String) async -> PilotReportIngestSummary {
        var summary = PilotReportIngestSummary()
        let data: Data, modified: Double
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? clock.now()
        } catch {
            summary.unreadable.append("\(file): cannot be read (\(error.localizedDescription)); check that it exists and is readable")
            return summary
        }
        // Reports are ASCII; in a file that is not UTF-8 every non-ASCII byte reads as "?" rather than the file being refused.
        let text = String(data: data, encoding: .utf8) ?? String(decoding: data.map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self)
        let reading = PilotReportReader.read(text, source: file, referenceTime: referenceTime ?? modified, stations: stations)
        summary.filesRead = 1
        summary.linesRead = reading.lines.count
        summary.skipped = reading.skips.count
        summary.errors = reading.errors.map { "\(file):\($0.line): \($0.error)" }
        // The same report twice in one file is one report.
        var seen = Set<String>()
        let records = reading.records.filter { seen.insert($0.id).inserted }
        summary.duplicates = reading.records.count - records.count
        do {
            let fresh = try await storage.storePilotReports(records, receivedAt: clock.now())
            summary.stored = fresh.count
            summary.duplicates += records.count - fresh.count
        } catch {
            summary.unreadable.append("\(file): nothing stored: \(error); the file is read again at the next ingest")
            summary.filesRead = 0
        }
        return summary
    }
}

/// The watcher of a folder of pilot-report files (`serve --pilot-reports-folder`).
package typealias PilotReportFolderWatcher = IngestFolderWatcher<PilotReportIngestSummary>

extension PilotReportIngester {
    /// A watcher of `folder` that ingests its new and changed files with this ingester.
    package func folderWatcher(folder: String, logger: Logger) -> PilotReportFolderWatcher {
        PilotReportFolderWatcher(folder: folder, noun: "pilot report", part: "line", logger: logger) { file in await self.ingest(file: file) }
    }
}

extension PilotReportIngestSummary: IngestSummary {}
#endif
