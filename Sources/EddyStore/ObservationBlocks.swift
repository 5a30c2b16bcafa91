import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk part of the observation index: `observation_block` rows of packed entries, one bucket (the
/// resolution-3 parent of the cells, bits 36–51 of the H3 index) per rowid range `bucket << 40 …`. A flush appends
/// one block to each bucket it touches (a bucket with `maximumBlocksPerBucket` blocks has them merged into one), so a
/// query reads a few blobs per bucket it covers and an ingest batch never rewrites the blocks of other buckets.
extension ObservationIndex {
    /// Bytes of one packed entry: cell, rowid, exit, enter, EDR peak and median, id halves, u90 (8 bytes each), layer
    /// (4), class, altitude source, layer-uncertain flag and a zero byte. Little-endian.
    static let recordSize = 80
    /// A bucket holds at most this many blocks: a flush that would add one more merges them (and its new entries)
    /// into one, so a query reads at most this many blobs per bucket.
    static let maximumBlocksPerBucket = 8

    /// The bucket of a cell: the base cell and first three digits of its H3 index (its resolution-3 parent).
    static func bucket(of cell: UInt64) -> Int64 { Int64((cell >> 36) & 0xFFFF) }

    /// The rowids of a bucket's blocks.
    static func blockRowids(ofBucket bucket: Int64) -> ClosedRange<Int64> { (bucket << 40)...(((bucket + 1) << 40) - 1) }

    /// The last log rowid whose entry is in the blocks (the recent entries are the rows after it).
    static func flushedRowid(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM store_state WHERE key = 'observation_flushed_rowid'")) ?? 0
    }

    /// Whether any block is stored.
    static func hasBlocks(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM observation_block)")) ?? false
    }

    /// The rowid for the next log row: above every row and above the flushed rowid (so a new row is never mistaken
    /// for a flushed one after the newest rows were deleted).
    static func nextLogRowid(_ db: Database) throws -> Int64 {
        let newest = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM observation") ?? 0
        return max(newest, try flushedRowid(db)) + 1
    }

    /// A new block sequence number (the low 40 bits of the rowids of the blocks one flush or rewrite writes).
    private static func nextBlockSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db, sql: "UPDATE store_state SET value = value + 1 WHERE key = 'observation_block_sequence' RETURNING value") ?? 1
    }

    // MARK: - Records

    /// Packs records into a block.
    static func encode(_ records: [(cell: UInt64, entry: Entry)]) -> Data {
        var data = Data(count: records.count * recordSize)
        data.withUnsafeMutableBytes { raw in
            for (index, record) in records.enumerated() {
                let base = index * recordSize
                let entry = record.entry
                func store(_ word: UInt64, slot: Int) { raw.storeBytes(of: word.littleEndian, toByteOffset: base + slot * 8, as: UInt64.self) }
                store(record.cell, slot: 0)
                store(UInt64(bitPattern: entry.rowid), slot: 1)
                store(entry.exitTime.bitPattern, slot: 2)
                store(entry.enterTime.bitPattern, slot: 3)
                store(entry.edrPeak.bitPattern, slot: 4)
                store(entry.edrMedian.bitPattern, slot: 5)
                store(entry.idHigh, slot: 6)
                store(entry.idLow, slot: 7)
                store(entry.altitudeU90Feet.bitPattern, slot: 8)
                raw.storeBytes(of: UInt32(bitPattern: entry.layer).littleEndian, toByteOffset: base + 72, as: UInt32.self)
                raw[base + 76] = entry.reporterClass
                raw[base + 77] = entry.altitudeSource
                raw[base + 78] = entry.layerUncertain
                raw[base + 79] = 0
            }
        }
        return data
    }

    /// The cell of the record at `offset`.
    private static func cell(in raw: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The entry of the record at `offset`.
    private static func entry(in raw: UnsafeRawBufferPointer, at offset: Int) -> Entry {
        func word(_ slot: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + slot * 8, as: UInt64.self)) }
        return Entry(
            rowid: Int64(bitPattern: word(1)), exitTime: Double(bitPattern: word(2)), enterTime: Double(bitPattern: word(3)),
            edrPeak: Double(bitPattern: word(4)), edrMedian: Double(bitPattern: word(5)), idHigh: word(6), idLow: word(7),
            altitudeU90Feet: Double(bitPattern: word(8)),
            layer: Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 72, as: UInt32.self))),
            reporterClass: raw[offset + 76], altitudeSource: raw[offset + 77], layerUncertain: raw[offset + 78])
    }

    /// Calls `body` with each record of a block blob (only those of `cells` when given).
    private static func forEachRecord(
        _ blob: UnsafeRawBufferPointer, cells: Set<UInt64>?, _ body: (UInt64, Entry) throws -> Void
    ) throws {
        guard blob.count % recordSize == 0 else {
            throw StoreError.undecodableRow(table: "observation_block", detail: "a block is not a whole number of \(recordSize)-byte entries")
        }
        var offset = 0
        while offset < blob.count {
            let cell = cell(in: blob, at: offset)
            if cells?.contains(cell) ?? true { try body(cell, try checkedEntry(in: blob, at: offset)) }
            offset += recordSize
        }
    }

    /// The entry at `offset`, refusing an unknown reporter class code.
    private static func checkedEntry(in blob: UnsafeRawBufferPointer, at offset: Int) throws -> Entry {
        let entry = entry(in: blob, at: offset)
        guard Int(entry.reporterClass) < Entry.classes.count else {
            throw StoreError.undecodableRow(table: "observation_block", detail: "unknown reporter class code \(entry.reporterClass)")
        }
        return entry
    }

    /// Calls `body` with every block record of the buckets (every bucket when nil), only those of `cells` when given.
    static func forEachBlockRecord(
        _ db: Database, buckets: [Int64]?, cells: Set<UInt64>? = nil, _ body: (UInt64, Entry) throws -> Void
    ) throws {
        try forEachBlock(db, buckets: buckets) { _, blob in try forEachRecord(blob, cells: cells, body) }
    }

    /// Calls `body` with the rowid and bytes of each block of the buckets (every block when nil), in rowid order.
    /// The bytes are SQLite's own, valid only during the call.
    private static func forEachBlock(
        _ db: Database, buckets: [Int64]?, _ body: (Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        func visit(_ cursor: RowCursor) throws {
            while let row = try cursor.next() {
                let rowid: Int64 = row[0]
                try row.withUnsafeData(atIndex: 1) { data in
                    guard let data else {
                        throw StoreError.undecodableRow(table: "observation_block", detail: "block \(rowid) has no entries")
                    }
                    try data.withUnsafeBytes { try body(rowid, $0) }
                }
            }
        }
        guard let buckets else {
            try visit(Row.fetchCursor(db, sql: "SELECT rowid, entries FROM observation_block"))
            return
        }
        let statement = try db.cachedStatement(sql: "SELECT rowid, entries FROM observation_block WHERE rowid BETWEEN ? AND ?")
        for bucket in buckets {
            let range = blockRowids(ofBucket: bucket)
            try visit(Row.fetchCursor(statement, arguments: [range.lowerBound, range.upperBound]))
        }
    }

    /// Calls `body` with the id halves of every block record (for building the id filter without decoding entries).
    static func forEachBlockID(_ db: Database, _ body: (UInt64, UInt64) -> Void) throws {
        try forEachBlock(db, buckets: nil) { _, blob in
            var offset = 0
            while offset + recordSize <= blob.count {
                body(UInt64(littleEndian: blob.loadUnaligned(fromByteOffset: offset + 48, as: UInt64.self)),
                     UInt64(littleEndian: blob.loadUnaligned(fromByteOffset: offset + 56, as: UInt64.self)))
                offset += recordSize
            }
        }
    }

    /// Bits 30–35 of an H3 index: digits 4 and 5. Valid resolution-5 cells of one bucket differ only there.
    static let childDigitBits: UInt64 = 0x3F << 30

    /// A bucket's wanted cells as the index bits they share (`template`) and a 64-bit mask over their digits 4 and 5,
    /// so that membership is two comparisons instead of a hash lookup: a cell is one of them exactly when its other bits
    /// equal `template` and its digits' bit is set. Nil when the cells differ elsewhere (not valid cells of one bucket).
    static func childMask(of cells: [UInt64]) -> (template: UInt64, mask: UInt64)? {
        guard let first = cells.first else { return nil }
        let template = first & ~childDigitBits
        var mask: UInt64 = 0
        for cell in cells {
            guard cell & ~childDigitBits == template else { return nil }
            mask |= 1 << ((cell >> 30) & 0x3F)
        }
        return (template, mask)
    }

    /// For a query: calls `body` once per cell of `cells` that has entries exiting at or after `since` in `layers`,
    /// with those entries (blocks and `recent`), bucket by bucket, cells in ascending order, each cell's entries in read
    /// order (blocks in rowid order, then recent entries). Records outside the window or layers are skipped before they
    /// are decoded.
    static func forEachCell(
        _ db: Database, cells: [UInt64], recent: Recent, since: Double, layers: ClosedRange<Int32>,
        _ body: (UInt64, [Entry]) throws -> Void
    ) throws {
        let wanted = Set(cells)
        var cellsByBucket: [Int64: [UInt64]] = [:]
        for cell in wanted { cellsByBucket[bucket(of: cell), default: []].append(cell) }
        var scratch: [(cell: UInt64, entry: Entry)] = []
        // (cell, position in `scratch`): sorting these 16-byte keys groups the entries by cell, in their read order
        // within a cell, without moving the 88-byte records (for a bucket whose cells have no child mask).
        var order: [(cell: UInt64, position: Int)] = []
        var group: [Entry] = []
        // Per child slot (digits 4 and 5, 0…63) of the bucket: its entries' positions in `scratch`, chained (the first,
        // the last and each position's successor; −1 ends a chain), so a bucket's entries are grouped by cell in one pass.
        var firstOfSlot = [Int](repeating: -1, count: 64)
        var lastOfSlot = [Int](repeating: -1, count: 64)
        var nextPosition: [Int] = []
        let keep = { (entry: Entry) in entry.exitTime >= since && layers.contains(entry.layer) }
        for bucket in cellsByBucket.keys.sorted() {
            scratch.removeAll(keepingCapacity: true)
            let bucketCells = cellsByBucket[bucket] ?? []
            let children = childMask(of: bucketCells)
            // Whether every record kept lies under the mask's template (then the slots group them; else the sort does).
            var allUnderTemplate = children != nil
            try forEachBlock(db, buckets: [bucket]) { _, blob in
                guard blob.count % recordSize == 0 else {
                    throw StoreError.undecodableRow(table: "observation_block", detail: "a block is not a whole number of \(recordSize)-byte entries")
                }
                var offset = 0
                while offset < blob.count {
                    let cell = cell(in: blob, at: offset)
                    let exitTime = Double(bitPattern: UInt64(littleEndian: blob.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
                    if exitTime >= since {
                        let isWanted: Bool
                        if let children, cell & ~childDigitBits == children.template {
                            isWanted = children.mask & (1 << ((cell >> 30) & 0x3F)) != 0
                        } else {
                            isWanted = wanted.contains(cell)
                            if isWanted { allUnderTemplate = false }
                        }
                        if isWanted {
                            let entry = try checkedEntry(in: blob, at: offset)
                            if layers.contains(entry.layer) { scratch.append((cell, entry)) }
                        }
                    }
                    offset += recordSize
                }
            }
            for cell in bucketCells {
                for entry in recent.cells[cell] ?? [] where keep(entry) { scratch.append((cell, entry)) }
            }
            if let children, allUnderTemplate {
                // Slots in ascending order are cells in ascending order (the cells differ only in these bits).
                nextPosition.removeAll(keepingCapacity: true)
                for slot in 0..<64 { firstOfSlot[slot] = -1; lastOfSlot[slot] = -1 }
                for position in scratch.indices {
                    let slot = Int((scratch[position].cell >> 30) & 0x3F)
                    nextPosition.append(-1)
                    if lastOfSlot[slot] < 0 { firstOfSlot[slot] = position } else { nextPosition[lastOfSlot[slot]] = position }
                    lastOfSlot[slot] = position
                }
                for slot in 0..<64 where firstOfSlot[slot] >= 0 {
                    group.removeAll(keepingCapacity: true)
                    var position = firstOfSlot[slot]
                    while position >= 0 {
                        group.append(scratch[position].entry)
                        position = nextPosition[position]
                    }
                    try body(children.template | UInt64(slot) << 30, group)
                }
                continue
            }
            order.removeAll(keepingCapacity: true)
            for position in scratch.indices { order.append((scratch[position].cell, position)) }
            order.sort { $0.cell != $1.cell ? $0.cell < $1.cell : $0.position < $1.position }
            var start = 0
            while start < order.count {
                let cell = order[start].cell
                group.removeAll(keepingCapacity: true)
                var end = start
                while end < order.count && order[end].cell == cell {
                    group.append(scratch[order[end].position].entry)
                    end += 1
                }
                try body(cell, group)
                start = end
            }
        }
    }

    // MARK: - Writing blocks (in the caller's write transaction)

    /// Writes the recent entries to blocks and marks the log flushed through `rowid`.
    static func flush(_ recent: Recent, throughRowid rowid: Int64, _ db: Database) throws {
        var byBucket: [Int64: [(cell: UInt64, entry: Entry)]] = [:]
        for (cell, entries) in recent.cells {
            for entry in entries { byBucket[bucket(of: cell), default: []].append((cell, entry)) }
        }
        let sequence = try nextBlockSequence(db)
        let count = try db.cachedStatement(sql: "SELECT count(*) FROM observation_block WHERE rowid BETWEEN ? AND ?")
        for bucket in byBucket.keys.sorted() {
            var records = byBucket[bucket] ?? []
            let range = blockRowids(ofBucket: bucket)
            let existing = try Int.fetchOne(count, arguments: [range.lowerBound, range.upperBound]) ?? 0
            if existing + 1 > maximumBlocksPerBucket {
                var merged: [(cell: UInt64, entry: Entry)] = []
                try forEachBlockRecord(db, buckets: [bucket]) { merged.append(($0, $1)) }
                records = merged + records
                try deleteBlocks(ofBucket: bucket, db)
            }
            try insertBlock(records, rowid: range.lowerBound | sequence, db)
        }
        try db.execute(
            sql: "UPDATE store_state SET value = max(value, ?) WHERE key = 'observation_flushed_rowid'", arguments: [rowid])
    }

    /// Removes the entries matching `removing` from the blocks of the buckets (every bucket when nil), merging each
    /// changed or fragmented bucket into one block; adds the ids of the entries kept to `filter` when given.
    static func rewriteBlocks(
        _ db: Database, buckets requested: [Int64]?, removing: (Entry) -> Bool, filter: IDFilter? = nil
    ) throws {
        let buckets = try requested ?? Int64.fetchAll(db, sql: "SELECT DISTINCT rowid >> 40 FROM observation_block")
        var sequence: Int64?
        for bucket in buckets {
            var kept: [(cell: UInt64, entry: Entry)] = []
            var total = 0
            var blocks = 0
            try forEachBlock(db, buckets: [bucket]) { _, blob in
                blocks += 1
                try forEachRecord(blob, cells: nil) { cell, entry in
                    total += 1
                    if !removing(entry) { kept.append((cell, entry)) }
                }
            }
            if let filter { for record in kept { filter.insert(high: record.entry.idHigh, low: record.entry.idLow) } }
            guard kept.count != total || blocks > 1 else { continue }
            try deleteBlocks(ofBucket: bucket, db)
            if kept.isEmpty { continue }
            if sequence == nil { sequence = try nextBlockSequence(db) }
            try insertBlock(kept, rowid: blockRowids(ofBucket: bucket).lowerBound | sequence!, db)
        }
    }

    /// The block holding the entry with this id in this cell, and the entry; nil when no block has it.
    static func findInBlocks(_ db: Database, cell: UInt64, idHigh: UInt64, idLow: UInt64) throws -> (block: Int64, entry: Entry)? {
        var found: (block: Int64, entry: Entry)?
        try forEachBlock(db, buckets: [bucket(of: cell)]) { block, blob in
            try forEachRecord(blob, cells: [cell]) { _, entry in
                if entry.idHigh == idHigh && entry.idLow == idLow { found = (block, entry) }
            }
        }
        return found
    }

    /// Replaces entries inside blocks: block rowid → (entry rowid → new entry).
    static func applyBlockEdits(_ edits: [Int64: [Int64: Entry]], _ db: Database) throws {
        for (block, replacements) in edits {
            guard let blob = try Data.fetchOne(db, sql: "SELECT entries FROM observation_block WHERE rowid = ?", arguments: [block]) else { continue }
            var records: [(cell: UInt64, entry: Entry)] = []
            try blob.withUnsafeBytes { raw in
                try forEachRecord(raw, cells: nil) { cell, entry in records.append((cell, replacements[entry.rowid] ?? entry)) }
            }
            try db.execute(sql: "UPDATE observation_block SET entries = ? WHERE rowid = ?", arguments: [encode(records), block])
        }
    }

    private static func insertBlock(_ records: [(cell: UInt64, entry: Entry)], rowid: Int64, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO observation_block (rowid, entries) VALUES (?, ?)")
        try statement.execute(arguments: [rowid, encode(records)])
    }

    private static func deleteBlocks(ofBucket bucket: Int64, _ db: Database) throws {
        let range = blockRowids(ofBucket: bucket)
        let statement = try db.cachedStatement(sql: "DELETE FROM observation_block WHERE rowid BETWEEN ? AND ?")
        try statement.execute(arguments: [range.lowerBound, range.upperBound])
    }

    /// Flushes the log's tail in chunks of `recentLimit` rows until at most `recentLimit` rows remain after the
    /// flushed rowid (a store written before the blocks existed, or by an instance with a larger limit). Returns
    /// whether anything was flushed (the caller's transaction must then bump the generation).
    static func catchUp(_ db: Database, recentLimit: Int) throws -> Bool {
        var flushedAny = false
        while true {
            let flushed = try flushedRowid(db)
            let tail = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM (SELECT 1 FROM observation WHERE rowid > ? LIMIT ?)
                """, arguments: [flushed, recentLimit + 1]) ?? 0
            if tail <= recentLimit { return flushedAny }
            var chunk = Recent()
            var last = flushed
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT \(indexColumns) FROM observation WHERE rowid > ? ORDER BY rowid LIMIT ?",
                arguments: [flushed, recentLimit])
            while let row = try cursor.next() {
                let (cell, entry) = try decodeEntry(row)
                chunk.append(cell: cell, entry)
                last = entry.rowid
            }
            try flush(chunk, throughRowid: last, db)
            flushedAny = true
        }
    }
}

/// A fixed-size Bloom filter of report ids (2²⁶ bits = 8 MiB, 4 probes), used only by the store's writer: an
/// upsert looks for an id in the blocks only when the filter may contain it. False positives cost one bucket read;
/// there are no false negatives for ids added. At 1 M ids about 1 in 90,000 new ids is a false positive, at 5 M about
/// 1 in 230. Ids of deleted reports stay set until the next rebuild (purges rebuild it).
final class IDFilter: @unchecked Sendable {
    /// Number of bits.
    static let bitCount = 1 << 26
    /// The bits (a raw allocation: no copy-on-write or exclusivity checks on the ingest path): an anonymous mapping,
    /// whose zero pages become resident only when a bit on them is set, so a filter of a store with few or no server
    /// reports (the engine's, made anew at every purge) costs almost no memory. (`calloc` would not do: once glibc has
    /// freed one such block it serves the next from its heap and clears all 8 MiB.)
    private let words: UnsafeMutablePointer<UInt64>
    /// Whether no bit has been set since the filter was made or cleared (clearing it then touches no page).
    private var isClear = true

    /// An empty filter.
    init() {
        let mapped = mmap(nil, Self.bitCount / 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { fatalError("IDFilter: cannot map \(Self.bitCount / 8) bytes") }
        words = mapped.bindMemory(to: UInt64.self, capacity: Self.bitCount / 64)
    }

    deinit { munmap(words, Self.bitCount / 8) }

    /// Clears every bit.
    func removeAll() {
        if isClear { return }
        words.update(repeating: 0, count: Self.bitCount / 64)
        isClear = true
    }

    /// The two hashes the probes derive from (splitmix64's finalizer over both halves).
    private static func hashes(high: UInt64, low: UInt64) -> (UInt64, UInt64) {
        func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let hash = mix(high ^ mix(low))
        return (hash & 0xFFFF_FFFF, (hash >> 32) | 1)
    }

    /// Adds an id.
    func insert(high: UInt64, low: UInt64) {
        isClear = false
        let (first, step) = Self.hashes(high: high, low: low)
        for probe in 0..<UInt64(4) {
            let bit = Int((first &+ probe &* step) & UInt64(Self.bitCount - 1))
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
    }

    /// Whether the id may have been added (false: it certainly was not).
    func mayContain(high: UInt64, low: UInt64) -> Bool {
        let (first, step) = Self.hashes(high: high, low: low)
        for probe in 0..<UInt64(4) {
            let bit = Int((first &+ probe &* step) & UInt64(Self.bitCount - 1))
            if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }
}
