#if Tools
import EddyH3
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import EddyServerKit

/// Fetch answers come in pages of at most `pageSize` items (issue 30, deliverable 3: a global 6-h fetch was one answer of
/// 193 MB), on every backend: the pages add up to the whole answer, each is a key range, and a request that cannot
/// follow pages is refused rather than answered without bound.
@Suite struct PageTests {
    static let now = 1_800_000_000.0
    /// Cells spread over a few degrees around 40 N 100 W.
    static let cells: [(cell: UInt64, lat: Double, lng: Double)] = (0..<6).map { i in
        let (lat, lng) = (38 + Double(i), -102 + Double(i))
        return (try! H3.latLngToCell(latitude: lat, longitude: lng, resolution: 5).rawValue, lat, lng)
    }

    static func json(_ value: some Encodable) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }
    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    /// Reports on `cells` (round robin) with exit times spread over the last hour, several with the same exit time.
    static func reports(_ count: Int, layer: Int = 35) -> [TileReport] {
        (0..<count).map { i in
            let exit = now - 3600 + Double(i / 3) * 60
            return TileReport(id: UUID(), tile: TileID(h3: cells[i % cells.count].cell, layer: layer), enterTime: exit - 60, exitTime: exit,
                              edrPeak: 0.1 + Double(i % 5) * 0.1, edrMedian: 0.05, reporterClass: .medium)
        }
    }

    /// A server on `backend` at the frozen `now`; `body` gets the client, a bearer header of user u1, the clock and the key.
    func withServer(
        _ backend: StorageBackend, _ configure: (inout ServerOptions) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, HTTPFields, ManualEpochClock, String) async throws -> Void
    ) async throws {
        let storage = try await backend.makeStorage(now: Self.now)
        let key = try await storage.addKey(airline: "DAL", label: "test", now: Self.now).key
        var options = ServerOptions()
        configure(&options)
        let clock = ManualEpochClock(start: Self.now)
        let service = try SyncService(database: storage, clock: clock, options: options, logger: StorageBackend.quiet)
        let app = EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil)
        try await app.test(.router) { client in
            try await body(client, try await Self.bearer(client, key: key, user: "u1"), clock, key)
        }
        await storage.shutdown()
    }

    /// A session of `user` with `key`, as an `Authorization` header.
    static func bearer(_ client: any TestClientProtocol, key: String, user: String) async throws -> HTTPFields {
        let started = try await client.execute(uri: "/v1/session", method: .post, body: json(
            SessionStartRequest(apiKey: key, airline: "DAL", userId: user, clientVersion: "1.0.0")))
        return [.authorization: "Bearer \(try decode(SessionStartResponse.self, started).token)"]
    }

    /// Every page of `request`, following `nextCursor`.
    static func pages(_ client: any TestClientProtocol, _ auth: HTTPFields, _ request: DeltaFetchRequest) async throws -> [DeltaFetchResponse] {
        var pages: [DeltaFetchResponse] = []
        var request = request
        while pages.count < 1000 {
            let answer = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: json(request))
            try #require(answer.status == .ok, "\(String(buffer: answer.body))")
            let page = try decode(DeltaFetchResponse.self, answer)
            pages.append(page)
            guard let next = page.nextCursor else { break }
            request.cursor = next
        }
        return pages
    }

    static func upload(_ client: any TestClientProtocol, _ auth: HTTPFields, _ reports: [TileReport]) async throws {
        let answer = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: json(ReportBatch(reports: reports)))
        try #require(answer.status == .ok)
    }

    @Test(arguments: StorageBackend.allCases)
    func turbulencePagesAddUpToTheWholeAnswerAndDeltasPageToo(backend: StorageBackend) async throws {
        try await withServer(backend) { client, auth, clock, _ in
            let first = Self.reports(47)
            try await Self.upload(client, auth, first)
            let request = DeltaFetchRequest(dataType: .turbulence, area: .global, historyHours: 2, pageSize: 10)
            let pages = try await Self.pages(client, auth, request)
            #expect(pages.count == 5)
            #expect(pages.allSatisfy { $0.observations.count <= 10 && $0.full && $0.serverTick == pages[0].serverTick })
            #expect(pages.dropLast().allSatisfy { $0.nextCursor != nil } && pages.last?.nextCursor == nil)
            let ids = pages.flatMap(\.observations).map(\.report.id)
            #expect(ids.count == first.count && Set(ids) == Set(first.map(\.id)), "every report once")
            // The pages run in the fetch order: exit time, then arrival.
            let exits = pages.flatMap(\.observations).map(\.report.exitTime)
            #expect(exits == exits.sorted())
            // The same answer in one piece, for a request that holds it whole.
            var whole = request
            whole.pageSize = 100
            let one = try await Self.pages(client, auth, whole)
            #expect(one.count == 1 && one[0].observations.map(\.report.id) == ids)

            // A delta: only what arrived since, in pages of its own.
            clock.advance(by: 120)
            let second = Self.reports(23)
            try await Self.upload(client, auth, second)
            var delta = request
            delta.sinceTick = pages[0].serverTick + 1
            let deltaPages = try await Self.pages(client, auth, delta)
            #expect(deltaPages.count == 3 && deltaPages.allSatisfy { !$0.full })
            #expect(Set(deltaPages.flatMap(\.observations).map(\.report.id)) == Set(second.map(\.id)))
            #expect(deltaPages.flatMap(\.observations).count == second.count)
        }
    }

    @Test(arguments: StorageBackend.allCases)
    func areaPagesHoldOnlyTheAreaAndSkipWhatIsOutside(backend: StorageBackend) async throws {
        try await withServer(backend) { client, auth, _, _ in
            let all = Self.reports(60)
            try await Self.upload(client, auth, all)
            // A box around the first two cells only (38–39 N, 102–101 W).
            let ring = [GeoPoint(lat: 37.5, lng: -102.5), GeoPoint(lat: 37.5, lng: -100.5), GeoPoint(lat: 39.5, lng: -100.5),
                        GeoPoint(lat: 39.5, lng: -102.5)]
            let inside = Set(all.filter { $0.tile.h3 == Self.cells[0].cell || $0.tile.h3 == Self.cells[1].cell }.map(\.id))
            let pages = try await Self.pages(client, auth, DeltaFetchRequest(
                dataType: .turbulence, area: SyncArea(type: .route, polygon: ring), historyHours: 2, pageSize: 7))
            let ids = pages.flatMap(\.observations).map(\.report.id)
            #expect(ids.count == inside.count && Set(ids) == inside)
            #expect(pages.allSatisfy { $0.observations.count <= 7 })
            #expect(pages.count == (inside.count + 6) / 7, "no empty trailing page")
        }
    }

    @Test(arguments: StorageBackend.allCases)
    func liveFlightAndNowcastPagesAddUp(backend: StorageBackend) async throws {
        try await withServer(backend) { client, auth, _, key in
            // Another user's flights (the asking reporter never sees its own).
            let other = try await Self.bearer(client, key: key, user: "u2")
            for i in 0..<9 {
                let position = LiveFlight(flightID: "F\(i)", latitude: 40 + Double(i) * 0.1, longitude: -100, altitudeFeet: 35_000,
                                          headingDegrees: 90, groundSpeedKnots: 450, aircraftType: "B738", time: Self.now)
                let stored = try await client.execute(uri: "/v1/position", method: .post, headers: other, body: Self.json(position))
                try #require(stored.status == .ok)
            }
            let flights = try await Self.pages(client, auth, DeltaFetchRequest(dataType: .liveFlights, area: .global, pageSize: 4))
            #expect(flights.map(\.liveFlights.count) == [4, 4, 1])
            let ids = flights.flatMap(\.liveFlights).map(\.flightID)
            #expect(ids == ids.sorted() && Set(ids).count == 9)
            // The uploader sees none of its own.
            #expect(try await Self.pages(client, other, DeltaFetchRequest(dataType: .liveFlights, area: .global, pageSize: 4))
                .flatMap(\.liveFlights).isEmpty)

            try await Self.upload(client, auth, Self.reports(30))
            let nowcast = try await Self.pages(client, auth, DeltaFetchRequest(dataType: .nowcast, area: .global, pageSize: 4))
            let cells = nowcast.flatMap(\.nowcast)
            #expect(nowcast.count > 1 && nowcast.allSatisfy { $0.nowcast.count <= 4 && $0.full })
            let keys = cells.map { "\($0.tile.h3)/\($0.tile.layer)/\($0.forecastHour)" }
            #expect(Set(keys).count == keys.count, "every cell once")
            let whole = try await Self.pages(client, auth, DeltaFetchRequest(dataType: .nowcast, area: .global, pageSize: 10_000))
            #expect(whole.count == 1 && whole[0].nowcast == cells)
        }
    }

    @Test(arguments: StorageBackend.allCases)
    func aRequestWithoutPageSizeGetsTheWholeAnswerUpToTheLimitThen400(backend: StorageBackend) async throws {
        try await withServer(backend, { $0.maxItemsPerAnswer = 10 }) { client, auth, _, _ in
            try await Self.upload(client, auth, Self.reports(10))
            let request = DeltaFetchRequest(dataType: .turbulence, area: .global, historyHours: 2)
            let fits = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(request))
            #expect(fits.status == .ok)
            let answer = try Self.decode(DeltaFetchResponse.self, fits)
            #expect(answer.observations.count == 10 && answer.nextCursor == nil)
            try await Self.upload(client, auth, Self.reports(1))
            let over = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(request))
            #expect(over.status == .badRequest)
            let error = try Self.decode(ErrorBody.self, over)
            #expect(error.error == "answerTooLarge" && error.message.contains("more than 10 items") && error.message.contains("pageSize"))
            // A client asking for more than the server's limit gets the limit.
            var paged = request
            paged.pageSize = 1_000
            let pages = try await Self.pages(client, auth, paged)
            #expect(pages.map(\.observations.count) == [10, 1])
        }
    }

    @Test(arguments: StorageBackend.allCases)
    func cursorsThatAreNotTheServersAreRefused(backend: StorageBackend) async throws {
        try await withServer(backend) { client, auth, _, _ in
            try await Self.upload(client, auth, Self.reports(5))
            let first = try await Self.pages(client, auth, DeltaFetchRequest(dataType: .turbulence, area: .global, historyHours: 2, pageSize: 2))
            let cursor = try #require(first.first?.nextCursor)
            func status(_ request: DeltaFetchRequest) async throws -> (Int, String) {
                let answer = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(request))
                return (answer.status.code, (try? Self.decode(ErrorBody.self, answer).message) ?? "")
            }
            let refused = [
                DeltaFetchRequest(dataType: .turbulence, area: .global, pageSize: 2, cursor: "garbage"),
                DeltaFetchRequest(dataType: .nowcast, area: .global, pageSize: 2, cursor: cursor),          // another data type
                DeltaFetchRequest(dataType: .turbulence, area: .global, cursor: cursor),                    // no pageSize
                DeltaFetchRequest(dataType: .turbulence, area: .global, pageSize: 2,
                                  cursor: "o1:999999:-:1799996400.0:1"),                                     // a tick from the future
                DeltaFetchRequest(dataType: .turbulencePolygons, area: .global, pageSize: 2, cursor: cursor),
                DeltaFetchRequest(dataType: .turbulence, area: .global, pageSize: 0),
            ]
            for request in refused {
                let (code, message) = try await status(request)
                #expect(code == 400, "\(request)")
                #expect(message.contains("cursor") || message.contains("pageSize"), "\(message)")
            }
        }
    }

    @Test(arguments: StorageBackend.allCases)
    func aNewNowcastIssueBetweenPagesIs409(backend: StorageBackend) async throws {
        try await withServer(backend, { $0.nowcastIntervalSeconds = 600 }) { client, auth, clock, _ in
            try await Self.upload(client, auth, Self.reports(30))
            let request = DeltaFetchRequest(dataType: .nowcast, area: .global, pageSize: 3)
            let first = try Self.decode(DeltaFetchResponse.self, try await client.execute(
                uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(request)))
            let cursor = try #require(first.nextCursor)
            // The next interval: another fetch makes a new issue.
            clock.advance(by: 600)
            _ = try await Self.pages(client, auth, DeltaFetchRequest(dataType: .nowcast, area: .global, pageSize: 10_000))
            var second = request
            second.cursor = cursor
            let expired = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(second))
            #expect(expired.status.code == 409)
            #expect(try Self.decode(ErrorBody.self, expired).error == "cursorExpired")
        }
    }

    @Test(arguments: StorageBackend.allCases)
    func polygonsReadPageByPageEqualPolygonsReadAtOnce(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: Self.now)
        let domain = ServerDomain(storage: storage)
        let rows = Self.reports(40).map { report in
            IngestRow(report: report, center: Self.cells.first { $0.cell == report.tile.h3 }.map { GeoPoint(lat: $0.lat, lng: $0.lng) }!)
        }
        _ = try await domain.ingest(rows, reporterId: "r_1", flightExpiry: 600, tick: 1, now: Self.now)
        let filter = ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)
        var expected: [TileID: Double] = [:]
        for row in rows { expected[row.report.tile] = max(expected[row.report.tile] ?? 0, row.report.edrPeak) }
        #expect(try await domain.worstEDRByTile(filter, pageSize: 3) == expected)
        #expect(try await domain.worstEDRByTile(filter, pageSize: 10_000) == expected)
        await storage.shutdown()
    }
}
#endif
