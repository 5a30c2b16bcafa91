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
import Synchronization
import Testing

@testable import EddyServerKit

/// The server's domain rules live above the storage (`ServerDomain`; issue 26, deliverable 5): every backend only stores
/// and fetches — a bounding box instead of the polygon, every live flight with its uploader and number — and the rules
/// (exact area, visibility, expiry, newest offset wins, valid times) come out the same on SQLite, PostgreSQL and in
/// memory.
@Suite struct ServerDomainTests {
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue
    static let now = 1_800_000_000.0

    static func row(lat: Double, lng: Double, layer: Int = 35) -> IngestRow {
        IngestRow(report: TileReport(id: UUID(), tile: TileID(h3: cell, layer: layer), enterTime: now - 160, exitTime: now - 100,
                                     edrPeak: 0.3, edrMedian: 0.1, reporterClass: .medium),
                  center: GeoPoint(lat: lat, lng: lng))
    }

    /// A triangle (lat + lng < 10 in the first quadrant) whose bounding box is the square 0…10 × 0…10.
    static let triangle = [GeoPoint(lat: 0, lng: 0), GeoPoint(lat: 0, lng: 10), GeoPoint(lat: 10, lng: 0)]

    @Test(arguments: StorageBackend.allCases)
    func theStorageSelectsByBoundingBoxAndTheDomainTestsThePolygon(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: Self.now)
        let domain = ServerDomain(storage: storage)
        let inside = Self.row(lat: 2, lng: 2), inBoxOnly = Self.row(lat: 9.5, lng: 1.5), far = Self.row(lat: 20, lng: 20)
        _ = try await domain.ingest([inside, inBoxOnly, far], reporterId: "r_1", flightExpiry: 600, tick: 7, now: Self.now)
        let filter = ObservationFilter(polygon: Self.triangle, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)
        #expect(filter.storageQuery.boundingBox == GeoBoundingBox(around: Self.triangle))
        // The storage answers the box, in arrival order, with the centres the domain needs…
        let candidates = try await storage.observations(filter.storageQuery)
        #expect(candidates.map(\.observation.report.id) == [inside.report.id, inBoxOnly.report.id])
        #expect(candidates.map(\.center) == [inside.center, inBoxOnly.center])
        #expect(try await storage.observations(ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)
            .storageQuery).count == 3)
        // …and the domain keeps what is inside the polygon.
        #expect(try await domain.observations(filter).map(\.report.id) == [inside.report.id])
        // A polygon whose box holds a report that the polygon does not: the storage says yes, the domain no.
        let wedge = [GeoPoint(lat: 0, lng: 2), GeoPoint(lat: 0, lng: 10), GeoPoint(lat: 10, lng: 10)]
        let wedgeFilter = ObservationFilter(polygon: wedge, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)
        #expect(try await storage.hasObservations(wedgeFilter.storageQuery))
        #expect(try await !domain.hasObservations(wedgeFilter))
        #expect(try await domain.hasObservations(filter))
        // Layers, exit times and ticks are the storage's to select.
        #expect(try await storage.observations(ObservationQuery(minExitTime: 0, minLayer: 36, maxLayer: 99, minTick: nil, boundingBox: nil)).isEmpty)
        #expect(try await storage.observations(ObservationQuery(minExitTime: Self.now, minLayer: -2, maxLayer: 99, minTick: nil, boundingBox: nil)).isEmpty)
        #expect(try await !storage.hasObservations(ObservationQuery(minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: 8, boundingBox: nil)))
        await storage.shutdown()
    }

    @Test(arguments: StorageBackend.allCases)
    func liveFlightsComeBackWholeAndTheDomainDecidesWhoSeesWhat(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: Self.now)
        let domain = ServerDomain(storage: storage)
        func flight(_ id: String, lat: Double, number: String?) -> LiveFlight {
            LiveFlight(flightID: id, latitude: lat, longitude: -100, altitudeFeet: 35_000, headingDegrees: 90, groundSpeedKnots: 450,
                       aircraftType: "B738", flightNumber: number, time: Self.now)
        }
        try await domain.upsertFlight(flight("dal-jane", lat: 40, number: "DL1"), reporterId: "r_dal", airline: "DAL", now: Self.now,
                                      expiry: 600, altitudeOffset: nil, altitudeOffsetsOlderThan: nil)
        try await domain.upsertFlight(flight("ual-joe", lat: 50, number: "UA2"), reporterId: "r_ual", airline: "UAL", now: Self.now + 1,
                                      expiry: 600, altitudeOffset: nil, altitudeOffsetsOlderThan: nil)
        // The storage gives back every row as stored: uploader, the uploader's id, number, airline.
        let stored = try await storage.liveFlights(updatedSince: Self.now - 600)
        #expect(Set(stored.map(\.reporterId)) == ["r_dal", "r_ual"])
        #expect(Set(stored.map(\.clientFlightId)) == ["dal-jane", "ual-joe"])
        #expect(Set(stored.compactMap(\.flightNumber)) == ["DL1", "UA2"])
        #expect(stored.map(\.publicId) == stored.map(\.publicId).sorted())
        #expect(try await storage.liveFlights(updatedSince: Self.now + 0.5).map(\.reporterId) == ["r_ual"])
        // The domain: not one's own, the number only within the airline, the area exactly.
        let dalViewer = try await domain.flights(polygon: nil, now: Self.now + 1, expiry: 600, excludingReporter: "r_dal", viewerAirline: "DAL")
        #expect(dalViewer.count == 1 && dalViewer[0].latitude == 50 && dalViewer[0].flightNumber == nil)
        let ualColleague = try await domain.flights(polygon: nil, now: Self.now + 1, expiry: 600, excludingReporter: "r_ual_2",
                                                    viewerAirline: "UAL")
        #expect(ualColleague.map(\.flightNumber) == stored.map { $0.airline == "UAL" ? $0.flightNumber : nil })
        let around50 = [GeoPoint(lat: 49, lng: -101), GeoPoint(lat: 49, lng: -99), GeoPoint(lat: 51, lng: -99), GeoPoint(lat: 51, lng: -101)]
        let inArea = try await domain.flights(polygon: around50, now: Self.now + 1, expiry: 600, excludingReporter: "r_x", viewerAirline: "X")
        #expect(inArea.map(\.latitude) == [50])
        #expect(inArea.allSatisfy { $0.flightID.hasPrefix("f") && $0.flightID.count == 17 })
        await storage.shutdown()
    }

    @Test(arguments: StorageBackend.allCases)
    func positionWritesKeepThePublicIdDropExpiredFlightsAndKeepTheNewestOffset(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: Self.now)
        let domain = ServerDomain(storage: storage)
        func position(lat: Double) -> LiveFlight {
            LiveFlight(flightID: "F1", latitude: lat, longitude: -100, altitudeFeet: 35_000, headingDegrees: 90, groundSpeedKnots: 450,
                       aircraftType: "B738", time: Self.now)
        }
        func offset(time: Double, feet: Double) -> (observation: AltitudeOffsetObservation, cell: UInt64, layer: Int) {
            (AltitudeOffsetObservation(time: time, latitudeDegrees: 40, longitudeDegrees: -100, pressureAltitudeFeet: 35_000,
                                       offsetFeet: feet, uncertaintyFeet: 40), 42, 35)
        }
        func offsets() async throws -> [Double] {
            try await storage.altitudeOffsetObservations(cells: nil, minLayer: -2, maxLayer: 99, oldestTime: 0).map(\.offsetFeet)
        }
        try await domain.upsertFlight(position(lat: 40), reporterId: "r_a", airline: "DAL", now: Self.now, expiry: 600,
                                      altitudeOffset: offset(time: Self.now, feet: 100), altitudeOffsetsOlderThan: nil)
        try await domain.upsertFlight(position(lat: 10), reporterId: "r_b", airline: "DAL", now: Self.now, expiry: 600,
                                      altitudeOffset: nil, altitudeOffsetsOlderThan: nil)
        let first = try await storage.liveFlights(updatedSince: 0).first { $0.reporterId == "r_a" }
        // The same uploader × flight again: one row, moved, under the public id drawn the first time; an older offset
        // observation for the same cell × layer does not replace the newer one held.
        try await domain.upsertFlight(position(lat: 41), reporterId: "r_a", airline: "DAL", now: Self.now + 300, expiry: 600,
                                      altitudeOffset: offset(time: Self.now - 60, feet: 900), altitudeOffsetsOlderThan: nil)
        let moved = try await storage.liveFlights(updatedSince: 0).filter { $0.reporterId == "r_a" }
        #expect(moved.count == 1 && moved.first?.latitude == 41 && moved.first?.publicId == first?.publicId)
        #expect(try await offsets() == [100])
        // 700 s after r_b's only position, r_a's upload drops it (expired); a newer offset replaces the older one.
        try await domain.upsertFlight(position(lat: 42), reporterId: "r_a", airline: "DAL", now: Self.now + 700, expiry: 600,
                                      altitudeOffset: offset(time: Self.now + 700, feet: 200), altitudeOffsetsOlderThan: Self.now)
        #expect(try await storage.liveFlights(updatedSince: 0).map(\.reporterId) == ["r_a"])
        #expect(try await offsets() == [200])
        // Offsets measured before the cut-off go with the next upload.
        try await domain.upsertFlight(position(lat: 43), reporterId: "r_a", airline: "DAL", now: Self.now + 800, expiry: 600,
                                      altitudeOffset: nil, altitudeOffsetsOlderThan: Self.now + 701)
        #expect(try await offsets().isEmpty)
        await storage.shutdown()
    }

    @Test(arguments: StorageBackend.allCases)
    func nowcastCellsAreStoredWholeAndTheDomainCutsTheAreaAndDatesThem(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: Self.now)
        let domain = ServerDomain(storage: storage)
        let issue = 1_800_000_000.0
        let cells = [
            StoredNowcastCell(cell: 9, layer: 30, forecastHour: 1, edr: 0.2, center: GeoPoint(lat: 2, lng: 2)),
            StoredNowcastCell(cell: 9, layer: 30, forecastHour: 0, edr: 0.3, center: GeoPoint(lat: 2, lng: 2)),
            StoredNowcastCell(cell: 5, layer: 31, forecastHour: 0, edr: 0.4, center: GeoPoint(lat: 9.5, lng: 1.5)),
            StoredNowcastCell(cell: 7, layer: 50, forecastHour: 0, edr: 0.4, center: GeoPoint(lat: 2, lng: 2)),
        ]
        try await storage.storeNowcast(issueTime: issue, tick: 3, cells: cells)
        // An older issue arriving late changes nothing.
        try await storage.storeNowcast(issueTime: issue - 3600, tick: 2, cells: [cells[0]])
        #expect(try await storage.latestNowcastIssue().map { [$0.issueTime, Double($0.tick)] } == [issue, 3])
        let stored = try await storage.nowcastCells(minLayer: 30, maxLayer: 40)
        #expect(stored == [cells[2], cells[1], cells[0]].map { IssuedNowcastCell(issueTime: issue, cell: $0) })
        let served = try await domain.nowcast(polygon: Self.triangle, minLayer: 30, maxLayer: 40)
        #expect(served == [
            NowcastCell(tile: TileID(h3: 9, layer: 30), validTime: issue, forecastHour: 0, edr: 0.3, issueTime: issue),
            NowcastCell(tile: TileID(h3: 9, layer: 30), validTime: issue + 3600, forecastHour: 1, edr: 0.2, issueTime: issue),
        ])
        #expect(try await domain.nowcast(polygon: nil, minLayer: -2, maxLayer: 99).count == 4)
        await storage.shutdown()
    }

    /// The same requests, in the same order, on a frozen clock: every backend answers alike, once the random public
    /// flight ids (`f` + 16 hex digits, drawn per flight or batch) are set aside. Turbulence answers (the canonical writer,
    /// `FastJSON`) are compared byte for byte; the others are written by `JSONEncoder`, whose key order differs from one
    /// encoding to the next even in one process, so they are compared as JSON values (keys sorted).
    @Test func everyBackendAnswersTheSameRequestsWithTheSameBytes() async throws {
        var answers: [StorageBackend: [String]] = [:]
        // PostgreSQL when a test server is named (the storage suites skip it otherwise; here it would cancel the whole test).
        let postgresURL = ProcessInfo.processInfo.environment["EDDY_TEST_POSTGRES_URL"] ?? ""
        let backends: [StorageBackend] = postgresURL.isEmpty ? [.sqlite, .memory] : StorageBackend.allCases
        for backend in backends {
            answers[backend] = try await Self.scriptedAnswers(backend)
        }
        let reference = try #require(answers[.sqlite])
        #expect(reference.count == 11)
        #expect(reference.allSatisfy { $0.hasPrefix("200 {") }, "\(reference)")
        // What the script is for: reports in and out, the route's polygons, a live flight, a nowcast, fleet offsets.
        for (index, expected) in [(3, "\"altitudeOffsets\""), (5, "\"Feature\""), (6, "\"flightNumber\":\"DL9\""), (8, "\"forecastHour\"")] {
            #expect(reference[index].contains(expected), "answer \(index): \(reference[index])")
        }
        for (backend, got) in answers where backend != .sqlite {
            #expect(got.count == reference.count)
            for (index, (a, b)) in zip(reference, got).enumerated() {
                #expect(a == b, "answer \(index) differs on \(backend)")
            }
        }
    }

    /// Runs the script against a fresh server on `backend` and returns each answer's status and body, random flight ids
    /// replaced.
    static func scriptedAnswers(_ backend: StorageBackend) async throws -> [String] {
        let clock = ManualEpochClock(start: now)
        let storage = try await backend.makeStorage(now: now)
        let key = try await storage.addKey(airline: "DAL", label: "test", now: now).key
        var options = ServerOptions()
        options.settings.thresholds = nil
        options.sessionTTLSeconds = 3 * 3600   // the script advances the clock an hour
        let quiet = Logger(label: "script", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = try SyncService(database: storage, clock: clock, options: options, logger: quiet)
        let app = EddyServerApplication.make(service: service, logger: quiet, checkpointInterval: nil)
        let recorded = AnswerLog()
        try await app.test(.router) { client in
            func token(_ user: String) async throws -> String {
                let body = try JSONEncoder().encode(SessionStartRequest(apiKey: key, airline: "DAL", userId: user, clientVersion: "1.0.0"))
                let response = try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(bytes: body))
                return try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: response.body)).token
            }
            let (pilot, other) = (try await token("u1"), try await token("u2"))
            func post(_ path: String, _ value: some Encodable, as user: String, exactBytes: Bool = false) async throws {
                let response = try await client.execute(uri: path, method: .post, headers: [.authorization: "Bearer \(user)"],
                                                        body: ByteBuffer(bytes: try JSONEncoder().encode(value)))
                try recorded.add(response, exactBytes: exactBytes)
            }
            let cells = [(40.0, -100.0), (40.5, -99.0), (45.0, -90.0)].map { try! H3.latLngToCell(latitude: $0.0, longitude: $0.1, resolution: 5).rawValue }
            let reports = cells.enumerated().map { i, cell in
                TileReport(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(i)")!, tile: TileID(h3: cell, layer: 30 + i),
                           enterTime: now - 900 + Double(i), exitTime: now - 800 + Double(i), edrPeak: 0.2 + 0.1 * Double(i),
                           edrMedian: 0.1, reporterClass: .medium)
            }
            let route = SyncArea(type: .route, polygon: [
                GeoPoint(lat: 39, lng: -101), GeoPoint(lat: 39, lng: -98), GeoPoint(lat: 41, lng: -98), GeoPoint(lat: 41, lng: -101),
            ])
            try await post("/v1/reports", ReportBatch(reports: reports), as: pilot)
            try await post("/v1/reports", ReportBatch(reports: reports), as: pilot)
            let position = LiveFlight(flightID: "DAL9", latitude: 40.2, longitude: -99.5, altitudeFeet: 35_000, headingDegrees: 90,
                                      groundSpeedKnots: 450, aircraftType: "B738", flightNumber: "DL9", time: now)
            try await post("/v1/position", PositionUploadBody(position: position, altitudeOffset: AltitudeOffsetObservation(
                time: now, latitudeDegrees: 40.2, longitudeDegrees: -99.5, pressureAltitudeFeet: 35_000, offsetFeet: 120, uncertaintyFeet: 30)),
                as: other)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .turbulence, area: .global, minLayer: -2, maxLayer: 99), as: pilot,
                           exactBytes: true)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .turbulence, area: route, minLayer: -2, maxLayer: 99), as: pilot,
                           exactBytes: true)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .turbulencePolygons, area: route, minLayer: -2, maxLayer: 99), as: pilot)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .liveFlights, area: route), as: pilot)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .liveFlights, area: route), as: other)
            clock.advance(by: 3600)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .nowcast, area: route, minLayer: -2, maxLayer: 99), as: pilot)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .nowcast, area: .global, minLayer: -2, maxLayer: 99), as: pilot)
            try await post("/v1/fetch", DeltaFetchRequest(dataType: .turbulence, area: .global, sinceTick: 0, minLayer: -2, maxLayer: 99),
                           as: pilot, exactBytes: true)
        }
        await storage.shutdown()
        return recorded.all
    }

    /// The answers of a script, in order.
    final class AnswerLog: Sendable {
        private let answers = Mutex<[String]>([])
        func add(_ response: TestResponse, exactBytes: Bool) throws {
            var body = String(buffer: response.body)
            if !exactBytes {
                let value = try JSONSerialization.jsonObject(with: Data(buffer: response.body))
                body = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
            }
            body = body.replacing(/"f[0-9a-f]{16}"/, with: "\"f…\"")
            answers.withLock { $0.append("\(response.status.code) \(body)") }
        }
        var all: [String] { answers.withLock { $0 } }
    }
}
#endif
