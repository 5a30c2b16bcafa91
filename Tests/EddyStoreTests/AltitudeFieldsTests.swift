import EddyH3
import EddyTesting
import EddyVocabulary
import Foundation
import GRDB
import Testing
@testable import EddyStore

/// A report carrying the three altitude fields (issue 11).
private func altitudeReport(
    _ n: Int, source: AltitudeSource? = .gnssFleetOffset, u90: Double? = 412.5, uncertain: Bool? = true,
    time: Double = 1_800_000_000, layer: Int = 35
) -> TileReport {
    var report = makeReport(n, layer: layer, time: time)
    report.altitudeSource = source
    report.altitudeU90Feet = u90
    report.layerUncertain = uncertain
    return report
}

@Suite("Report altitude fields: schema v5, writes, reads, index, GeoJSON")
struct AltitudeFieldsTests {
    /// A store at schema v4 (the last one without the fields), written with that schema's raw SQL, opens, keeps its
    /// data (the fields read as not recorded) and takes reports with the fields afterwards.
    @Test func v4StoreMigratesKeepsItsReportsAndTakesTheNewFields() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("v4.sqlite")
        do {
            let pool = try DatabasePool(path: path)
            try StoreSchema.migrator.migrate(pool, upTo: "v4-observation-generation")
            try pool.write { db in
                let columns = try db.columns(in: "observation").map(\.name)
                #expect(!columns.contains("altitude_source"))   // really the old schema
                try OpenAndMigrationTests.insertRows(upToMigration: 3, db: db)
            }
            try pool.close()
        }
        let store = try EddyStore.open(path: path)
        #expect(store.openOutcome == .opened)
        let pending = try store.pendingOwnReports()
        #expect(pending.count == 1)
        #expect(pending[0].edrPeak == 0.3)
        #expect(pending[0].altitudeSource == nil && pending[0].altitudeU90Feet == nil && pending[0].layerUncertain == nil)
        let old = try store.turbulence(TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, now: 400))
        #expect(old.count == 1)
        #expect(old.first?.report.edrPeak == 0.45)
        #expect(old.first?.report.altitudeSource == nil && old.first?.report.altitudeU90Feet == nil)
        // New reports with the fields, after the migration, in both tables.
        try store.insertOwnReports([altitudeReport(10, time: 300)])
        try store.upsertObservations([ServerObservation(report: altitudeReport(11, source: .external, u90: 60, uncertain: false, time: 300),
                                                        reporterID: "r1", source: "eddy")])
        #expect(try store.pendingOwnReports().first { $0.id == testUUID(10) } == altitudeReport(10, time: 300))
        let items = try store.turbulence(TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, aggregation: .everyReport, now: 400))
        #expect(items.first { $0.report.id == testUUID(11) }?.report == altitudeReport(11, source: .external, u90: 60, uncertain: false, time: 300))
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func ownReportsRoundTripEveryCombination() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        var reports: [TileReport] = []
        for (n, source) in ([nil] + AltitudeSource.allCases.map { Optional($0) }).enumerated() {
            reports.append(altitudeReport(n * 3 + 1, source: source, u90: nil, uncertain: nil, time: 1_800_000_000 + Double(n * 3)))
            reports.append(altitudeReport(n * 3 + 2, source: source, u90: 0, uncertain: false, time: 1_800_000_001 + Double(n * 3)))
            reports.append(altitudeReport(n * 3 + 3, source: source, u90: 1234.567, uncertain: true, time: 1_800_000_002 + Double(n * 3)))
        }
        try store.insertOwnReports(reports)
        #expect(try store.pendingOwnReports() == reports)
        let own = try store.turbulence(TurbulenceQuery(
            area: .everywhere, aggregation: .everyReport, selection: .own(timeSpanSeconds: 3600), now: 1_800_000_100))
        #expect(own.map(\.report) == reports.sorted { $0.exitTime < $1.exitTime })
    }

    @Test func observationsCarryTheFieldsThroughIndexUpdateAndRebuild() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("s.sqlite")
        let now = 1_800_000_100.0
        let first = [
            altitudeReport(1, source: .barometer, u90: 80, uncertain: false),
            altitudeReport(2, source: nil, u90: nil, uncertain: nil, layer: 36),
            altitudeReport(3, source: .gnssStandardAtmosphere, u90: 1650, uncertain: true, layer: 37),
        ]
        let query = TurbulenceQuery(area: .everywhere, aggregation: .everyReport, now: now)
        do {
            let store = try EddyStore.open(path: path)
            try store.upsertObservations(first.map { ServerObservation(report: $0, reporterID: "r", source: "eddy") })
            #expect(try store.turbulence(query).map(\.report) == first)   // index updated after commit
            // An update of the same id replaces the fields too (and may clear them).
            var changed = first[0]
            changed.altitudeSource = nil
            changed.altitudeU90Feet = nil
            changed.layerUncertain = nil
            try store.upsertObservations([ServerObservation(report: changed, reporterID: "r", source: "eddy")])
            #expect(try store.turbulence(query).map(\.report) == [changed] + first.dropFirst())
            try store.close()
        }
        // A fresh instance rebuilds its index from the table.
        let reopened = try EddyStore.open(path: path)
        var expected = first
        expected[0].altitudeSource = nil
        expected[0].altitudeU90Feet = nil
        expected[0].layerUncertain = nil
        #expect(try reopened.turbulence(query).map(\.report) == expected)
        #expect(MemoryLayout<ObservationIndex.Entry>.stride == 72)
    }

    @Test func badUncertaintyIsRefusedWithNothingWritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        for bad in [-1.0, .nan, .infinity] {
            #expect(throws: StoreError.self) { try store.insertOwnReports([altitudeReport(1), altitudeReport(2, u90: bad)]) }
            #expect(throws: StoreError.self) {
                try store.upsertObservations([ServerObservation(report: altitudeReport(3, u90: bad), reporterID: "r", source: "s")])
            }
        }
        #expect(try store.outboxCounts().pending == 0)
        #expect(try store.observationCount() == 0)
    }

    @Test func geoJSONHasTheFieldsOnlyWhenRecorded() throws {
        let with = TurbulenceItem(
            report: altitudeReport(1, source: .gnssFleetOffset, u90: 412.5, uncertain: true), severity: .light, origin: .server,
            reporterID: nil, source: nil, reportCount: 1)
        let without = TurbulenceItem(
            report: makeReport(2), severity: .light, origin: .server, reporterID: nil, source: nil, reportCount: 1)
        let text = try GeoJSON.featureCollection([with, without])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        let first = try #require(features[0]["properties"] as? [String: Any])
        let second = try #require(features[1]["properties"] as? [String: Any])
        #expect(first["altitude_source"] as? String == "gnss_fleet")
        #expect(first["altitude_u90_ft"] as? Double == 412.5)
        #expect(first["layer_uncertain"] as? Bool == true)
        #expect(second["altitude_source"] == nil && second["altitude_u90_ft"] == nil && second["layer_uncertain"] == nil)
        #expect(text.contains("\"report_count\":1,\"altitude_source\":\"gnss_fleet\",\"altitude_u90_ft\":412.5,\"layer_uncertain\":true}"))
    }
}

@Suite("Fleet altitude offsets: cache, neighbourhood query, purge")
struct AltitudeOffsetStoreTests {
    static let latitude = 40.64, longitude = -73.78
    static let home = try! H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: 3)
    static let ring = try! H3.gridRing(home, k: 1).map(\.rawValue).filter { $0 != 0 }.sorted()
    static let far = try! H3.gridRing(home, k: 2).map(\.rawValue).filter { $0 != 0 }.sorted()[0]

    static func cell(_ h3: UInt64, layer: Int, offset: Double = 1200, time: Double, count: Int = 3) -> AltitudeOffsetCell {
        AltitudeOffsetCell(h3: h3, layer: layer, offsetFeet: offset, uncertaintyFeet: 40, observationCount: count, newestTime: time)
    }

    @Test func neighbourhoodLayersAgeAndOrder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let now = 1_800_000_000.0
        let home = Self.home.rawValue
        let cells = [
            Self.cell(home, layer: 35, time: now - 100),
            Self.cell(home, layer: 37, time: now - 50),             // two layers up: in
            Self.cell(home, layer: 38, time: now - 50),             // three layers up: out
            Self.cell(home, layer: 33, time: now - 4000),           // too old: out
            Self.cell(Self.ring[0], layer: 35, time: now - 10),     // ring 1: in, after the own cell
            Self.cell(Self.ring[1], layer: 34, time: now - 20),
            Self.cell(Self.far, layer: 35, time: now - 10),         // ring 2: out
        ]
        try store.upsertAltitudeOffsets(cells)
        let found = try store.altitudeOffsets(nearLatitude: Self.latitude, longitude: Self.longitude, layer: 35, maxAgeSeconds: 3600, now: now)
        #expect(found == [cells[0], cells[1], cells[4], cells[5]])
        // A tighter age limit drops the older ones.
        let fresh = try store.altitudeOffsets(nearLatitude: Self.latitude, longitude: Self.longitude, layer: 35, maxAgeSeconds: 60, now: now)
        #expect(fresh == [cells[1], cells[4], cells[5]])
        #expect(try store.allAltitudeOffsets().count == cells.count)
    }

    @Test func newerReplacesOlderNeverTheOtherWay() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let home = Self.home.rawValue
        try store.upsertAltitudeOffsets([Self.cell(home, layer: 35, offset: 1000, time: 500)])
        try store.upsertAltitudeOffsets([Self.cell(home, layer: 35, offset: 1100, time: 600, count: 4)])
        try store.upsertAltitudeOffsets([Self.cell(home, layer: 35, offset: 900, time: 550)])   // an older answer: ignored
        #expect(try store.allAltitudeOffsets() == [Self.cell(home, layer: 35, offset: 1100, time: 600, count: 4)])
    }

    @Test func purgeAndClearRemoveThem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"), options: StoreOptions(altitudeOffsetMaximumAgeSeconds: 1800))
        let home = Self.home.rawValue
        let now = 1_800_000_000.0
        try store.upsertAltitudeOffsets([Self.cell(home, layer: 35, time: now - 1801), Self.cell(home, layer: 36, time: now - 1799)])
        let summary = try store.purgeExpired(now: now)
        #expect(summary.altitudeOffsets == 1)
        #expect(try store.allAltitudeOffsets().map(\.layer) == [36])
        try store.clearFetchedData()
        #expect(try store.allAltitudeOffsets().isEmpty)
    }

    @Test func badCellsAndBadQueriesAreTypedErrors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let home = Self.home.rawValue
        let res5 = try H3.latLngToCell(latitude: Self.latitude, longitude: Self.longitude, resolution: 5).rawValue
        var negative = Self.cell(home, layer: 35, time: 1)
        negative.uncertaintyFeet = -1
        var nan = Self.cell(home, layer: 35, time: 1)
        nan.offsetFeet = .nan
        for bad in [Self.cell(res5, layer: 35, time: 1), Self.cell(0, layer: 35, time: 1), negative, nan,
                    Self.cell(home, layer: 35, time: 1, count: 0), Self.cell(home, layer: 5000, time: 1)] {
            #expect(bad.storeProblem != nil)
            #expect(throws: StoreError.self) { try store.upsertAltitudeOffsets([Self.cell(home, layer: 30, time: 1), bad]) }
        }
        #expect(try store.allAltitudeOffsets().isEmpty)   // nothing of a refused batch is written
        for (lat, lon, layer, age, now) in [(91.0, 0.0, 35, 60.0, 0.0), (Double.nan, 0, 35, 60, 0), (0, 0, Int.max, 60, 0),
                                            (0, 0, 35, -1, 0), (0, 0, 35, 60, .infinity)] {
            #expect(throws: StoreError.self) {
                _ = try store.altitudeOffsets(nearLatitude: lat, longitude: lon, layer: layer, maxAgeSeconds: age, now: now)
            }
        }
    }
}
