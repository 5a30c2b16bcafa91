import Dispatch
import EddySupport
package import Foundation
import Synchronization

/// A size-capped rolling log file written on its own serial queue: `append` only queues the line (under a short
/// lock, no I/O), so a caller never waits for the disk. When more than `maximumPendingBytes` wait, new lines are
/// dropped and counted (the count is written when the writer catches up).
package final class RollingLogFile: Sendable {
    /// The directory of the files.
    package let directory: URL
    /// Size at which the current file rolls over, bytes.
    package let maximumFileBytes: Int
    /// Files kept, the current one included.
    package let fileCount: Int
    /// Lines waiting beyond this many bytes are dropped.
    package static let maximumPendingBytes = 256 * 1024

    private struct Pending {
        var lines: [String] = []
        var bytes = 0
        var dropped = 0
        var scheduled = false
    }
    private let pending = Mutex(Pending())
    private let queue = DispatchQueue(label: "eddy.log-writer", qos: .utility)

    /// Creates the writer (the directory is created at the first write).
    package init(directory: URL, maximumFileBytes: Int, fileCount: Int) {
        self.directory = directory
        self.maximumFileBytes = max(1024, maximumFileBytes)
        self.fileCount = max(1, fileCount)
    }

    /// File `index` (0 is the current file, higher is older).
    package func fileURL(_ index: Int) -> URL {
        directory.appendingPathComponent(index == 0 ? "eddy.log" : "eddy.\(index).log")
    }

    /// Queues one line (a newline is added). Never blocks on I/O.
    package func append(_ line: String) {
        let schedule = pending.withLock(visibleToThreadSanitizerAs: self) { p -> Bool in
            guard p.bytes + line.utf8.count <= Self.maximumPendingBytes else { p.dropped += 1; return false }
            p.lines.append(line)
            p.bytes += line.utf8.count + 1
            defer { p.scheduled = true }
            return !p.scheduled
        }
        if schedule { queue.async { [self] in drain() } }
    }

    /// Waits until every queued line is on disk.
    package func flush() {
        queue.sync { drain() }
    }

    /// Every file, oldest first, concatenated into `destination` (replaced).
    package func export(to destination: URL) throws {
        flush()
        try queue.sync {
            var data = Data()
            for index in stride(from: fileCount - 1, through: 0, by: -1) {
                if let part = try? Data(contentsOf: fileURL(index)) { data.append(part) }
            }
            try data.write(to: destination, options: .atomic)
        }
    }

    /// Runs on the writer queue: writes what waits, rolling files over at the size cap.
    private func drain() {
        let (lines, dropped) = pending.withLock(visibleToThreadSanitizerAs: self) { p -> ([String], Int) in
            defer { p = Pending() }
            return (p.lines, p.dropped)
        }
        var text = lines.map { $0 + "\n" }
        if dropped > 0 { text.append("(\(dropped) log lines dropped: the writer fell behind)\n") }
        guard !text.isEmpty else { return }
        let manager = FileManager.default
        try? manager.createDirectory(at: directory, withIntermediateDirectories: true)
        var size = ((try? manager.attributesOfItem(atPath: fileURL(0).path))?[.size] as? NSNumber)?.intValue ?? 0
        var chunk = Data()
        for line in text {
            let bytes = Data(line.utf8)
            // The current file holds `size` bytes on disk plus `chunk`; a line that would take it over the cap starts
            // the next file (a file is never left empty, so a single line longer than the cap still gets written).
            if size + chunk.count > 0, size + chunk.count + bytes.count > maximumFileBytes {
                write(chunk)
                chunk.removeAll(keepingCapacity: true)
                roll()
                size = 0
            }
            chunk.append(bytes)
        }
        write(chunk)
    }

    private func write(_ data: Data) {
        guard !data.isEmpty else { return }
        let url = fileURL(0)
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        guard let handle = try? FileHandle(forWritingTo: url) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: data)
    }

    /// eddy.log → eddy.1.log → … ; the oldest beyond `fileCount` is deleted.
    private func roll() {
        let manager = FileManager.default
        try? manager.removeItem(at: fileURL(fileCount - 1))
        guard fileCount > 1 else { return }
        for index in stride(from: fileCount - 2, through: 0, by: -1) {
            try? manager.moveItem(at: fileURL(index), to: fileURL(index + 1))
        }
    }
}
