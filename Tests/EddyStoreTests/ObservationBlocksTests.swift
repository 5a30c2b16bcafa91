import EddyH3
import EddySupport
import EddyTesting
import EddyVocabulary
import Foundation
import GRDB
import Testing
@testable import EddyStore

/// The observation index's on-disk blocks (docs/store.md "Observations"): with a tiny in-memory limit every write
/// flushes, buckets fill up and merge, re-sent reports edit blocks, purges and deletes rewrite them. Query answers
/// must be those of a store that keeps every entry in memory (what the store did before v6) and those of the
/// SQL-only own-report path fed with the same reports.
@Suite("Observation index blocks")
struct ObservationBlocksTests {
    let now = 1_800_000_000.0

    /// Seeded reports over a few regions (dense enough that cells hold several reports at several layers).
    func seededObservations(count: Int, firstID: Int = 0, seed: UInt64) -> [ServerObservation] {
        var random = SplitMix64(seed: seed)
        let regions = [(39.0, -105.0), (40.5, -74.0), (51.5, -30.0), (47.0, -122.0)]
        return (0..<count).map { index in
            let region = regions[Int(random.next() % UInt64(regions.count))]
            let point = (region.0 + Double.random(in: -1.5...1.5, using: &random), region.1 + Double.random(in: -2...2, using: &random))
            let layer = Int.random(in: 30...40, using: &random)
            let time = now - Double.random(in: 0..<(6 * 3600), using: &random)
            let peak = Double.random(in: 0..<1, using: &random) < 0.6 ? Double.random(in: 0..<0.1, using: &random) : Double.random(in: 0.1..<0.6, using: &random)
            return observation(firstID + index, at: point, layer: layer, time: time, edrPeak: peak, reporter: "r\(index % 9)")
        }
    }

    /// Store options with this in-memory limit (and size cap).
    func options(recentLimit: Int, cap: Int? = nil) -> StoreOptions {
        var options = StoreOptions(maximumObservationCount: cap)
        options.observationRecentLimit = recentLimit
        return options
    }

    /// Upserts `observations` in batches of `batchSize` (one transaction each).
    func upsertInBatches(_ observations: [ServerObservation], into store: EddyStore, batchSize: Int) throws {
        for start in stride(from: 0, to: observations.count, by: batchSize) {
            try store.upsertObservations(Array(observations[start..<min(start + batchSize, observations.count)]))
        }
    }

    /// A store in `folder` (flushing every `recentLimit` entries) filled with `count` seeded reports in batches.
    func seededStore(in folder: TemporaryFolder, name: String, recentLimit: Int, count: Int, seed: UInt64,
                     batchSize: Int) throws -> (store: EddyStore, reports: [ServerObservation]) {
        let store = try EddyStore.open(path: folder.path(name), options: options(recentLimit: recentLimit))
        let reports = seededObservations(count: count, seed: seed)
        try upsertInBatches(reports, into: store, batchSize: batchSize)
        return (store, reports)
    }

    /// Query shapes whose answers the tests compare.
    var queries: [TurbulenceQuery] {
        let denverBox = [LatLng(latitude: 38, longitude: -106.5), LatLng(latitude: 38, longitude: -103.5),
                         LatLng(latitude: 40.5, longitude: -103.5), LatLng(latitude: 40.5, longitude: -106.5)]
        let route = [LatLng(latitude: 40.5, longitude: -75), LatLng(latitude: 40.5, longitude: -72.5)]
        return [
            TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, aggregation: .everyReport, now: now),
            TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, now: now, includeReporterDetails: true),
            TurbulenceQuery(area: .polygon(denverBox), now: now),
            TurbulenceQuery(area: .polygon(denverBox), altitudeRangeFeet: 33000...37000, historyWindow: .fourHours,
                            minimumSeverity: .light, viewer: .small, aggregation: .everyReport, now: now),
            TurbulenceQuery(area: .route(route, widthNM: 30), historyWindow: .oneHour, now: now),
            TurbulenceQuery(area: .polygon(denverBox), historyWindow: .sixHours, selection: .serverExcludingOwn(timeSpanSeconds: 3 * 3600), now: now),
        ]
    }

    /// Runs the same writes on a store that flushes after every few reports and on one that never flushes, and
    /// compares every query's answer after each step and after reopening.
    @Test func tinyLimitAnswersLikeAllInMemory() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tiny = options(recentLimit: 37, cap: 2_000)
        let large = options(recentLimit: 1_000_000, cap: 2_000)
        let flushing = try EddyStore.open(path: folder.path("tiny.sqlite"), options: tiny)
        let inMemory = try EddyStore.open(path: folder.path("large.sqlite"), options: large)
        func expectSameAnswers(_ step: String) throws {
            for (position, query) in queries.enumerated() {
                let got = try flushing.turbulence(query)
                let expected = try inMemory.turbulence(query)
                #expect(got == expected, "query \(position) after \(step)")
                #expect(!expected.isEmpty, "query \(position) after \(step) finds nothing: the comparison would be empty")
            }
        }
        let first = seededObservations(count: 2_400, seed: 29)
        let ownEchoes = first.prefix(40).map(\.report)
        for store in [flushing, inMemory] {
            try store.insertOwnReports(ownEchoes)
            try upsertInBatches(first, into: store, batchSize: 300)
        }
        // Buckets received more than `maximumBlocksPerBucket` flushes: some were merged.
        #expect(flushing.observationIndex.recentCount <= 37)
        let blocks = try flushing.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM observation_block") ?? 0 }
        #expect(blocks > 0)
        try expectSameAnswers("ingest")

        // Re-sent reports (flushed long ago, and just written) with new values, some twice in one batch.
        var resent = Array(first[10..<60]) + Array(first[2_380..<2_400])
        for index in resent.indices { resent[index].report.edrPeak = 0.05 + Double(index) / 100 }
        var again = first[20]
        again.report.edrPeak = 0.93
        resent.append(again)
        for store in [flushing, inMemory] { try store.upsertObservations(resent) }
        #expect(try flushing.observationCount() == 2_400)
        let revised = try flushing.turbulence(queries[0]).first { $0.report.id == testUUID(20) }
        #expect(revised?.report.edrPeak == 0.93)
        try expectSameAnswers("re-sent reports")

        // Retractions, then a purge one hour later with the size cap of 2,000.
        let retracted = [testUUID(3), testUUID(500), testUUID(2_399), testUUID(99_999)]
        #expect(try flushing.deleteObservations(ids: retracted) == 3)
        #expect(try inMemory.deleteObservations(ids: retracted) == 3)
        let purgedFlushing = try flushing.purgeExpired(now: now + 1800)
        let purgedInMemory = try inMemory.purgeExpired(now: now + 1800)
        #expect(purgedFlushing == purgedInMemory)
        #expect(purgedFlushing.observations > 0 && purgedFlushing.observationsOverCap > 0)
        try expectSameAnswers("delete and purge")

        // More reports after the purge, then both reopened.
        let second = seededObservations(count: 500, firstID: 10_000, seed: 35)
        for store in [flushing, inMemory] { try store.upsertObservations(second) }
        try expectSameAnswers("ingest after purge")
        try flushing.close()
        try inMemory.close()
        let flushingAgain = try EddyStore.open(path: folder.path("tiny.sqlite"), options: tiny)
        let inMemoryAgain = try EddyStore.open(path: folder.path("large.sqlite"), options: large)
        for (position, query) in queries.enumerated() {
            #expect(try flushingAgain.turbulence(query) == inMemoryAgain.turbulence(query), "query \(position) after reopening")
        }
    }

    /// An independent oracle: the own-report path filters and aggregates with SQL and plain sorting. Fed the same
    /// reports, the server path (through blocks) must give the same reports, counts and trends.
    @Test func serverPathThroughBlocksMatchesTheSQLOwnReportPath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, reports) = try seededStore(in: folder, name: "s.sqlite", recentLimit: 50, count: 1_500, seed: 7, batchSize: 250)
        let oracle = try EddyStore.open(path: folder.path("own.sqlite"))
        try oracle.insertOwnReports(reports.map(\.report))
        for window in [HistoryWindow.oneHour, .sixHours] {
            for aggregation in [Aggregation.worstPerTile, .everyReport] {
                for base in queries.prefix(5) {
                    var server = base
                    server.historyWindow = window
                    server.aggregation = aggregation
                    server.includeReporterDetails = false
                    var own = server
                    own.selection = .own(timeSpanSeconds: window.seconds)
                    let expected = try oracle.turbulence(own).map { item -> TurbulenceItem in
                        var item = item
                        item.origin = .server
                        return item
                    }
                    #expect(try store.turbulence(server) == expected)
                    #expect(!expected.isEmpty)
                }
            }
        }
    }

    /// A v5 store (the schema before the blocks) with more reports than the in-memory limit: the first open flushes
    /// its log in chunks, keeps every row and answers like a store filled through today's API.
    @Test func v5StoreIsFlushedOnFirstOpenAndLosesNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("v5.sqlite")
        let reports = seededObservations(count: 1_000, seed: 5)
        do {
            let pool = try DatabasePool(path: path)
            try StoreSchema.migrator.migrate(pool, upTo: "v5-report-altitude-fleet-offsets")
            try pool.write { db in
                for item in reports {
                    let report = item.report
                    try db.execute(sql: """
                        INSERT INTO observation (id, h3, layer, enter_time, exit_time, edr_peak, edr_median, reporter_class,
                            reporter_id, source, altitude_source, altitude_u90_ft, layer_uncertain)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'barometer', 120.5, 0)
                        """, arguments: [report.id.storeBlob, Int64(bitPattern: report.tile.h3), report.tile.layer, report.enterTime,
                                         report.exitTime, report.edrPeak, report.edrMedian, report.reporterClass.rawValue,
                                         item.reporterID, item.source])
                }
            }
            try pool.close()
        }
        let migrated = try EddyStore.open(path: path, options: options(recentLimit: 64))
        #expect(migrated.openOutcome == .opened)
        #expect(try migrated.observationCount() == 1_000)
        #expect(migrated.observationIndex.recentCount <= 64)
        let flushed = try migrated.read { db in try ObservationIndex.flushedRowid(db) }
        #expect(flushed >= 1_000 - 64)
        let reference = try EddyStore.open(path: folder.path("reference.sqlite"))
        try reference.upsertObservations(reports.map { item in
            var item = item
            item.report.altitudeSource = .barometer
            item.report.altitudeU90Feet = 120.5
            item.report.layerUncertain = false
            return item
        })
        for (position, query) in queries.enumerated() {
            #expect(try migrated.turbulence(query) == reference.turbulence(query), "query \(position)")
        }
        #expect(try migrated.integrityCheck() == ["ok"])
    }

    /// New rows get rowids above the flushed ones even after the newest rows were deleted (SQLite would otherwise
    /// reuse them, and the index would take a new row for a flushed one and never show it).
    @Test func rowsWrittenAfterTheNewestWereDeletedAreStillFound() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("r.sqlite"), options: options(recentLimit: 4))
        try store.upsertObservations((0..<10).map { observation($0, at: (40, -100 + Double($0) / 10), time: now - 60, edrPeak: 0.2) })
        #expect(try store.deleteObservations(ids: [testUUID(9), testUUID(8)]) == 2)
        try store.upsertObservations([observation(50, at: (41, -100), time: now - 30, edrPeak: 0.3)])
        let everything = TurbulenceQuery(area: .everywhere, aggregation: .everyReport, now: now)
        #expect(try store.turbulence(everything).count == 9)
        #expect(try store.turbulence(everything).contains { $0.report.id == testUUID(50) })
        try store.close()
        let reopened = try EddyStore.open(path: folder.path("r.sqlite"), options: options(recentLimit: 4))
        #expect(try reopened.turbulence(everything).count == 9)
    }

    /// Several queries in one call (one snapshot, a shared area covered once: the engine's alert candidates) answer
    /// exactly what each query answers alone, in the order given; a bad query in the batch refuses the whole batch.
    @Test func batchOfQueriesAnswersLikeEachQueryAlone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, reports) = try seededStore(in: folder, name: "b.sqlite", recentLimit: 100, count: 1_200, seed: 41, batchSize: 400)
        try store.insertOwnReports(reports.prefix(300).map(\.report))
        var batch: [TurbulenceQuery] = []
        for query in queries {
            batch.append(query)
            var own = query
            own.selection = .own(timeSpanSeconds: 3 * 3600)
            batch.append(own)
        }
        let answers = try store.turbulence(batch)
        #expect(answers.count == batch.count)
        for (position, query) in batch.enumerated() {
            #expect(answers[position] == (try store.turbulence(query)), "query \(position)")
        }
        #expect(answers.filter { !$0.isEmpty }.count == batch.count, "every query finds reports: the comparison is not empty")
        let bad = TurbulenceQuery(area: .polygon([LatLng(latitude: 1, longitude: 1)]), now: now)
        #expect(throws: StoreError.invalidQuery(.polygonTooFewCoordinates(count: 1))) { try store.turbulence([batch[0], bad]) }
    }

    /// A new filter holds no id; cleared, it holds none of the ids it held.
    @Test func idFilterStartsEmptyAndClears() {
        let filter = IDFilter()
        var random = SplitMix64(seed: 12)
        let ids = (0..<1_000).map { _ in (random.next(), random.next()) }
        #expect(ids.allSatisfy { !filter.mayContain(high: $0.0, low: $0.1) })
        for id in ids { filter.insert(high: id.0, low: id.1) }
        #expect(ids.allSatisfy { filter.mayContain(high: $0.0, low: $0.1) })
        filter.removeAll()
        #expect(ids.allSatisfy { !filter.mayContain(high: $0.0, low: $0.1) })
        filter.insert(high: ids[0].0, low: ids[0].1)
        #expect(filter.mayContain(high: ids[0].0, low: ids[0].1))
    }

    /// The id filter: no false negatives, and few false positives at a million ids.
    @Test func idFilterHasNoFalseNegativesAndFewFalsePositives() {
        let filter = IDFilter()
        var random = SplitMix64(seed: 11)
        var added: [(UInt64, UInt64)] = []
        for _ in 0..<1_000_000 {
            let id = (random.next(), random.next())
            filter.insert(high: id.0, low: id.1)
            if added.count < 10_000 { added.append(id) }
        }
        #expect(added.allSatisfy { filter.mayContain(high: $0.0, low: $0.1) })
        var falsePositives = 0
        for _ in 0..<100_000 where filter.mayContain(high: random.next(), low: random.next()) { falsePositives += 1 }
        // Expected ≈ 1.1 per 100,000 at this load (4 probes, 2²⁶ bits); 20 would mean a broken hash.
        #expect(falsePositives < 20)
        // Sequential test ids (only the last bytes differ) spread as well.
        let sequential = IDFilter()
        for n in 0..<100_000 { let halves = testUUID(n).halves; sequential.insert(high: halves.high, low: halves.low) }
        var sequentialFalse = 0
        for n in 100_000..<200_000 {
            let halves = testUUID(n).halves
            if sequential.mayContain(high: halves.high, low: halves.low) { sequentialFalse += 1 }
        }
        #expect(sequentialFalse < 20)
    }
}
