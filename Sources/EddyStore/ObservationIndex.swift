import EddyVocabulary
import Foundation
import GRDB

/// In-memory spatial index over the `observation` table.
///
/// The table itself is an append-only log (rowid order = arrival order, no secondary index), so ingesting a batch
/// of server reports only appends pages at the end of the file. Any on-disk index keyed by tile would receive
/// random inserts and rewrite most of its pages on every batch (measured: 2.8 GB of WAL for 100 MB of reports).
/// The index — cell → compact entries — is rebuilt by one scan when the store opens and kept in step by the
/// writer after each commit. SQLite stays the only source of truth. See docs/store.md.
final class ObservationIndex: @unchecked Sendable {
    /// Everything of a report but the reporter id and source, so queries need not touch the table (72 bytes).
    struct Entry: Sendable, Equatable {
        var rowid: Int64
        var exitTime: Double
        var enterTime: Double
        var edrPeak: Double
        var edrMedian: Double
        var idHigh: UInt64
        var idLow: UInt64
        /// 90 % altitude uncertainty, feet; NaN when the report has none (stored values are finite and ≥ 0).
        var altitudeU90Feet: Double
        var layer: Int32
        var reporterClass: UInt8
        /// Position in `AltitudeSource.allCases`, `noCode` when the report has none.
        var altitudeSource: UInt8
        /// 0 false, 1 true, `noCode` when the report has none.
        var layerUncertain: UInt8

        /// The report this entry describes, in `cell`.
        func report(cell: UInt64) -> TileReport {
            TileReport(
                id: UUID(high: idHigh, low: idLow), tile: TileID(h3: cell, layer: Int(layer)), enterTime: enterTime,
                exitTime: exitTime, edrPeak: edrPeak, edrMedian: edrMedian,
                reporterClass: Entry.classes[Int(reporterClass)],
                altitudeSource: altitudeSource == Entry.noCode ? nil : Entry.sources[Int(altitudeSource)],
                altitudeU90Feet: altitudeU90Feet.isNaN ? nil : altitudeU90Feet,
                layerUncertain: layerUncertain == Entry.noCode ? nil : layerUncertain == 1)
        }

        /// Aircraft classes by code (the index stores the position in `AircraftClass.allCases`).
        static let classes = AircraftClass.allCases
        /// Altitude sources by code (the position in `AltitudeSource.allCases`).
        static let sources = AltitudeSource.allCases
        /// The code of an absent optional field.
        static let noCode: UInt8 = 0xFF

        /// The code of an aircraft class.
        static func code(_ reporterClass: AircraftClass) -> UInt8 {
            UInt8(classes.firstIndex(of: reporterClass)!)
        }

        /// The code of an optional altitude source.
        static func code(_ source: AltitudeSource?) -> UInt8 {
            guard let source, let position = sources.firstIndex(of: source) else { return noCode }
            return UInt8(position)
        }

        /// The code of an optional flag.
        static func code(_ flag: Bool?) -> UInt8 {
            guard let flag else { return noCode }
            return flag ? 1 : 0
        }
    }

    private let lock = NSLock()
    private var cells: [UInt64: [Entry]] = [:]
    private var entryCount = 0
    /// The `observation_generation` of the log this index reflects (−1: unknown, rebuild before use).
    private var generation: Int64 = -1

    /// Number of indexed observations.
    var count: Int { lock.withLock { entryCount } }

    /// The log's generation as seen by `db` (bumped by every transaction that changes the log).
    static func currentGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM store_state WHERE key = 'observation_generation'") ?? 0
    }

    /// Bumps the log's generation inside the caller's write transaction; returns the new value.
    static func bumpGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db, sql: "UPDATE store_state SET value = value + 1 WHERE key = 'observation_generation' RETURNING value") ?? 0
    }

    /// Rebuilds the index from `db`'s snapshot when the log changed behind its back (another store instance or
    /// process wrote observations). Cheap when nothing changed: one primary-key read.
    func refresh(_ db: Database) throws {
        let current = try Self.currentGeneration(db)
        if lock.withLock({ generation }) == current { return }
        try rebuild(db, generation: current)
    }

    /// Rebuilds the index from the table as of `db`'s snapshot, which is at `snapshotGeneration`.
    private func rebuild(_ db: Database, generation snapshotGeneration: Int64) throws {
        var fresh: [UInt64: [Entry]] = [:]
        var total = 0
        let cursor = try Row.fetchCursor(
            db, sql: """
                SELECT rowid, h3, layer, exit_time, edr_peak, id, enter_time, edr_median, reporter_class,
                    altitude_source, altitude_u90_ft, layer_uncertain FROM observation
                """)
        while let row = try cursor.next() {
            let halves = try row.withUnsafeData(atIndex: 5) { blob -> (high: UInt64, low: UInt64) in
                guard let blob, blob.count == 16 else {
                    throw StoreError.undecodableRow(table: "observation", detail: "id is not 16 bytes")
                }
                return UUID.halves(of: blob)
            }
            let h3: Int64 = row[1]
            let className: String = row[8]
            guard let reporterClass = AircraftClass(rawValue: className) else {
                throw StoreError.undecodableRow(table: "observation", detail: "unknown reporter class '\(className)'")
            }
            var altitudeSource: AltitudeSource?
            if let sourceName: String = row[9] {
                guard let source = AltitudeSource(rawValue: sourceName) else {
                    throw StoreError.undecodableRow(table: "observation", detail: "unknown altitude source '\(sourceName)'")
                }
                altitudeSource = source
            }
            let u90: Double? = row[10]
            let layerUncertain: Int64? = row[11]
            fresh[UInt64(bitPattern: h3), default: []].append(Entry(
                rowid: row[0], exitTime: row[3], enterTime: row[6], edrPeak: row[4], edrMedian: row[7],
                idHigh: halves.high, idLow: halves.low, altitudeU90Feet: u90 ?? .nan, layer: Int32(clamping: row[2] as Int),
                reporterClass: Entry.code(reporterClass), altitudeSource: Entry.code(altitudeSource),
                layerUncertain: Entry.code(layerUncertain.map { $0 != 0 })))
            total += 1
        }
        lock.withLock {
            // Generations only grow: never replace a newer index with an older snapshot.
            guard snapshotGeneration > generation else { return }
            cells = fresh
            entryCount = total
            generation = snapshotGeneration
        }
    }

    /// Whether a change committed as `newGeneration` should be applied (`true`), is already in the index
    /// (a refresh saw it), or cannot be applied because another writer's commit was missed (the index is then
    /// marked stale and the next access rebuilds it). Call under the lock.
    private func accept(_ newGeneration: Int64) -> Bool {
        if generation >= newGeneration { return false }
        if generation != newGeneration - 1 {
            generation = -1
            return false
        }
        generation = newGeneration
        return true
    }

    /// The entry with this id in this cell, if indexed.
    func find(cell: UInt64, idHigh: UInt64, idLow: UInt64) -> Entry? {
        lock.withLock { cells[cell]?.first { $0.idHigh == idHigh && $0.idLow == idLow } }
    }

    /// Adds new entries and replaces updated ones (matched by rowid), after their transaction committed as
    /// `newGeneration`.
    func apply(inserted: [(cell: UInt64, entry: Entry)], updated: [(cell: UInt64, entry: Entry)], newGeneration: Int64) {
        lock.withLock {
            guard accept(newGeneration) else { return }
            for (cell, entry) in inserted {
                cells[cell, default: []].append(entry)
                entryCount += 1
            }
            for (cell, entry) in updated {
                if let index = cells[cell]?.firstIndex(where: { $0.rowid == entry.rowid }) {
                    cells[cell]![index] = entry
                }
            }
        }
    }

    /// Removes every entry matching `predicate`, after the deleting transaction committed as `newGeneration`.
    func remove(newGeneration: Int64, where predicate: (Entry) -> Bool) {
        lock.withLock {
            guard accept(newGeneration) else { return }
            var removed = 0
            for (cell, entries) in cells {
                let kept = entries.filter { !predicate($0) }
                if kept.count != entries.count {
                    removed += entries.count - kept.count
                    cells[cell] = kept.isEmpty ? nil : kept
                }
            }
            entryCount -= removed
        }
    }

    /// How many entries exit before `time`.
    func countOlder(than time: Double) -> Int {
        lock.withLock { cells.values.reduce(0) { $0 + $1.reduce(0) { $0 + ($1.exitTime < time ? 1 : 0) } } }
    }

    /// The `count` oldest entries (by exit time, then id) among those exiting at or after `cutoff`, for the size cap.
    func oldest(_ count: Int, notOlderThan cutoff: Double) -> [Entry] {
        lock.withLock {
            var all: [Entry] = []
            all.reserveCapacity(entryCount)
            for entries in cells.values { all.append(contentsOf: entries.lazy.filter { $0.exitTime >= cutoff }) }
            all.sort { ($0.exitTime, $0.idHigh, $0.idLow) < ($1.exitTime, $1.idHigh, $1.idLow) }
            return Array(all.prefix(count))
        }
    }

    /// Calls `body` with the entries of each requested cell (all cells when `cells` is nil) under the lock.
    func forEachCell(_ requested: [UInt64]?, _ body: (UInt64, [Entry]) -> Void) {
        lock.withLock {
            if let requested {
                for cell in requested {
                    if let entries = cells[cell] { body(cell, entries) }
                }
            } else {
                for (cell, entries) in cells { body(cell, entries) }
            }
        }
    }
}

extension UUID {
    /// The id as two big-endian 64-bit halves (their order is the byte order, as `uuidString` sorts).
    var halves: (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid) { raw in
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
            return (high, low)
        }
    }

    /// The id with these big-endian halves.
    init(high: UInt64, low: UInt64) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<8 { raw[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index))) }
            for index in 0..<8 { raw[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index))) }
        }
        self.init(uuid: bytes)
    }

    /// The halves of a 16-byte id blob.
    static func halves(of blob: Data) -> (high: UInt64, low: UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        blob.withUnsafeBytes { raw in
            for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
        }
        return (high, low)
    }
}
