import Foundation
import GRDB

/// Tunables of a store.
public struct StoreOptions: Sendable, Equatable {
    /// Upper bound on cached server observations; when exceeded, `purgeExpired` evicts the oldest first (nil: no cap).
    public var maximumObservationCount: Int?
    /// Run `PRAGMA quick_check` when opening (catches damaged pages at once; costs about a second per 100 MB).
    public var integrityCheckOnOpen: Bool
    /// SQLite page cache per connection, KiB.
    public var cacheSizeKiB: Int
    /// Live flights whose last position is older than this are purged, seconds.
    public var liveFlightMaximumAgeSeconds: Double
    /// Fleet altitude offsets whose newest observation is older than this are purged, seconds (the server's
    /// aggregation window).
    public var altitudeOffsetMaximumAgeSeconds: Double
    /// Sees every SQL statement the store runs, while it runs (tests check what runs when); nil for none.
    package var statementObserver: StatementObserver?
    /// At most this many observations not yet flushed to the on-disk index stay in memory (≈ 100 B each); a write
    /// that would keep more flushes them. Tests lower it to exercise the blocks with few reports.
    package var observationRecentLimit = 65_536

    /// Creates options (defaults: no cap, no integrity check, 4 MiB cache per connection, live flights kept 15 min,
    /// fleet altitude offsets kept 60 min).
    public init(
        maximumObservationCount: Int? = nil, integrityCheckOnOpen: Bool = false,
        cacheSizeKiB: Int = 4 * 1024, liveFlightMaximumAgeSeconds: Double = 15 * 60,
        altitudeOffsetMaximumAgeSeconds: Double = 60 * 60
    ) {
        self.altitudeOffsetMaximumAgeSeconds = altitudeOffsetMaximumAgeSeconds
        self.maximumObservationCount = maximumObservationCount
        self.integrityCheckOnOpen = integrityCheckOnOpen
        self.cacheSizeKiB = cacheSizeKiB
        self.liveFlightMaximumAgeSeconds = liveFlightMaximumAgeSeconds
    }
}

/// A callback that sees each SQL statement the store runs, as it runs (tests check what runs when).
package struct StatementObserver: Sendable, Equatable {
    private let id = UUID()
    /// Called with each statement's SQL.
    package let body: @Sendable (String) -> Void
    /// Wraps `body`.
    package init(_ body: @escaping @Sendable (String) -> Void) { self.body = body }
    /// Observers are equal only to themselves.
    package static func == (lhs: StatementObserver, rhs: StatementObserver) -> Bool { lhs.id == rhs.id }
}

/// Why an existing file at the store path could not be used as a store.
package enum StoreFileProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file is not a SQLite database at all (random bytes, a text file, a truncated header...).
    case notSQLite
    /// A SQLite database that belongs to another application (its application id and tables are not ours).
    case foreignDatabase(applicationID: Int32, tables: [String])
    /// An Eddy / SQLite database whose content is damaged.
    case corrupt(detail: String)

    /// A sentence for logs and for the host app's user notice.
    package var description: String {
        switch self {
        case .notSQLite: "the file is not a SQLite database"
        case let .foreignDatabase(applicationID, tables):
            "the file is another application's SQLite database (application id \(applicationID), tables: \(tables.prefix(8).joined(separator: ", ")))"
        case let .corrupt(detail): "the database is damaged (\(detail))"
        }
    }
}

/// What opening a store found at its path; the host should tell the user about `.recovered`.
package enum StoreOpenOutcome: Sendable, Equatable {
    /// An existing Eddy store was opened (and migrated to the current schema if needed).
    case opened
    /// There was no file (or an empty one): a new store was created.
    case created
    /// The file at the path was unusable: it was moved aside (never deleted) and a fresh store was created.
    case recovered(problem: StoreFileProblem, movedAsideTo: String)

    /// A notice for the host's user, nil when nothing unusual happened.
    package var notice: String? {
        guard case let .recovered(problem, movedAsideTo) = self else { return nil }
        return "The turbulence cache could not be used: \(problem). It was moved to \(movedAsideTo) and a new, empty cache was created."
    }
}

/// The offline-first tiled cache: own-report outbox, server observations, nowcasts, polygons, live flights,
/// sync state, session and configuration, in one SQLite file in WAL mode (one writer, concurrent readers).
///
/// All calls are synchronous and thread-safe; call them off the main thread. Own reports, sync state, session and
/// configuration are durable when the call returns (`synchronous = FULL`); server data is crash-safe and re-fetchable.
/// Server observations are indexed in the file (bounded memory) and re-synchronised when another instance or process
/// writes them.
package final class EddyStore: Sendable {
    /// Path of the database file.
    package let path: String
    /// Options the store was opened with.
    package let options: StoreOptions
    /// What opening found (tell the user when it is `.recovered`).
    package let openOutcome: StoreOpenOutcome
    let pool: DatabasePool
    /// Spatial index of the observation log: blocks in the file, recent entries in memory (kept in step by the writer).
    let observationIndex: ObservationIndex

    private init(path: String, options: StoreOptions, outcome: StoreOpenOutcome, pool: DatabasePool, index: ObservationIndex) {
        self.path = path
        self.options = options
        self.openOutcome = outcome
        self.pool = pool
        self.observationIndex = index
    }

    /// Opens (or creates) the store at `path`, migrating it to the current schema.
    ///
    /// A file that is not an Eddy store (random bytes, text, another app's SQLite file, a damaged database)
    /// is moved aside to `<path>.unreadable-N` (with its `-wal`/`-shm` companions), a fresh store is created,
    /// and `openOutcome` says so. A store written by a newer Eddy throws `StoreError.schemaTooNew` instead.
    package static func open(path: String, options: StoreOptions = StoreOptions()) throws(StoreError) -> EddyStore {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "cannot create folder \(directory): \(error.localizedDescription)")
        }
        var outcome: StoreOpenOutcome = .opened
        switch try inspect(path: path, quickCheck: options.integrityCheckOnOpen) {
        case .absent: outcome = .created
        case .eddyStore: outcome = .opened
        case let .unusable(problem):
            let movedTo = try moveAside(path: path)
            outcome = .recovered(problem: problem, movedAsideTo: movedTo)
        }
        do {
            return try openPool(path: path, options: options, outcome: outcome)
        } catch let StoreError.corrupt(_, detail) {
            // Damage found while migrating or indexing: treat it like a damaged file found by the inspection.
            if case .recovered = outcome { throw StoreError.corrupt(path: path, detail: detail) }
            let movedTo = try moveAside(path: path)
            return try openPool(path: path, options: options, outcome: .recovered(problem: .corrupt(detail: detail), movedAsideTo: movedTo))
        }
    }

    /// Opens the pool, refuses newer schemas, migrates, flushes an oversized log tail into the index's blocks (a store
    /// from before v6) and loads the recent entries.
    private static func openPool(path: String, options: StoreOptions, outcome: StoreOpenOutcome) throws(StoreError) -> EddyStore {
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration(options))
        } catch {
            throw StoreError.wrap(error, path: path)
        }
        let migrator = StoreSchema.migrator
        let index = ObservationIndex(recentLimit: options.observationRecentLimit)
        do {
            let unknown = try pool.read { db -> [String] in
                let known = Set(migrator.migrations)
                return try migrator.appliedIdentifiers(db).subtracting(known).sorted()
            }
            if !unknown.isEmpty { throw StoreError.schemaTooNew(path: path, unknownMigrations: unknown) }
            try migrator.migrate(pool)
            let oversized = try pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM observation WHERE rowid > ? LIMIT ?)",
                                 arguments: [try ObservationIndex.flushedRowid(db), index.recentLimit + 1]) ?? 0
            } > index.recentLimit
            if oversized {
                try pool.write { db in
                    if try ObservationIndex.catchUp(db, recentLimit: index.recentLimit) { _ = try ObservationIndex.bumpGeneration(db) }
                }
            }
            _ = try pool.read { db in try index.recentSnapshot(db) }
        } catch {
            try? pool.close()
            throw StoreError.wrap(error, path: path)
        }
        return EddyStore(path: path, options: options, outcome: outcome, pool: pool, index: index)
    }

    static func configuration(_ options: StoreOptions) -> Configuration {
        var config = Configuration()
        config.label = "EddyStore"
        config.busyMode = .timeout(10)
        let cacheKiB = max(options.cacheSizeKiB, 256)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Checkpoint every ~32 MB of WAL rather than 4 MB: pages rewritten by consecutive batches are copied once.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 8192")
            // No memory-mapped reads: mapped pages count in the app's resident memory and grow with the file
            // (docs/store.md "Memory").
            try db.execute(sql: "PRAGMA mmap_size = 0")
        }
        if let observer = options.statementObserver {
            config.prepareDatabase { db in db.trace(options: .statement) { event in observer.body("\(event)") } }
        }
        return config
    }

    /// Checkpoints the WAL into the main file and closes every connection; the store must not be used afterwards.
    package func close() throws(StoreError) {
        do {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try pool.close()
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Caps the store file at its current size (`full`: SQLite answers writes that need a new page with SQLITE_FULL,
    /// as on a full disk) or lifts the cap again; on the writer connection only. Tests use it to fill the store's disk
    /// without a small file system.
    package func simulateFullDisk(_ full: Bool) throws(StoreError) {
        do {
            try pool.writeWithoutTransaction { db in
                if full {
                    let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    try db.execute(sql: "PRAGMA max_page_count = \(pages)")
                } else {
                    try db.execute(sql: "PRAGMA max_page_count = 4294967294")
                }
            }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Runs `PRAGMA integrity_check` and returns SQLite's messages (`["ok"]` when the file is sound).
    package func integrityCheck() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Reads on a reader connection (concurrent with the writer), mapping SQLite errors to `StoreError`.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Writes in one immediate transaction on the single writer connection, mapping SQLite errors to `StoreError`.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.write(body) } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Like `write`, but commits with `synchronous = NORMAL` (no fsync at commit; still atomic and crash-safe for
    /// the app; a power cut may lose this transaction), for re-fetchable server data. `afterCommit` runs with the
    /// transaction's result once it committed, still on the writer (so index updates stay in commit order).
    func writeRelaxed<T>(afterCommit: (T) -> Void = { _ in }, _ body: (Database) throws -> T) throws(StoreError) -> T {
        try write(relaxed: true, afterCommit: afterCommit, body)
    }

    /// Like `write` (FULL durability unless `relaxed`), with `afterCommit` run on the writer once the transaction committed.
    func write<T>(relaxed: Bool = false, afterCommit: (T) -> Void, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                if relaxed { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
                defer { if relaxed { try? db.execute(sql: "PRAGMA synchronous = FULL") } }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                afterCommit(result!)
                return result!
            }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }
}

// MARK: - Inspecting and moving aside an existing file

extension EddyStore {
    enum Inspection: Equatable {
        case absent
        case eddyStore
        case unusable(StoreFileProblem)
    }

    /// The 16-byte header every SQLite 3 database file starts with.
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// Looks at the file at `path` without modifying it (read-only connection, no journal-mode change).
    static func inspect(path: String, quickCheck: Bool) throws(StoreError) -> Inspection {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return .absent }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError.cannotOpen(path: path, reason: "the file exists but cannot be read")
        }
        let head = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        if head.isEmpty {
            // An empty file is what SQLite itself creates before the first write: treat as absent, unless a WAL
            // holds data (then let SQLite decide below).
            let walSize = (try? manager.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            if walSize == 0 { return .absent }
        } else if head.count < 100 || Array(head.prefix(16)) != sqliteHeader {
            return .unusable(.notSQLite)
        }
        do {
            return try inspectDatabase(path: path, quickCheck: quickCheck, readonly: true)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // A WAL left by a killed process may need recovery (SQLITE_READONLY_RECOVERY / _CANTINIT), which a
            // read-only connection cannot run. Recovery rebuilds only the WAL index, so look again read-write.
            do {
                return try inspectDatabase(path: path, quickCheck: quickCheck, readonly: false)
            } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
                return .unusable(.corrupt(detail: error.message ?? "\(error.resultCode)"))
            } catch {
                throw StoreError.wrap(error, path: path)
            }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            return .unusable(.corrupt(detail: error.message ?? "\(error.resultCode)"))
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Reads the application id, the tables and (optionally) `quick_check` of an existing SQLite file.
    private static func inspectDatabase(path: String, quickCheck: Bool, readonly: Bool) throws -> Inspection {
        var config = Configuration()
        config.readonly = readonly
        config.label = "EddyStore.inspect"
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db -> Inspection in
            let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            if applicationID != StoreSchema.applicationID {
                // Empty, or an Eddy store whose creation was interrupted before the first migration committed
                // (GRDB creates its migrations table first): carry on creating it.
                if applicationID == 0 && Set(tables).isSubset(of: ["grdb_migrations"]) { return .absent }
                return .unusable(.foreignDatabase(applicationID: applicationID, tables: tables))
            }
            if quickCheck {
                let messages = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if messages != ["ok"] {
                    return .unusable(.corrupt(detail: messages.prefix(3).joined(separator: "; ")))
                }
            }
            return .eddyStore
        }
    }

    /// Renames the file (and its `-wal`, `-shm`, `-journal` companions) to the first free `<path>.unreadable-N`.
    /// Returns the new path of the database file. Never deletes anything.
    static func moveAside(path: String) throws(StoreError) -> String {
        let manager = FileManager.default
        var number = 1
        while manager.fileExists(atPath: "\(path).unreadable-\(number)") { number += 1 }
        let target = "\(path).unreadable-\(number)"
        do {
            try manager.moveItem(atPath: path, toPath: target)
            for suffix in ["-wal", "-shm", "-journal"] where manager.fileExists(atPath: path + suffix) {
                try manager.moveItem(atPath: path + suffix, toPath: target + suffix)
            }
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "the file is unusable and could not be moved aside: \(error.localizedDescription)")
        }
        return target
    }
}
