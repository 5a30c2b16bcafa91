import EddyTesting
import EddyVocabulary
import Foundation
import GRDB
import Testing
@testable import EddyStore

@Suite("Opening: migrations from every version, corrupt and foreign files")
struct OpenAndMigrationTests {
    /// Rows written with the raw SQL of the schema as it was at migration `index` (so the test does not depend on
    /// today's API, which only knows the latest schema).
    static func insertRows(upToMigration index: Int, db: Database) throws {
        let tile: Int64 = 0x85283473fffffff
        try db.execute(sql: """
            INSERT INTO own_report (id, h3, layer, enter_time, exit_time, edr_peak, edr_median, reporter_class, status)
            VALUES (?, ?, 35, 100, 160, 0.3, 0.1, 'small', 0), (?, ?, 36, 200, 260, 0.0, 0.0, 'large', 1);
            INSERT INTO observation (h3, layer, exit_time, id, enter_time, edr_peak, edr_median, reporter_class, reporter_id, source)
            VALUES (?, 35, 160, ?, 100, 0.45, 0.2, 'medium', 'anon-7', 'eddy');
            INSERT INTO sync_state (area_type, data_type, tick, last_full_fetch_time) VALUES ('global', 'turbulence', 'tick-9', 50);
            INSERT INTO session (key, value) VALUES ('token', 'abc');
            INSERT INTO configuration (key, value) VALUES ('frequency', 'fast');
            """, arguments: [testUUID(1).storeBlob, tile, testUUID(2).storeBlob, tile, tile, testUUID(3).storeBlob])
        if index >= 1 {
            try db.execute(sql: """
                INSERT INTO nowcast (h3, layer, valid_time, forecast_hour, edr, issue_time) VALUES (?, 30, 3600, 1, 0.22, 0);
                INSERT INTO turbulence_polygon (history_minutes, severity, geojson, updated_time)
                VALUES (120, 3, '{"type":"FeatureCollection","features":[]}', 10);
                """, arguments: [tile])
        }
        if index >= 2 {
            try db.execute(sql: """
                INSERT INTO live_flight (flight_id, latitude, longitude, altitude_feet, h3, layer, time)
                VALUES ('F1', 40.5, -73.2, 35000, ?, 35, 1000);
                """, arguments: [tile])
        }
    }

    @Test(arguments: StoreSchema.migrationIDs.indices)
    func storeAtEveryEarlierVersionMigratesAndKeepsItsData(versionIndex: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("old.sqlite")
        do {
            let pool = try DatabasePool(path: path)
            try StoreSchema.migrator.migrate(pool, upTo: StoreSchema.migrationIDs[versionIndex])
            try pool.write { db in try Self.insertRows(upToMigration: versionIndex, db: db) }
            let applied = try pool.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
            #expect(applied == Set(StoreSchema.migrationIDs.prefix(versionIndex + 1)))
            try pool.close()
        }
        let store = try EddyStore.open(path: path)
        #expect(store.openOutcome == .opened)
        let applied = try store.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
        #expect(applied == Set(StoreSchema.migrationIDs))
        // Data written at the old version is intact and readable through today's API.
        let pending = try store.pendingOwnReports()
        #expect(pending.count == 1)
        #expect(pending.first?.reporterClass == .small)
        #expect(pending.first?.edrPeak == 0.3)
        #expect(try store.outboxCounts() == OutboxCounts(pending: 1, sent: 1))
        #expect(try store.observationCount() == 1)
        #expect(try store.syncState(area: .global, data: .turbulence)?.tick == "tick-9")
        #expect(try store.sessionValue(forKey: "token") == "abc")
        #expect(try store.configurationValue(forKey: "frequency") == "fast")
        let nowcastCount = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM nowcast") }
        let flightCount = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM live_flight") }
        #expect(nowcastCount == (versionIndex >= 1 ? 1 : 0))
        #expect(flightCount == (versionIndex >= 2 ? 1 : 0))
        // And the new tables work after the migration.
        let tile = TileID(h3: 0x85283473fffffff, layer: 30)
        try store.upsertLiveFlights([LiveFlight(flightID: "F2", latitude: 1, longitude: 2, altitudeFeet: 3, tile: tile, time: 5)])
        try store.upsertNowcast([NowcastCell(tile: tile, validTime: 7200, forecastHour: 2, edr: 0.1, issueTime: 0)])
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func storeFromANewerEddyIsRefusedAndLeftUntouched() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("s.sqlite")
        do {
            let store = try EddyStore.open(path: path)
            try store.insertOwnReports([makeReport(1)])
            try store.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')") }
            try store.close()
        }
        #expect(throws: StoreError.schemaTooNew(path: path, unknownMigrations: ["v9-future"])) {
            _ = try EddyStore.open(path: path)
        }
        #expect(try folder.contents().filter { $0.contains("unreadable") }.isEmpty)
    }

    /// Writes `bytes` at the store path, opens the store, and checks the file was moved aside byte for byte.
    func expectRecovery(from bytes: Data, expected: (StoreFileProblem) -> Bool, options: StoreOptions = StoreOptions()) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try bytes.write(to: URL(fileURLWithPath: path))
        let store = try EddyStore.open(path: path, options: options)
        guard case let .recovered(problem, movedTo) = store.openOutcome else {
            Issue.record("expected a recovery, got \(store.openOutcome)")
            return
        }
        #expect(expected(problem))
        #expect(movedTo == path + ".unreadable-1")
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == bytes)
        #expect(store.openOutcome.notice?.contains(movedTo) == true)
        // The fresh store works.
        try store.insertOwnReports([makeReport(1)])
        #expect(try store.outboxCounts().pending == 1)
        #expect(try store.integrityCheck() == ["ok"])
        try store.close()
        // Reopening now finds a healthy store.
        #expect(try EddyStore.open(path: path).openOutcome == .opened)
    }

    @Test func randomBytesAreMovedAside() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try expectRecovery(from: bytes, expected: { $0 == .notSQLite })
    }

    @Test func textFileIsMovedAside() throws {
        let text = String(repeating: "this is my shopping list, not a database\n", count: 50)
        try expectRecovery(from: Data(text.utf8), expected: { $0 == .notSQLite })
    }

    @Test func anotherAppsSQLiteFileIsMovedAside() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let foreignPath = folder.path("contacts.db")
        do {
            let queue = try DatabaseQueue(path: foreignPath)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO contacts (name) VALUES ('Ada')")
            }
            try queue.close()
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: foreignPath))
        try expectRecovery(from: bytes, expected: { $0 == .foreignDatabase(applicationID: 0, tables: ["contacts"]) })
    }

    @Test func sqliteHeaderFollowedByGarbageIsMovedAside() throws {
        var bytes = Data("SQLite format 3\u{0}".utf8)
        bytes.append(Data(repeating: 0xA5, count: 4096 - bytes.count))
        try expectRecovery(from: bytes, expected: { if case .corrupt = $0 { true } else { false } })
    }

    /// Fills a store with `fill`, closes it, and overwrites three pages in the middle of the file with 0x5A.
    /// Returns the offset of the damage.
    func makeDamagedStore(at path: String, fill: (EddyStore) throws -> Void) throws -> UInt64 {
        let store = try EddyStore.open(path: path)
        try fill(store)
        try store.close()
        // close() checkpointed the WAL into the main file.
        #expect((try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        let offset = size / 2 / 4096 * 4096
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 3 * 4096))
        try handle.close()
        return offset
    }

    @Test func damagedObservationLogIsFoundWhileIndexingAndMovedAside() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        let offset = try makeDamagedStore(at: path) { store in
            try store.upsertObservations((0..<5000).map { makeObservation($0, layer: $0 % 40, time: 1_800_000_000 + Double($0)) })
        }
        // Opening scans the observation log to build the index: the damage is found at once, no option needed.
        let store = try EddyStore.open(path: path)
        guard case let .recovered(.corrupt, movedTo) = store.openOutcome else {
            Issue.record("expected recovery from corruption, got \(store.openOutcome)")
            return
        }
        // The damaged file was moved, not deleted: the damage is still there at the same place.
        let moved = try Data(contentsOf: URL(fileURLWithPath: movedTo))
        #expect(moved[Int(offset)..<Int(offset) + 4096] == Data(repeating: 0x5A, count: 4096))
        #expect(try store.observationCount() == 0)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func damageElsewhereIsATypedErrorThenRecoveredWithIntegrityCheck() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        _ = try makeDamagedStore(at: path) { store in
            try store.insertOwnReports((0..<5000).map { makeReport($0, layer: $0 % 40, time: 1_800_000_000 + Double($0)) })
        }
        // Without the integrity check the header and the observation log look fine; the damage surfaces as a typed
        // error when the outbox is read.
        do {
            let store = try EddyStore.open(path: path)
            #expect(store.openOutcome == .opened)
            #expect((try? store.integrityCheck()) != ["ok"])
            #expect {
                _ = try store.pendingOwnReports()
            } throws: { error in
                if case StoreError.corrupt = error { true } else { false }
            }
            try? store.close()
        }
        // With the integrity check the store is moved aside and rebuilt.
        // (Opening a pool writes once — GRDB makes sure the WAL exists — so compare with the bytes as they are now.)
        let damagedNow = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try EddyStore.open(path: path, options: StoreOptions(integrityCheckOnOpen: true))
        guard case let .recovered(.corrupt, movedTo) = store.openOutcome else {
            Issue.record("expected recovery from corruption, got \(store.openOutcome)")
            return
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == damagedNow)
        #expect(try store.outboxCounts() == OutboxCounts(pending: 0, sent: 0))
    }

    @Test func secondUnreadableFileGetsTheNextFreeName() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try Data("one".utf8).write(to: URL(fileURLWithPath: path + ".unreadable-1"))
        try Data(repeating: 7, count: 200).write(to: URL(fileURLWithPath: path))
        let store = try EddyStore.open(path: path)
        #expect(store.openOutcome == .recovered(problem: .notSQLite, movedAsideTo: path + ".unreadable-2"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".unreadable-1")) == Data("one".utf8))
    }

    @Test func emptyFileIsTreatedAsANewStore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let store = try EddyStore.open(path: path)
        #expect(store.openOutcome == .created)
    }
}

@Suite("Opening: interrupted creation")
struct InterruptedCreationTests {
    @Test func storeWhoseCreationWasInterruptedIsCompletedNotMovedAside() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        // What a kill between GRDB creating its migrations table and the first migration's commit leaves behind.
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)") }
            try queue.close()
        }
        let store = try EddyStore.open(path: path)
        #expect(store.openOutcome == .created)
        try store.insertOwnReports([makeReport(1)])
        #expect(try store.outboxCounts().pending == 1)
        #expect(try folder.contents().filter { $0.contains("unreadable") }.isEmpty)
    }
}
