import EddyH3
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import EddyStore

/// `EddyStore.turbulenceAndNowcast` (the engine's alert candidates in one snapshot) answers each query as the
/// single-query calls do, and skips the nowcast table only when nothing in it is still valid.
@Suite struct BatchedQueryTests {
    let now = 1_800_000_000.0
    let denver = (39.74, -104.99)
    let boulder = (40.01, -105.27)

    /// A square of about 120 NM around Denver (Boulder inside).
    var area: QueryArea {
        .polygon([LatLng(latitude: 38.7, longitude: -106.3), LatLng(latitude: 38.7, longitude: -103.7),
                  LatLng(latitude: 40.8, longitude: -103.7), LatLng(latitude: 40.8, longitude: -106.3)])
    }

    @Test func eachQueryAnsweredAsAlone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("b.sqlite"))
        try store.upsertObservations([
            observation(1, at: denver, layer: 35, time: now - 600, edrPeak: 0.3),
            observation(2, at: boulder, layer: 36, time: now - 300, edrPeak: 0.05),
            observation(3, at: (47.6, -122.3), layer: 35, time: now - 300, edrPeak: 0.4),  // Seattle: outside
        ])
        try store.insertOwnReports([
            TileReport(id: testUUID(10), tile: TileID(h3: cell(boulder.0, boulder.1), layer: 35), enterTime: now - 200,
                       exitTime: now - 100, edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium),
        ])
        let tileA = TileID(h3: cell(denver.0, denver.1), layer: 35)
        let tileB = TileID(h3: cell(boulder.0, boulder.1), layer: 36)
        try store.upsertNowcast([
            NowcastCell(tile: tileA, validTime: now, forecastHour: 0, edr: 0.3, issueTime: now - 3600),
            NowcastCell(tile: tileB, validTime: now + 3600, forecastHour: 1, edr: 0.05, issueTime: now - 3600),
            NowcastCell(tile: tileA, validTime: now + 7200, forecastHour: 2, edr: 0.5, issueTime: now - 3600),
            NowcastCell(tile: TileID(h3: cell(47.6, -122.3), layer: 35), validTime: now, forecastHour: 0, edr: 0.5,
                        issueTime: now - 3600),  // outside
        ])
        let server = TurbulenceQuery(area: area, altitudeRangeFeet: 33000...38000, viewer: .medium,
                                     selection: .serverExcludingOwn(timeSpanSeconds: 3600), now: now)
        let own = TurbulenceQuery(area: area, altitudeRangeFeet: 33000...38000, viewer: .medium,
                                  selection: .own(timeSpanSeconds: 3600), now: now)
        let nowcast = (0...3).map { NowcastQuery(forecastHour: $0, area: area, altitudeRangeFeet: 33000...38000, now: now) }
        let batched = try store.turbulenceAndNowcast([server, own], nowcast)
        #expect(batched.turbulence == [try store.turbulence(server), try store.turbulence(own)])
        #expect(batched.nowcast == (try nowcast.map { try store.nowcast($0) }))
        #expect(Set(batched.turbulence[0].map(\.report.id)) == [testUUID(1), testUUID(2)])
        #expect(batched.turbulence[1].map(\.report.id) == [testUUID(10)])
        #expect(batched.nowcast.map { $0.map(\.tile) } == [[tileA], [tileB], [tileA], []])
        // An hour later the hour-0 and hour-1 cells are still valid (their hour has not ended), hour 2's too.
        let later = nowcast.map { NowcastQuery(forecastHour: $0.forecastHour, area: area, altitudeRangeFeet: 33000...38000, now: now + 3599) }
        #expect(try store.turbulenceAndNowcast([], later).nowcast.map(\.count) == [1, 1, 1, 0])
        // Three hours later every cell's validity has ended: none, as the single queries say.
        let expired = nowcast.map { NowcastQuery(forecastHour: $0.forecastHour, area: area, now: now + 3 * 3600 + 1) }
        #expect(try store.turbulenceAndNowcast([], expired).nowcast == (try expired.map { try store.nowcast($0) }))
        #expect(try store.turbulenceAndNowcast([], expired).nowcast.allSatisfy(\.isEmpty))
    }

    /// A bad query is refused before anything is read, with the single call's error.
    @Test func badQueriesRefusedAsAlone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("b.sqlite"))
        let good = TurbulenceQuery(area: area, now: now)
        #expect(throws: StoreError.invalidQuery(.invalidForecastHour(13))) {
            try store.turbulenceAndNowcast([good], [NowcastQuery(forecastHour: 13, area: area, now: now)])
        }
        #expect(throws: StoreError.invalidQuery(.invalidNow(.infinity))) {
            try store.turbulenceAndNowcast([good], [NowcastQuery(forecastHour: 0, area: area, now: .infinity)])
        }
    }
}
