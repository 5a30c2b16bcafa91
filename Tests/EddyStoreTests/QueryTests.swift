import EddyH3
import EddyTesting
import EddyVocabulary
import Foundation
import GRDB
import Testing
@testable import EddyStore

/// The resolution-5 cell of a point.
func cell(_ latitude: Double, _ longitude: Double) -> UInt64 {
    try! H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: 5).rawValue
}

func observation(
    _ n: Int, at point: (Double, Double), layer: Int = 35, time: Double, edrPeak: Double, reporter: String = "anon"
) -> ServerObservation {
    ServerObservation(
        report: TileReport(
            id: testUUID(n), tile: TileID(h3: cell(point.0, point.1), layer: layer), enterTime: time - 60, exitTime: time,
            edrPeak: edrPeak, edrMedian: edrPeak / 2, reporterClass: .medium),
        reporterID: reporter, source: "eddy")
}

@Suite("Query validation: each error on its own")
struct QueryValidationTests {
    let now = 1_800_000_000.0

    func expectError(_ expected: QueryError, _ query: TurbulenceQuery) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        #expect(throws: StoreError.invalidQuery(expected)) { try store.turbulence(query) }
    }

    @Test func polygonWithMoreThan250CoordinatesIsRefused() throws {
        let ring = (0..<251).map { index in
            LatLng(latitude: 40 + sin(Double(index) / 251 * 2 * .pi), longitude: -100 + cos(Double(index) / 251 * 2 * .pi))
        }
        try expectError(.polygonTooManyCoordinates(count: 251, maximum: 250), TurbulenceQuery(area: .polygon(ring), now: now))
        // 250 is fine.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        #expect(try store.turbulence(TurbulenceQuery(area: .polygon(Array(ring.prefix(250))), now: now)).isEmpty)
    }

    @Test func polygonWithTooFewDistinctVerticesIsRefused() throws {
        let a = LatLng(latitude: 40, longitude: -100)
        let b = LatLng(latitude: 41, longitude: -100)
        try expectError(.polygonTooFewCoordinates(count: 2), TurbulenceQuery(area: .polygon([a, b, a]), now: now))
    }

    @Test func altitudeRangeNotInWholeThousandsIsRefused() throws {
        try expectError(
            .altRangeNotRoundToThousandFeet(lowerFeet: 30500, upperFeet: 40000),
            TurbulenceQuery(area: .everywhere, altitudeRangeFeet: 30500...40000, now: now))
        try expectError(
            .altRangeNotRoundToThousandFeet(lowerFeet: 30000, upperFeet: 39999),
            TurbulenceQuery(area: .everywhere, altitudeRangeFeet: 30000...39999, now: now))
        #expect(throws: QueryError.altRangeNotRoundToThousandFeet(lowerFeet: 100, upperFeet: 2000)) {
            _ = try TurbulenceQuery.altitudeRange(lowerFeet: 100, upperFeet: 2000)
        }
    }

    @Test func altitudeRangeOutOfBoundsOrInvertedIsRefused() throws {
        try expectError(
            .altRangeOutOfBounds(lowerFeet: -3000, upperFeet: 10000),
            TurbulenceQuery(area: .everywhere, altitudeRangeFeet: -3000...10000, now: now))
        try expectError(
            .altRangeOutOfBounds(lowerFeet: 30000, upperFeet: 61000),
            TurbulenceQuery(area: .everywhere, altitudeRangeFeet: 30000...61000, now: now))
        #expect(throws: QueryError.altRangeOutOfBounds(lowerFeet: 40000, upperFeet: 30000)) {
            _ = try TurbulenceQuery.altitudeRange(lowerFeet: 40000, upperFeet: 30000)
        }
    }

    @Test(arguments: [0.25, 3.0, 5.0, 12.0, -1.0, .nan])
    func historyWindowOtherThanTheFiveIsRefused(hours: Double) throws {
        #expect {
            _ = try HistoryWindow.validated(hours: hours)
        } throws: { error in
            guard case let QueryError.invalidHistoryWindow(value) = error else { return false }
            return value == hours || (value.isNaN && hours.isNaN)
        }
    }

    @Test func theFiveHistoryWindowsAreAccepted() throws {
        #expect(try [0.5, 1, 2, 4, 6].map { try HistoryWindow.validated(hours: $0) } == HistoryWindow.allCases)
    }

    @Test func routeErrors() throws {
        let a = LatLng(latitude: 40, longitude: -100)
        let b = LatLng(latitude: 40, longitude: -90)
        try expectError(.routeTooFewCoordinates(count: 1), TurbulenceQuery(area: .route([a, a], widthNM: 20), now: now))
        try expectError(
            .invalidRouteWidth(nauticalMiles: 0, maximum: QueryLimits.maximumRouteWidthNM),
            TurbulenceQuery(area: .route([a, b], widthNM: 0), now: now))
        try expectError(
            .invalidRouteWidth(nauticalMiles: 300, maximum: QueryLimits.maximumRouteWidthNM),
            TurbulenceQuery(area: .route([a, b], widthNM: 300), now: now))
        let long = (0..<251).map { LatLng(latitude: 40, longitude: -100 + Double($0) * 0.01) }
        try expectError(
            .routeTooManyCoordinates(count: 251, maximum: 250), TurbulenceQuery(area: .route(long, widthNM: 20), now: now))
    }

    @Test func invalidCoordinatesAreRefused() throws {
        let ring = [LatLng(latitude: 40, longitude: -100), LatLng(latitude: 91, longitude: -100), LatLng(latitude: 40, longitude: -99)]
        try expectError(.invalidCoordinate(index: 1, latitude: 91, longitude: -100), TurbulenceQuery(area: .polygon(ring), now: now))
        let route = [LatLng(latitude: 40, longitude: -100), LatLng(latitude: 40, longitude: 181)]
        try expectError(.invalidCoordinate(index: 1, latitude: 40, longitude: 181), TurbulenceQuery(area: .route(route, widthNM: 5), now: now))
    }

    @Test func hugeAreaIsRefused() throws {
        // Half the planet between 60°S and 70°N.
        let ring = [
            LatLng(latitude: -60, longitude: -90), LatLng(latitude: -60, longitude: 0), LatLng(latitude: -60, longitude: 90),
            LatLng(latitude: 70, longitude: 90), LatLng(latitude: 70, longitude: 0), LatLng(latitude: 70, longitude: -90),
        ]
        #expect {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            _ = try EddyStore.open(path: folder.path("q.sqlite")).turbulence(TurbulenceQuery(area: .polygon(Array(ring)), now: now))
        } throws: { error in
            if case StoreError.invalidQuery(.areaTooLarge) = error { true } else { false }
        }
    }

    @Test func tileListErrors() throws {
        try expectError(.invalidTileCount(count: 0, maximum: QueryLimits.maximumTiles), TurbulenceQuery(area: .tiles([]), now: now))
        // A resolution-6 cell is not a tile.
        let res6 = try H3.latLngToCell(latitude: 40, longitude: -100, resolution: 6).rawValue
        try expectError(.invalidTile(h3: String(res6, radix: 16)), TurbulenceQuery(area: .tiles([TileID(h3: res6, layer: 3)]), now: now))
        try expectError(.invalidTile(h3: "123"), TurbulenceQuery(area: .tiles([TileID(h3: 0x123, layer: 3)]), now: now))
    }

    @Test func timeSpanAndNowErrors() throws {
        try expectError(.invalidTimeSpan(seconds: 0), TurbulenceQuery(area: .everywhere, selection: .own(timeSpanSeconds: 0), now: now))
        try expectError(
            .invalidTimeSpan(seconds: 30000), TurbulenceQuery(area: .everywhere, selection: .serverExcludingOwn(timeSpanSeconds: 30000), now: now))
        try expectError(.invalidNow(.infinity), TurbulenceQuery(area: .everywhere, now: .infinity))
    }

    @Test func nowcastForecastHourOutOfRangeIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        #expect(throws: StoreError.invalidQuery(.invalidForecastHour(13))) { try store.nowcast(NowcastQuery(forecastHour: 13, now: now)) }
        #expect(throws: StoreError.invalidQuery(.invalidForecastHour(-1))) { try store.nowcast(NowcastQuery(forecastHour: -1, now: now)) }
    }

    @Test func errorsSayWhatToDo() {
        #expect(QueryError.polygonTooManyCoordinates(count: 300, maximum: 250).description.contains("at most 250"))
        #expect(QueryError.altRangeNotRoundToThousandFeet(lowerFeet: 1, upperFeet: 2).description.contains("whole thousands"))
        #expect(QueryError.invalidHistoryWindow(hours: 3).description.contains("0.5, 1, 2, 4 or 6"))
    }
}

@Suite("Query semantics")
struct QuerySemanticsTests {
    let now = 1_800_000_000.0
    let denver = (39.74, -104.99)
    let chicago = (41.88, -87.63)

    @Test func tileQueryFiltersByTimeAltitudeSeverityAndViewer() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        try store.upsertObservations([
            observation(1, at: denver, layer: 35, time: now - 600, edrPeak: 0.12),  // light (medium), lightModerate? no
            observation(2, at: denver, layer: 35, time: now - 3 * 3600, edrPeak: 0.50),  // outside 2 h
            observation(3, at: denver, layer: 41, time: now - 60, edrPeak: 0.25),  // above the altitude range
            observation(4, at: denver, layer: 36, time: now - 60, edrPeak: 0.05),  // smooth for medium
            observation(5, at: chicago, layer: 35, time: now - 60, edrPeak: 0.3),  // another cell
        ])
        let tiles = [35, 36, 41].map { TileID(h3: cell(denver.0, denver.1), layer: $0) }
        var query = TurbulenceQuery(area: .tiles(tiles), altitudeRangeFeet: 30000...40000, aggregation: .everyReport, now: now)
        #expect(try store.turbulence(query).map(\.report.id) == [testUUID(1), testUUID(4)])
        query.historyWindow = .fourHours
        #expect(try store.turbulence(query).map(\.report.id) == [testUUID(2), testUUID(1), testUUID(4)])
        query.minimumSeverity = .light
        #expect(try store.turbulence(query).map(\.report.id) == [testUUID(2), testUUID(1)])
        // A large viewer feels 0.12 as smooth (light starts at 0.13 for large).
        query.viewer = .large
        #expect(try store.turbulence(query).map(\.report.id) == [testUUID(2)])
        // A small viewer sees report 4 (0.05) as smooth still but report 1 (0.12) as moderate.
        query.viewer = .small
        query.minimumSeverity = .moderate
        let small = try store.turbulence(query)
        #expect(small.map(\.report.id) == [testUUID(2), testUUID(1)])
        #expect(small.map(\.severity) == [.severe, .moderate])
        query.altitudeRangeFeet = nil
        query.minimumSeverity = .none
        #expect(try store.turbulence(query).count == 4)
    }

    @Test func worstPerTileKeepsHighestPeakAndCounts() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        try store.upsertObservations([
            observation(1, at: denver, time: now - 100, edrPeak: 0.2),
            observation(2, at: denver, time: now - 200, edrPeak: 0.4),
            observation(3, at: denver, time: now - 50, edrPeak: 0.4),  // same peak, later: wins
            observation(4, at: denver, layer: 36, time: now - 50, edrPeak: 0.1),
        ])
        let items = try store.turbulence(TurbulenceQuery(area: .everywhere, now: now))
        #expect(items.map(\.report.id) == [testUUID(3), testUUID(4)])
        #expect(items.map(\.reportCount) == [3, 1])
        #expect(items.first?.origin == .server)
        #expect(items.first?.reporterID == nil)  // not asked for
        let detailed = try store.turbulence(TurbulenceQuery(area: .everywhere, now: now, includeReporterDetails: true))
        #expect(detailed.map(\.report) == items.map(\.report))
        #expect(detailed.first?.reporterID == "anon")
        #expect(detailed.first?.source == "eddy")
    }

    @Test func observationIndexStaysInStepWithTheLog() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("q.sqlite")
        let everything = TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, aggregation: .everyReport, now: now)
        var expected: [TurbulenceItem] = []
        do {
            let store = try EddyStore.open(path: path)
            var first: [ServerObservation] = []
            for n in 0..<300 {
                let point = (30 + Double(n % 30), -100 + Double(n % 17))
                let time = now - Double(n) * 60
                first.append(observation(n, at: point, layer: n % 45, time: time, edrPeak: Double(n % 50) / 100))
            }
            // The same id twice in one batch: the later copy wins.
            var repeated = first[5]
            repeated.report.edrPeak = 0.77
            first.append(repeated)
            try store.upsertObservations(first)
            // Re-sent in a later batch with new values.
            var resent = first[6]
            resent.report.edrPeak = 0.66
            resent.report.edrMedian = 0.11
            try store.upsertObservations([resent])
            #expect(try store.observationCount() == 300)
            #expect(try store.deleteObservations(ids: [testUUID(7), testUUID(8), testUUID(9999)]) == 2)
            // Two hours later, reports more than 4 h older than `now` (n = 241 … 299) expire.
            let purged = try store.purgeExpired(now: now + 2 * 3600)
            #expect(purged.observations == 59)
            expected = try store.turbulence(everything)
            let byID = Dictionary(uniqueKeysWithValues: expected.map { ($0.report.id, $0.report) })
            #expect(byID[testUUID(5)]?.edrPeak == 0.77)
            #expect(byID[testUUID(6)]?.edrPeak == 0.66 && byID[testUUID(6)]?.edrMedian == 0.11)
            #expect(byID[testUUID(7)] == nil)
            #expect(expected.count == 300 - 2 - purged.observations)
            // What the index says matches what the table holds.
            let tableCount = try store.observationCount()
            #expect(tableCount == expected.count)
            try store.close()
        }
        // Reopening rebuilds the index from the log: same answers.
        let reopened = try EddyStore.open(path: path)
        #expect(try reopened.turbulence(everything) == expected)
    }

    @Test func ownServerAndServerExcludingOwn() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        // Our reports 1 (recent) and 2 (90 min ago) came back from the server under the same ids; 3 is someone else's.
        let own1 = observation(1, at: denver, time: now - 600, edrPeak: 0.3).report
        let own2 = observation(2, at: denver, layer: 36, time: now - 5400, edrPeak: 0.3).report
        try store.insertOwnReports([own1, own2])
        try store.upsertObservations([
            observation(1, at: denver, time: now - 600, edrPeak: 0.3),
            observation(2, at: denver, layer: 36, time: now - 5400, edrPeak: 0.3),
            observation(3, at: denver, layer: 37, time: now - 700, edrPeak: 0.3),
        ])
        func ids(_ selection: ReportSelection) throws -> [UUID] {
            try store.turbulence(TurbulenceQuery(area: .everywhere, aggregation: .everyReport, selection: selection, now: now)).map(\.report.id)
        }
        #expect(try ids(.server) == [testUUID(1), testUUID(2), testUUID(3)])
        #expect(try ids(.serverExcludingOwn(timeSpanSeconds: 3600)) == [testUUID(2), testUUID(3)])
        #expect(try ids(.serverExcludingOwn(timeSpanSeconds: 6 * 3600)) == [testUUID(3)])
        #expect(try ids(.own(timeSpanSeconds: 3600)) == [testUUID(1)])
        #expect(try ids(.own(timeSpanSeconds: 2 * 3600)) == [testUUID(1), testUUID(2)])
        let ownItems = try store.turbulence(TurbulenceQuery(area: .everywhere, selection: .own(timeSpanSeconds: 3600), now: now))
        #expect(ownItems.first?.origin == .own && ownItems.first?.reporterID == nil)
    }

    @Test func polygonQueryUsesCellCentres() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        try store.upsertObservations([
            observation(1, at: (40.0, -100.0), time: now - 60, edrPeak: 0.3),
            observation(2, at: (40.9, -99.1), time: now - 60, edrPeak: 0.3),
            observation(3, at: (42.0, -100.0), time: now - 60, edrPeak: 0.3),
            observation(4, at: chicago, time: now - 60, edrPeak: 0.3),
        ])
        let square = [
            LatLng(latitude: 39, longitude: -101), LatLng(latitude: 39, longitude: -99),
            LatLng(latitude: 41, longitude: -99), LatLng(latitude: 41, longitude: -101), LatLng(latitude: 39, longitude: -101),
        ]
        let items = try store.turbulence(TurbulenceQuery(area: .polygon(square), now: now))
        #expect(Set(items.map(\.report.id)) == [testUUID(1), testUUID(2)])
        // Every returned tile's centre is inside the square.
        for item in items {
            let centre = try H3.cellToLatLng(H3Index(rawValue: item.report.tile.h3))
            #expect((39...41).contains(centre.latitude) && (-101 ... -99).contains(centre.longitude))
        }
    }

    @Test func routeQueryIncludesTilesWithinTheCorridor() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        // Route along 40°N from 100°W to 90°W, 20 NM each side (≈ 0.33° of latitude).
        try store.upsertObservations([
            observation(1, at: (40.0, -95.0), time: now - 60, edrPeak: 0.3),  // on the route
            observation(2, at: (40.2, -95.0), time: now - 60, edrPeak: 0.3),  // 12 NM north
            observation(3, at: (41.0, -95.0), time: now - 60, edrPeak: 0.3),  // 60 NM north
            observation(4, at: (40.0, -89.85), time: now - 60, edrPeak: 0.3),  // 7 NM past the end
            observation(5, at: (40.0, -89.0), time: now - 60, edrPeak: 0.3),  // 46 NM past the end
        ])
        let route = [LatLng(latitude: 40, longitude: -100), LatLng(latitude: 40, longitude: -90)]
        let items = try store.turbulence(TurbulenceQuery(area: .route(route, widthNM: 20), now: now))
        #expect(Set(items.map(\.report.id)) == [testUUID(1), testUUID(2), testUUID(4)])
    }

    @Test func routeCoverMatchesBruteForceCentreDistances() throws {
        let route = [
            LatLng(latitude: 47.5, longitude: -52.7), LatLng(latitude: 51.0, longitude: -40.0), LatLng(latitude: 53.3, longitude: -20.0),
        ]
        let widthNM = 20.0
        let cover = Set(try CellCover.route(route, widthNM: widthNM))
        let widthKm = widthNM * 1.852
        // Independent check: densely sampled route (0.25 km), haversine distance to the nearest sample.
        var samples: [LatLng] = []
        for (a, b) in zip(route, route.dropFirst()) {
            let va = CellCover.Vector(a), vb = CellCover.Vector(b)
            let angle = acos(va.dot(vb))
            let steps = Int(angle * CellCover.earthRadiusKm / 0.25) + 1
            for step in 0...steps { samples.append(CellCover.slerp(va, vb, angle: angle, fraction: Double(step) / Double(steps)).latLng) }
        }
        var candidates = Set<H3Index>()
        for sample in samples.enumerated() where sample.offset % 40 == 0 {
            let origin = try H3.latLngToCell(latitude: sample.element.latitude, longitude: sample.element.longitude, resolution: 5)
            candidates.formUnion(try H3.gridDisk(origin, k: 5))
        }
        var checked = 0
        for candidate in candidates {
            let centre = try H3.cellToLatLng(candidate)
            let distance = samples.map { H3.greatCircleDistanceKm(centre, $0) }.min()!
            if abs(distance - widthKm) < 0.3 { continue }  // too close to the edge for the sampled reference
            checked += 1
            if distance < widthKm {
                #expect(cover.contains(candidate.rawValue), "centre \(distance) km from the route is missing")
            } else if cover.contains(candidate.rawValue) {
                // Allowed only for cells the route itself passes through.
                let onRoute = try samples.contains { try H3.latLngToCell(latitude: $0.latitude, longitude: $0.longitude, resolution: 5) == candidate }
                #expect(onRoute, "cell \(candidate) with centre \(distance) km away is in the cover")
            }
        }
        #expect(checked > 1000)
    }

    @Test func geoJSONHasClosedCounterClockwiseHexagonsAndProperties() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        try store.upsertObservations([
            observation(1, at: denver, time: now - 60, edrPeak: 0.25),
            observation(2, at: (60.0, -179.99), layer: 30, time: now - 60, edrPeak: 0.5),  // near the antimeridian
        ])
        let items = try store.turbulence(TurbulenceQuery(area: .everywhere, now: now))
        let text = try GeoJSON.featureCollection(items)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == 2)
        for (feature, item) in zip(features, items) {
            #expect(feature["type"] as? String == "Feature")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "Polygon")
            let rings = try #require(geometry["coordinates"] as? [[[Double]]])
            #expect(rings.count == 1)
            let ring = rings[0]
            #expect(ring.count == 7)  // hexagon + closing position
            #expect(ring.first == ring.last)
            var twiceArea = 0.0
            for index in 0..<(ring.count - 1) {
                twiceArea += ring[index][0] * ring[index + 1][1] - ring[index + 1][0] * ring[index][1]
            }
            #expect(twiceArea > 0, "ring is not counter-clockwise")
            // Positions are [longitude, latitude] around the cell centre.
            let centre = try H3.cellToLatLng(H3Index(rawValue: item.report.tile.h3))
            for position in ring { #expect(abs(position[1] - centre.latitude) < 0.2) }
            let properties = try #require(feature["properties"] as? [String: Any])
            #expect(properties["severity"] as? String == item.severity.name)
            #expect(properties["edr_peak"] as? Double == item.report.edrPeak)
            #expect(properties["layer"] as? Int == item.report.tile.layer)
            #expect(properties["time"] as? Double == item.report.exitTime)
            #expect(feature["id"] as? String == item.report.id.uuidString.lowercased())
        }
        #expect(try GeoJSON.featureCollection([]) == "{\"type\":\"FeatureCollection\",\"features\":[]}")
    }

    @Test func nowcastByForecastHourPolygonsAndLiveFlights() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("q.sqlite"))
        let tileA = TileID(h3: cell(denver.0, denver.1), layer: 35)
        let tileB = TileID(h3: cell(chicago.0, chicago.1), layer: 20)
        try store.upsertNowcast([
            NowcastCell(tile: tileA, validTime: now, forecastHour: 1, edr: 0.3, issueTime: now - 3600),
            NowcastCell(tile: tileB, validTime: now, forecastHour: 1, edr: 0.05, issueTime: now - 3600),
            NowcastCell(tile: tileA, validTime: now + 3600, forecastHour: 2, edr: 0.5, issueTime: now - 3600),
            NowcastCell(tile: tileB, validTime: now - 7200, forecastHour: 0, edr: 0.5, issueTime: now - 7200),  // expired
        ])
        #expect(try store.nowcast(NowcastQuery(forecastHour: 1, now: now)).map(\.tile) == [tileA, tileB].sorted())
        #expect(try store.nowcast(NowcastQuery(forecastHour: 1, minimumSeverity: .light, now: now)).map(\.tile) == [tileA])
        #expect(try store.nowcast(NowcastQuery(forecastHour: 1, altitudeRangeFeet: 10000...25000, now: now)).map(\.tile) == [tileB])
        #expect(try store.nowcast(NowcastQuery(forecastHour: 2, now: now)).map(\.edr) == [0.5])
        #expect(try store.nowcast(NowcastQuery(forecastHour: 0, now: now)).isEmpty)
        let nowcastJSON = try GeoJSON.featureCollection(try store.nowcast(NowcastQuery(forecastHour: 2, now: now)), viewer: .medium)
        #expect(nowcastJSON.contains("\"severity\":\"severe\""))

        let polygons = "{\"type\":\"FeatureCollection\",\"features\":[]}"
        try store.upsertTurbulencePolygons([
            TurbulencePolygonSet(historyWindow: .twoHours, severity: .moderate, geoJSON: polygons, updatedTime: now),
            TurbulencePolygonSet(historyWindow: .twoHours, severity: .light, geoJSON: polygons, updatedTime: now),
            TurbulencePolygonSet(historyWindow: .sixHours, severity: .severe, geoJSON: polygons, updatedTime: now),
        ])
        #expect(try store.turbulencePolygons(historyWindow: .twoHours).map(\.severity) == [.moderate, .light])
        #expect(try store.turbulencePolygons(historyWindow: .twoHours, minimumSeverity: .moderate).map(\.severity) == [.moderate])

        try store.upsertLiveFlights([
            LiveFlight(flightID: "A", latitude: 40, longitude: -100, altitudeFeet: 35000, tile: tileA, time: now - 30),
            LiveFlight(flightID: "B", latitude: 41, longitude: -88, altitudeFeet: 20000, tile: tileB, time: now - 10),
            LiveFlight(flightID: "C", latitude: 41, longitude: -88, altitudeFeet: 20000, tile: tileB, time: now - 4000),
        ])
        #expect(try store.liveFlights(now: now).map(\.flightID) == ["B", "A"])
        #expect(try store.liveFlights(now: now, maximumAgeSeconds: 5000).map(\.flightID) == ["B", "A", "C"])
    }
}

@Suite("Concurrent readers and the writer")
struct ConcurrencyTests {
    @Test func queriesRunWhileBatchesAreIngested() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("c.sqlite"))
        let now = 1_800_000_000.0
        let batches = 20
        let perBatch = 500
        let query = TurbulenceQuery(area: .everywhere, aggregation: .everyReport, now: now)
        // One writer thread, three reader threads; readers must always see whole batches (counts are multiples
        // of the batch size) and never fail.
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                if worker == 0 {
                    for batch in 0..<batches {
                        try store.upsertObservations((0..<perBatch).map { index in
                            let n = batch * perBatch + index
                            return observation(n, at: (35 + Double(n % 20), -100 + Double(n % 30)), time: now - Double(n % 3000), edrPeak: 0.2)
                        })
                    }
                } else {
                    for _ in 0..<30 {
                        let count = try store.turbulence(query).count
                        if count % perBatch != 0 { failures.add() }
                    }
                }
            } catch {
                failures.add()
            }
        }
        #expect(failures.value == 0)
        #expect(try store.turbulence(query).count == batches * perBatch)
        #expect(try store.observationCount() == batches * perBatch)
    }
}

/// A thread-safe counter for the concurrency test.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("Several store instances on one file")
struct SharedFileTests {
    let now = 1_800_000_000.0

    @Test func eachInstanceSeesTheOthersObservationWrites() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shared.sqlite")
        let a = try EddyStore.open(path: path)
        let b = try EddyStore.open(path: path)
        let everything = TurbulenceQuery(area: .everywhere, aggregation: .everyReport, now: now)
        try a.upsertObservations((0..<20).map { observation($0, at: (40, -100 + Double($0)), time: now - 60, edrPeak: 0.2) })
        #expect(try b.turbulence(everything).count == 20)
        // B revises one and deletes another; A sees both.
        var revised = observation(3, at: (40, -97), time: now - 60, edrPeak: 0.2)
        revised.report.edrPeak = 0.9
        try b.upsertObservations([revised])
        #expect(try b.deleteObservations(ids: [testUUID(4)]) == 1)
        let seenByA = try a.turbulence(everything)
        #expect(seenByA.count == 19)
        #expect(seenByA.first { $0.report.id == testUUID(3) }?.report.edrPeak == 0.9)
        // A writes on top of B's changes without duplicating B's rows.
        try a.upsertObservations([observation(3, at: (40, -97), time: now - 60, edrPeak: 0.5)])
        #expect(try a.observationCount() == 19)
        #expect(try b.turbulence(everything).first { $0.report.id == testUUID(3) }?.report.edrPeak == 0.5)
        // A purge by B is seen by A.
        _ = try b.purgeExpired(now: now + 7 * 3600)
        #expect(try a.turbulence(everything).isEmpty)
    }

    @Test func anotherProcessWritingTheLogIsNoticed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shared.sqlite")
        let store = try EddyStore.open(path: path)
        try store.upsertObservations([observation(1, at: (40, -100), time: now - 60, edrPeak: 0.2)])
        // Another process (here: a plain connection) appends a report and bumps the generation, as EddyStore does.
        do {
            let other = try DatabaseQueue(path: path)
            try other.write { db in
                try db.execute(sql: """
                    INSERT INTO observation (id, h3, layer, enter_time, exit_time, edr_peak, edr_median, reporter_class, reporter_id, source)
                    VALUES (?, ?, 35, ?, ?, 0.3, 0.1, 'large', 'x', 'other');
                    UPDATE store_state SET value = value + 1 WHERE key = 'observation_generation';
                    """, arguments: [testUUID(2).storeBlob, Int64(bitPattern: cell(41, -100)), now - 120, now - 60])
            }
            try other.close()
        }
        let items = try store.turbulence(TurbulenceQuery(area: .everywhere, now: now))
        #expect(Set(items.map(\.report.id)) == [testUUID(1), testUUID(2)])
    }
}
