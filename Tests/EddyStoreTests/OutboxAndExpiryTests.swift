import EddyTesting
import EddyVocabulary
import Foundation
import GRDB
import Testing
@testable import EddyStore

@Suite("Outbox, server data, sync state, expiry")
struct OutboxAndExpiryTests {
    @Test func freshStoreIsCreatedInWALMode() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("nested/dir/store.sqlite"))
        #expect(store.openOutcome == .created)
        let mode = try store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let sync = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(sync == 2)  // FULL
        let appID = try store.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }
        #expect(appID == StoreSchema.applicationID)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func ownReportsArePendingUntilMarkedSentAndInsertIsIdempotent() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let reports = (1...5).map { makeReport($0, time: 1_800_000_000 + Double($0)) }
        #expect(try store.insertOwnReports(reports) == 5)
        #expect(try store.insertOwnReports([reports[0]]) == 0)
        #expect(try store.pendingOwnReports() == reports)
        #expect(try store.pendingOwnReports(limit: 2) == Array(reports.prefix(2)))
        #expect(try store.markOwnReportsSent(ids: [reports[1].id, reports[3].id, testUUID(999)]) == 2)
        #expect(try store.pendingOwnReports() == [reports[0], reports[2], reports[4]])
        #expect(try store.outboxCounts() == OutboxCounts(pending: 3, sent: 2))
        // Re-inserting a sent report does not make it pending again.
        #expect(try store.insertOwnReports([reports[1]]) == 0)
        #expect(try store.outboxCounts() == OutboxCounts(pending: 3, sent: 2))
        #expect(try store.ownReportIDs() == Set(reports.map(\.id)))
        #expect(throws: StoreError.self) { try store.pendingOwnReports(limit: -1) }
    }

    @Test func nonFiniteValuesAreRejectedWithoutWriting() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        var bad = makeReport(1)
        bad.edrPeak = .nan
        #expect(throws: StoreError.self) { try store.insertOwnReports([makeReport(2), bad]) }
        #expect(try store.outboxCounts() == OutboxCounts(pending: 0, sent: 0))
        var badObservation = makeObservation(3)
        badObservation.report.exitTime = .infinity
        #expect(throws: StoreError.self) { try store.upsertObservations([badObservation]) }
        #expect(try store.observationCount() == 0)
    }

    @Test func observationUpsertIsIdempotentAndNewestCopyWins() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let batch = (1...100).map { makeObservation($0, layer: 30 + $0 % 5) }
        try store.upsertObservations(batch)
        try store.upsertObservations(batch)
        #expect(try store.observationCount() == 100)
        // The server re-sends report 8 with revised EDR values and reporter: the stored copy is replaced.
        var changed = batch[7]
        changed.report.edrPeak = 0.5
        changed.reporterID = "revised"
        try store.upsertObservations([changed])
        #expect(try store.observationCount() == 100)
        let row = try store.read { db in
            try Row.fetchOne(db, sql: "SELECT edr_peak, reporter_id FROM observation WHERE id = ?", arguments: [changed.report.id.storeBlob])
        }
        #expect(row?[0] == 0.5)
        #expect(row?[1] == "revised")
        #expect(try store.deleteObservations(ids: [batch[0].report.id, testUUID(5000)]) == 1)
        #expect(try store.observationCount() == 99)
    }

    @Test func syncStateSessionAndConfigurationRoundTrip() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("s.sqlite")
        do {
            let store = try EddyStore.open(path: path)
            #expect(try store.syncState(area: .route, data: .turbulence) == nil)
            try store.setSyncState(SyncState(areaType: .route, dataType: .turbulence, tick: "t1", lastFullFetchTime: 100))
            try store.setSyncState(SyncState(areaType: .route, dataType: .turbulence, tick: "t2", lastFullFetchTime: 100))
            try store.setSyncState(SyncState(areaType: .global, dataType: .nowcast, tick: nil, lastFullFetchTime: nil))
            try store.setSessionValue("token-1", forKey: "token")
            try store.setConfigurationValue("fast", forKey: "updateFrequency")
            try store.setConfiguration([1, 2, 3], forKey: "list")
        }
        let store = try EddyStore.open(path: path)
        #expect(store.openOutcome == .opened)
        #expect(try store.syncState(area: .route, data: .turbulence)
            == SyncState(areaType: .route, dataType: .turbulence, tick: "t2", lastFullFetchTime: 100))
        #expect(try store.syncState(area: .global, data: .nowcast)
            == SyncState(areaType: .global, dataType: .nowcast, tick: nil, lastFullFetchTime: nil))
        #expect(try store.sessionValue(forKey: "token") == "token-1")
        #expect(try store.configurationValue(forKey: "updateFrequency") == "fast")
        #expect(try store.configuration([Int].self, forKey: "list") == [1, 2, 3])
        #expect(throws: StoreError.self) { try store.configuration(String.self, forKey: "list") }
        try store.clearSession()
        #expect(try store.sessionValue(forKey: "token") == nil)
        try store.setConfigurationValue(nil, forKey: "updateFrequency")
        #expect(try store.configurationValue(forKey: "updateFrequency") == nil)
        try store.resetSyncStates()
        #expect(try store.syncState(area: .route, data: .turbulence) == nil)
    }

    @Test func expiryPurgesOldDataButNeverPendingOwnReports() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let now = 1_800_000_000.0
        let sixHours = 6 * 3600.0
        try store.upsertObservations([
            makeObservation(1, time: now - sixHours - 1),  // expired
            makeObservation(2, time: now - sixHours),  // exactly 6 h: kept
            makeObservation(3, time: now - 60),
        ])
        try store.insertOwnReports([
            makeReport(10, time: now - 30 * 3600),  // pending, very old: kept
            makeReport(11, time: now - sixHours - 10),  // sent and old: purged
            makeReport(12, time: now - 100),  // sent, recent: kept
        ])
        try store.markOwnReportsSent(ids: [testUUID(11), testUUID(12)])
        let tile = TileID(h3: 0x85283473fffffff, layer: 35)
        try store.upsertNowcast([
            NowcastCell(tile: tile, validTime: now - 3600, forecastHour: 0, edr: 0.2, issueTime: now - 3600),  // ended at now
            NowcastCell(tile: tile, validTime: now - 1800, forecastHour: 1, edr: 0.2, issueTime: now - 5400),  // still valid
            NowcastCell(tile: tile, validTime: now + 3600, forecastHour: 2, edr: 0.3, issueTime: now - 3600),
        ])
        try store.upsertLiveFlights([
            LiveFlight(flightID: "old", latitude: 40, longitude: -70, altitudeFeet: 35000, tile: tile, time: now - 3600),
            LiveFlight(flightID: "new", latitude: 41, longitude: -71, altitudeFeet: 36000, tile: tile, time: now - 10),
        ])
        let summary = try store.purgeExpired(now: now)
        #expect(summary.observations == 1)
        #expect(summary.sentOwnReports == 1)
        #expect(summary.nowcastCells == 1)
        #expect(summary.liveFlights == 1)
        #expect(summary.observationsOverCap == 0)
        #expect(try store.observationCount() == 2)
        #expect(try store.ownReportIDs() == [testUUID(10), testUUID(12)])
        #expect(try store.outboxCounts() == OutboxCounts(pending: 1, sent: 1))
        // Far in the future everything but the pending report goes.
        let later = try store.purgeExpired(now: now + 48 * 3600)
        #expect(later.observations == 2 && later.sentOwnReports == 1 && later.nowcastCells == 2 && later.liveFlights == 1)
        #expect(try store.pendingOwnReports().map(\.id) == [testUUID(10)])
        #expect(throws: StoreError.self) { try store.purgeExpired(now: .nan) }
    }

    @Test func sizeCapEvictsOldestObservationsFirst() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"), options: StoreOptions(maximumObservationCount: 10))
        let now = 1_800_000_000.0
        // 25 observations, observation n exits at now - n minutes: the oldest are the highest n.
        try store.upsertObservations((1...25).map { makeObservation($0, time: now - Double($0) * 60) })
        try store.insertOwnReports((100..<120).map { makeReport($0, time: now - 3600) })
        let summary = try store.purgeExpired(now: now)
        #expect(summary.observationsOverCap == 15)
        let kept = try store.read { db in
            try Data.fetchAll(db, sql: "SELECT id FROM observation ORDER BY exit_time DESC").compactMap(UUID.init(storeBlob:))
        }
        #expect(kept == (1...10).map(testUUID))
        #expect(try store.outboxCounts().pending == 20)
    }

    @Test func liveFlightKeepsNewestPositionAndNowcastKeepsNewestIssue() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let tile = TileID(h3: 0x85283473fffffff, layer: 35)
        try store.upsertLiveFlights([LiveFlight(flightID: "A", latitude: 1, longitude: 2, altitudeFeet: 3, tile: tile, time: 200)])
        try store.upsertLiveFlights([LiveFlight(flightID: "A", latitude: 9, longitude: 9, altitudeFeet: 9, tile: tile, time: 100)])
        let latitude = try store.read { db in try Double.fetchOne(db, sql: "SELECT latitude FROM live_flight WHERE flight_id = 'A'") }
        #expect(latitude == 1)
        try store.upsertNowcast([NowcastCell(tile: tile, validTime: 1000, forecastHour: 1, edr: 0.2, issueTime: 500)])
        try store.upsertNowcast([NowcastCell(tile: tile, validTime: 900, forecastHour: 1, edr: 0.9, issueTime: 400)])
        let edr = try store.read { db in try Double.fetchOne(db, sql: "SELECT edr FROM nowcast") }
        #expect(edr == 0.2)
        #expect(throws: StoreError.self) {
            try store.upsertNowcast([NowcastCell(tile: tile, validTime: 1, forecastHour: -1, edr: 0.2, issueTime: 0)])
        }
    }
}

@Suite("Full disk")
struct FullDiskTests {
    @Test func fullDiskIsATypedErrorAndLosesNothingAlreadyStored() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("full.sqlite"))
        let kept = (0..<50).map { makeReport($0) }
        try store.insertOwnReports(kept)
        // Simulate a full disk: the writer connection may not grow the file beyond its current size + a little.
        let pages = try store.write { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        try store.write { db in _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pages + 2)") }
        let big = (1000..<21000).map { makeObservation($0, layer: $0 % 45, time: 1_800_000_000 + Double($0)) }
        #expect(throws: StoreError.diskFull(path: store.path)) { try store.upsertObservations(big) }
        // Nothing of the failed batch is visible, the index agrees, and the outbox is intact.
        #expect(try store.observationCount() == 0)
        #expect(try store.turbulence(TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, now: 1_800_030_000)).isEmpty)
        #expect(try store.pendingOwnReports() == kept)
        #expect(try store.integrityCheck() == ["ok"])
        // Space is back: writing works again.
        try store.write { db in _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = 1073741823") }
        try store.upsertObservations(Array(big.prefix(100)))
        #expect(try store.observationCount() == 100)
    }
}

@Suite struct ClearFetchedDataTests {
    @Test func clearFetchedDataDropsServerDataAndKeepsPendingOwnReports() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("engine.sqlite"))
        let now = 1_800_000_000.0
        let own = TileReport(id: UUID(), tile: TileID(h3: 0x85283473fffffff, layer: 35), enterTime: now - 100,
                             exitTime: now - 50, edrPeak: 0.3, edrMedian: 0.2, reporterClass: .medium)
        var theirs = own
        theirs.id = UUID()
        _ = try store.insertOwnReports([own])
        try store.upsertObservations([ServerObservation(report: theirs, reporterID: "r1", source: "eddy-server")])
        try store.setSyncState(SyncState(areaType: .route, dataType: .turbulence, tick: "7", lastFullFetchTime: now))
        #expect(try store.observationCount() == 1)
        try store.clearFetchedData()
        #expect(try store.observationCount() == 0)
        #expect(try store.syncState(area: .route, data: .turbulence) == nil)
        let everywhere = TurbulenceQuery(area: .everywhere, now: now)
        #expect(try store.turbulence(everywhere).isEmpty)
        #expect(try store.pendingOwnReports().map(\.id) == [own.id])
    }
}
