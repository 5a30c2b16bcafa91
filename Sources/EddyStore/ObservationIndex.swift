import EddyVocabulary
import Foundation
import GRDB

/// Spatial index over the `observation` log, bounded in memory whatever the store's size.
///
/// The log itself is append-only (rowid order = arrival order, no secondary index), so ingesting a batch only appends
/// pages. The index has two parts: the **blocks** (`observation_block`, in the same file: packed entries grouped by
/// the resolution-3 parent of their cell, written a whole flush at a time) and the **recent** entries — the log's
/// rows after `observation_flushed_rowid`, at most `recentLimit` of them, in memory and reloaded from the log's tail
/// when the store opens. The writer also keeps a fixed-size Bloom filter of stored ids (`IDFilter`), so an upsert
/// reads blocks only for an id that may already be stored. The log stays the source of truth. See docs/store.md.
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

    /// The log's rows after the flushed rowid, by cell: what the blocks do not hold yet.
    struct Recent: Sendable {
        /// Entries by cell.
        var cells: [UInt64: [Entry]] = [:]
        /// Number of entries.
        var count = 0

        /// Adds an entry.
        mutating func append(cell: UInt64, _ entry: Entry) {
            cells[cell, default: []].append(entry)
            count += 1
        }

        /// Removes every entry matching `predicate`.
        mutating func removeAll(where predicate: (Entry) -> Bool) {
            for (cell, entries) in cells {
                let kept = entries.filter { !predicate($0) }
                if kept.count != entries.count {
                    count -= entries.count - kept.count
                    cells[cell] = kept.isEmpty ? nil : kept
                }
            }
        }
    }

    /// What a write transaction leaves behind, installed after it committed.
    struct WriterState: Sendable {
        /// The recent entries as of `generation`.
        var recent: Recent
        /// The log's generation after the commit.
        var generation: Int64
        /// The id filter valid at `generation` (nil: keep the current one if it was valid before the commit).
        var filter: IDFilter?
    }

    private let lock = NSLock()
    private var recent = Recent()
    /// The `observation_generation` of the log `recent` reflects (−1: unknown, reload before use).
    private var generation: Int64 = -1
    /// Ids of every stored observation (and of some deleted ones), for the writer; nil until the first write.
    private var filter: IDFilter?
    /// The generation `filter` is complete for (−1: rebuild before use).
    private var filterGeneration: Int64 = -1
    /// At most this many recent entries stay in memory; a write that would keep more flushes them to blocks.
    let recentLimit: Int

    /// An index whose recent part holds at most `recentLimit` entries.
    init(recentLimit: Int) {
        self.recentLimit = max(recentLimit, 1)
    }

    /// Number of entries in memory (the recent part).
    var recentCount: Int { lock.withLock { recent.count } }

    /// The log's generation as seen by `db` (bumped by every transaction that changes the log or its blocks).
    static func currentGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM store_state WHERE key = 'observation_generation'")) ?? 0
    }

    /// Bumps the log's generation inside the caller's write transaction; returns the new value.
    static func bumpGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db, sql: "UPDATE store_state SET value = value + 1 WHERE key = 'observation_generation' RETURNING value") ?? 0
    }

    /// The recent entries as of `db`'s snapshot (at `current`, its generation): the cached ones when they are of
    /// that generation, else loaded from the log's tail (and cached when newer than what is cached).
    func recentSnapshot(_ db: Database, generation current: Int64) throws -> Recent {
        if let cached = lock.withLock({ generation == current ? recent : nil }) { return cached }
        let loaded = try Self.loadRecent(db)
        lock.withLock {
            // Generations only grow: never replace a newer state with an older snapshot.
            if current > generation {
                recent = loaded
                generation = current
            }
        }
        return loaded
    }

    /// The recent entries as of `db`'s snapshot.
    func recentSnapshot(_ db: Database) throws -> Recent {
        try recentSnapshot(db, generation: Self.currentGeneration(db))
    }

    /// The writer's id filter, complete for the log at `current` (built from the blocks and `recent` when it is not).
    func writerFilter(_ db: Database, generation current: Int64, recent: Recent) throws -> IDFilter {
        if let valid = lock.withLock({ filterGeneration == current ? filter : nil }) { return valid }
        let built = lock.withLock { filter } ?? IDFilter()
        built.removeAll()
        try Self.forEachBlockID(db) { high, low in built.insert(high: high, low: low) }
        for entries in recent.cells.values {
            for entry in entries { built.insert(high: entry.idHigh, low: entry.idLow) }
        }
        lock.withLock {
            filter = built
            filterGeneration = current
        }
        return built
    }

    /// Installs what a committed write transaction left (on the writer, in commit order).
    func install(_ state: WriterState) {
        lock.withLock {
            if state.generation > generation {
                recent = state.recent
                generation = state.generation
            }
            if let newFilter = state.filter {
                filter = newFilter
                filterGeneration = state.generation
            } else if filterGeneration == state.generation - 1 {
                filterGeneration = state.generation
            }
        }
    }

    /// Forgets the cached state (the next access reloads it), e.g. after a failed write.
    func invalidate() {
        lock.withLock {
            generation = -1
            filterGeneration = -1
        }
    }

    /// The entry of `row` (columns: `indexColumns`) and its cell.
    static func decodeEntry(_ row: Row) throws -> (cell: UInt64, entry: Entry) {
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
        return (UInt64(bitPattern: h3), Entry(
            rowid: row[0], exitTime: row[3], enterTime: row[6], edrPeak: row[4], edrMedian: row[7],
            idHigh: halves.high, idLow: halves.low, altitudeU90Feet: u90 ?? .nan, layer: Int32(clamping: row[2] as Int),
            reporterClass: Entry.code(reporterClass), altitudeSource: Entry.code(altitudeSource),
            layerUncertain: Entry.code(layerUncertain.map { $0 != 0 })))
    }

    /// The log columns `decodeEntry` reads, in its order.
    static let indexColumns = """
        rowid, h3, layer, exit_time, edr_peak, id, enter_time, edr_median, reporter_class,
        altitude_source, altitude_u90_ft, layer_uncertain
        """

    /// The log's rows after the flushed rowid.
    static func loadRecent(_ db: Database) throws -> Recent {
        var loaded = Recent()
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT \(indexColumns) FROM observation WHERE rowid > ?", arguments: [try flushedRowid(db)])
        while let row = try cursor.next() {
            let (cell, entry) = try decodeEntry(row)
            loaded.append(cell: cell, entry)
        }
        return loaded
    }

    /// Calls `body` once per cell with the entries exiting at or after `since` within `layers` (the requested cells;
    /// every cell when nil), as of `db`'s snapshot: blocks and recent entries.
    func forEachCell(
        _ db: Database, cells requested: [UInt64]?, since: Double, layers: ClosedRange<Int32>,
        _ body: (UInt64, [Entry]) throws -> Void
    ) throws {
        let recentEntries = try recentSnapshot(db)
        // No server report at all (the engine's store while offline): one probe instead of one read per bucket.
        if recentEntries.count == 0, try !Self.hasBlocks(db) { return }
        if let requested {
            try Self.forEachCell(db, cells: requested, recent: recentEntries, since: since, layers: layers, body)
            return
        }
        var everything = recentEntries.cells
        try Self.forEachBlockRecord(db, buckets: nil) { cell, entry in everything[cell, default: []].append(entry) }
        for (cell, entries) in everything {
            let kept = entries.filter { $0.exitTime >= since && layers.contains($0.layer) }
            if !kept.isEmpty { try body(cell, kept) }
        }
    }

    /// What an upsert changed in the recent entries, applied after it committed.
    struct Change: Sendable {
        /// New entries, by cell.
        var inserted: [(cell: UInt64, entry: Entry)] = []
        /// Recent entries replaced (matched by rowid).
        var updated: [(cell: UInt64, entry: Entry)] = []
        /// The transaction flushed every recent entry to blocks (the recent part is then empty).
        var flushed = false
        /// The log's generation after the commit.
        var generation: Int64 = 0
    }

    /// Applies a committed upsert on top of the state it was made from (on the writer, in commit order); a state
    /// that is not the one before marks the recent part stale (the next access reloads it from the log's tail).
    func apply(_ change: Change) {
        lock.withLock {
            if filterGeneration == change.generation - 1 { filterGeneration = change.generation }
            guard change.generation > generation else { return }
            if change.flushed {
                recent = Recent()
                generation = change.generation
                return
            }
            guard generation == change.generation - 1 else {
                generation = -1
                return
            }
            generation = change.generation
            for (cell, entry) in change.inserted { recent.append(cell: cell, entry) }
            for (cell, entry) in change.updated {
                if let index = recent.cells[cell]?.firstIndex(where: { $0.rowid == entry.rowid }) {
                    recent.cells[cell]?[index] = entry
                }
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
