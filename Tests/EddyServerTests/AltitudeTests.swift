#if Tools
import EddyH3
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import EddyServerKit

/// A report on a real H3 resolution-5 cell with the three altitude fields.
private func h3Report(
    latitude: Double = 40.6, longitude: Double = -73.8, time: Double, source: AltitudeSource? = .gnssFleetOffset,
    u90: Double? = 310.25, uncertain: Bool? = false
) -> TileReport {
    let cell = try! H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: 5).rawValue
    return TileReport(
        id: UUID(), tile: TileID(h3: cell, layer: 35), enterTime: time - 60, exitTime: time, edrPeak: 0.3, edrMedian: 0.1,
        reporterClass: .medium, altitudeSource: source, altitudeU90Feet: u90, layerUncertain: uncertain)
}

private func offset(
    latitude: Double = 40.6, longitude: Double = -73.8, pressureAltitudeFeet: Double = 35_020, offsetFeet: Double,
    uncertaintyFeet: Double = 40, time: Double
) -> AltitudeOffsetObservation {
    AltitudeOffsetObservation(
        time: time, latitudeDegrees: latitude, longitudeDegrees: longitude, pressureAltitudeFeet: pressureAltitudeFeet,
        offsetFeet: offsetFeet, uncertaintyFeet: uncertaintyFeet)
}

@Suite struct AltitudeOffsetAggregationTests {
    func input(_ x: Double, _ sigma: Double, time: Double = 0, cell: UInt64 = 1, layer: Int = 35) -> AltitudeOffsetAggregation.Input {
        .init(cell: cell, layer: layer, offsetFeet: x, uncertaintyFeet: sigma, time: time)
    }

    @Test func oneObservationIsItself() throws {
        // Exactly, whatever the σ (1240 / 35 once came back as 1240.0000000000002 from Σwx / Σw).
        for (x, sigma) in [(1234.0, 25.0), (1240, 35), (-4321.5, 0.3), (1e-3, 7)] {
            let combined = try #require(AltitudeOffsetAggregation.combine([input(x, sigma)]))
            #expect(combined.meanFeet == x)
            #expect(combined.uncertaintyFeet == max(sigma, 1))
        }
    }

    @Test func agreeingObservationsShrinkTheUncertaintyByRootN() throws {
        // Four aircraft at exactly 1,000 ft, σ 40 ft each: the spread is 0, so σ_mean = 40 / √4 = 20 ft.
        let combined = try #require(AltitudeOffsetAggregation.combine((0..<4).map { _ in input(1000, 40) }))
        #expect(combined.meanFeet == 1000)
        #expect(abs(combined.uncertaintyFeet - 20) < 1e-12)
    }

    @Test func disagreementBetweenAircraftDominates() throws {
        // 100 and 200 ft, σ 10 ft each: m = 150, σ²_int = 50, s² = 2/1 · (0.01·2500·2)/0.02 = 5,000, s²/n = 2,500 → 50 ft.
        let combined = try #require(AltitudeOffsetAggregation.combine([input(100, 10), input(200, 10)]))
        #expect(combined.meanFeet == 150)
        #expect(abs(combined.uncertaintyFeet - 50) < 1e-12)
    }

    @Test func inverseVarianceWeighting() throws {
        // 1,000 ft with σ 10 and 1,300 ft with σ 30: w = 0.01 and 1/900.
        // m = (10 + 1300/900) / (0.01 + 1/900) = 1,030 ft; σ²_int = 1/Σw = 90 ft².
        // s² = 2 · (0.01·30² + (1/900)·270²) / Σw = 2 · (9 + 81) · 90 = 16,200; s²/n = 8,100 → σ = 90 ft.
        let combined = try #require(AltitudeOffsetAggregation.combine([input(1000, 10), input(1300, 30)]))
        #expect(abs(combined.meanFeet - 1030) < 1e-9)
        #expect(abs(combined.uncertaintyFeet - 90) < 1e-9)
        // Tiny σ counts as 1 ft: the weights stay finite.
        let tiny = try #require(AltitudeOffsetAggregation.combine([input(10, 1e-200), input(12, 1e-300)]))
        #expect(tiny.meanFeet == 11 && tiny.uncertaintyFeet.isFinite)
    }

    @Test func groupsByCellAndLayerWithCountAndNewestTime() {
        let cells = AltitudeOffsetAggregation.aggregate([
            input(100, 10, time: 5, cell: 2, layer: 35), input(200, 10, time: 9, cell: 2, layer: 35),
            input(-300, 20, time: 7, cell: 2, layer: 12), input(50, 5, time: 1, cell: 1, layer: 40),
        ])
        #expect(cells.map(\.h3) == [1, 2, 2])
        #expect(cells.map(\.layer) == [40, 12, 35])
        #expect(cells.map(\.observationCount) == [1, 1, 2])
        #expect(cells.map(\.newestTime) == [1, 7, 9])
        #expect(cells[2].offsetFeet == 150 && abs(cells[2].uncertaintyFeet - 50) < 1e-12)
        #expect(AltitudeOffsetAggregation.aggregate([]).isEmpty)
    }

    @Test func areaCellsCoverANarrowCorridorAndItsNeighbours() throws {
        // A 20 NM-wide corridor along a 600 km leg: narrower than a resolution-3 cell, so few centres fall inside it.
        let route = [GeoPoint(lat: 40.6, lng: -73.8), GeoPoint(lat: 42.4, lng: -67.5)]
        let corridor = AreaGeometry.corridor(route: route, halfWidthNM: 10)
        let cells = Set(AltitudeOffsetArea.cells(polygon: corridor))
        // Every point along the route is in a served cell, and so are that cell's neighbours.
        for step in 0...100 {
            let f = Double(step) / 100
            let point = try H3.latLngToCell(latitude: 40.6 + 1.8 * f, longitude: -73.8 + 6.3 * f, resolution: 3)
            #expect(cells.contains(point.rawValue))
            for neighbour in try H3.gridDisk(point, k: 1) where neighbour.rawValue != 0 { #expect(cells.contains(neighbour.rawValue)) }
        }
        // And nothing far away (Europe).
        let paris = try H3.latLngToCell(latitude: 48.85, longitude: 2.35, resolution: 3).rawValue
        #expect(!cells.contains(paris))
        #expect(cells.count < 200)
    }
}

@Suite struct AltitudeWireTests {
    @Test func reportFieldsRoundTripCanonicallyAndOldBatchesStayValid() throws {
        let now = 1_800_000_000.0
        let reports = [
            h3Report(time: now), h3Report(time: now, source: .external, u90: 0, uncertain: true),
            h3Report(time: now, source: nil, u90: nil, uncertain: nil), h3Report(time: now, source: .barometer, u90: nil, uncertain: nil),
            h3Report(time: now, source: nil, u90: 1e-05, uncertain: nil),
        ]
        let batch = ReportBatch(reports: reports)
        let canonical = try #require(CanonicalReportBatch.encode(batch))
        let text = String(decoding: canonical, as: UTF8.self)
        #expect(text.contains(#""reporterClass":"medium","altitudeSource":"gnss_fleet","altitudeU90Feet":310.25,"layerUncertain":false}"#))
        #expect(text.contains(#""reporterClass":"medium","altitudeSource":"external","altitudeU90Feet":0,"layerUncertain":true}"#))
        #expect(text.contains(#""reporterClass":"medium"},"#))   // nothing recorded: the keys are left out, never null
        #expect(!text.contains("null"))
        #expect(CanonicalReportBatch.decode(canonical) == batch)
        #expect(try JSONDecoder().decode(ReportBatch.self, from: canonical) == batch)
        // Foundation's encoder writes the same keys (the JSONDecoder fallback and other clients agree).
        #expect(try JSONDecoder().decode(ReportBatch.self, from: JSONEncoder().encode(batch)) == batch)
        // An old client's batch (no fields) and explicit nulls read as not recorded.
        let old = #"{"reports":[{"id":"00000000-0000-4000-8000-000000000001","tile":{"h3":599718737871896575,"layer":3},"enterTime":1,"exitTime":2,"edrPeak":0.5,"edrMedian":0.1,"reporterClass":"small"}]}"#
        let decodedOld = try #require(CanonicalReportBatch.decode(Data(old.utf8)))
        #expect(decodedOld.reports[0].altitudeSource == nil && decodedOld.reports[0].altitudeU90Feet == nil)
        let nulls = old.replacingOccurrences(of: #""reporterClass":"small"}"#, with: #""reporterClass":"small","altitudeSource":null,"altitudeU90Feet":null,"layerUncertain":null}"#)
        #expect(CanonicalReportBatch.decode(Data(nulls.utf8)) == nil)   // not canonical: JSONDecoder's job
        #expect(try JSONDecoder().decode(ReportBatch.self, from: Data(nulls.utf8)) == decodedOld)
        // An unknown source is not canonical, and JSONDecoder refuses it.
        let unknown = text.replacingOccurrences(of: "gnss_fleet", with: "radar")
        #expect(CanonicalReportBatch.decode(Data(unknown.utf8)) == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ReportBatch.self, from: Data(unknown.utf8)) }
        // A non-finite u90 has no canonical form.
        var infinite = reports[0]
        infinite.altitudeU90Feet = .infinity
        #expect(CanonicalReportBatch.encode(ReportBatch(reports: [infinite])) == nil)
    }

    @Test func turbulenceAnswerWithOffsetsRoundTrips() throws {
        let now = 1_800_000_000.0
        let cells = [
            AltitudeOffsetCell(h3: 0x832a10fffffffff, layer: 35, offsetFeet: 1212.5, uncertaintyFeet: 38.25, observationCount: 4, newestTime: now),
            AltitudeOffsetCell(h3: 0x832a11fffffffff, layer: -1, offsetFeet: -80, uncertaintyFeet: 0, observationCount: 1, newestTime: now - 0.5),
        ]
        let response = DeltaFetchResponse(
            dataType: .turbulence, serverTick: 7, full: false,
            observations: [Observation(report: h3Report(time: now), reporterId: "r_1", tick: 7),
                           Observation(report: h3Report(time: now, source: nil, u90: nil, uncertain: nil), reporterId: "r_2", tick: 7)],
            altitudeOffsets: cells)
        let bytes = Data(buffer: FastJSON.turbulenceResponse(response))
        #expect(try JSONDecoder().decode(DeltaFetchResponse.self, from: bytes) == response)
        #expect(CanonicalTurbulenceDecoder.decode(bytes) == response)
        #expect(try JSONDecoder().decode(DeltaFetchResponse.self, from: JSONEncoder().encode(response)) == response)
        // Without offsets the bytes are exactly the old layout (no key), and an empty list round-trips as empty.
        var none = response
        none.altitudeOffsets = nil
        let noneBytes = Data(buffer: FastJSON.turbulenceResponse(none))
        #expect(!String(decoding: noneBytes, as: UTF8.self).contains("altitudeOffsets"))
        #expect(CanonicalTurbulenceDecoder.decode(noneBytes) == none)
        var empty = response
        empty.altitudeOffsets = []
        #expect(CanonicalTurbulenceDecoder.decode(Data(buffer: FastJSON.turbulenceResponse(empty))) == empty)
        // A cell with a non-finite number is left out, never sent as null.
        var bad = response
        bad.altitudeOffsets = cells + [AltitudeOffsetCell(h3: 1, layer: 1, offsetFeet: .nan, uncertaintyFeet: 1, observationCount: 1, newestTime: 1)]
        #expect(CanonicalTurbulenceDecoder.decode(Data(buffer: FastJSON.turbulenceResponse(bad))) == response)
    }

    @Test func positionBodyCarriesAnOptionalOffset() throws {
        let flight = LiveFlight(flightID: "DAL12", latitude: 40.6, longitude: -73.8, altitudeFeet: 35000, headingDegrees: 90,
                                groundSpeedKnots: 450, aircraftType: "B738", time: 1_800_000_000)
        let plain = PositionUploadBody(position: flight)
        let plainJSON = try JSONEncoder().encode(plain)
        #expect(try JSONDecoder().decode(LiveFlight.self, from: plainJSON) == flight)   // an older server reads it
        #expect(!String(decoding: plainJSON, as: UTF8.self).contains("altitudeOffset"))
        #expect(try JSONDecoder().decode(PositionUploadBody.self, from: JSONEncoder().encode(flight)) == plain)   // an older client
        let with = PositionUploadBody(position: flight, altitudeOffset: offset(offsetFeet: 1210, time: 1_800_000_000))
        let withJSON = try JSONEncoder().encode(with)
        #expect(try JSONDecoder().decode(PositionUploadBody.self, from: withJSON) == with)
        #expect(try JSONDecoder().decode(LiveFlight.self, from: withJSON) == flight)
        let object = try #require(try JSONSerialization.jsonObject(with: withJSON) as? [String: Any])
        let nested = try #require(object["altitudeOffset"] as? [String: Any])
        #expect(Set(nested.keys) == ["time", "latitudeDegrees", "longitudeDegrees", "pressureAltitudeFeet", "offsetFeet", "uncertaintyFeet"])
    }
}

@Suite struct AltitudeServiceTests {
    func makeService(_ backend: StorageBackend, clock: ManualEpochClock, options: ServerOptions = ServerOptions()) async throws -> (SyncService, String) {
        let db = try await backend.makeStorage(now: clock.now())
        let key = try await db.addKey(airline: "DAL", label: "test", now: clock.now()).key
        let service = try SyncService(database: db, clock: clock, options: options, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return (service, key)
    }

    func session(_ service: SyncService, key: String, user: String) async throws -> SessionRecord {
        let token = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: user, clientVersion: "1.0.0")).token
        return try await service.authenticate(authorization: "Bearer \(token)")
    }

    func flight(_ id: String, time: Double) -> LiveFlight {
        LiveFlight(flightID: id, latitude: 40.6, longitude: -73.8, altitudeFeet: 35000, headingDegrees: 90, groundSpeedKnots: 450,
                   aircraftType: "B738", time: time)
    }

    func expectBadRequest(_ mention: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected 400 mentioning \(mention)")
        } catch let error as APIError {
            #expect(error.status == .badRequest && error.body.error == "badRequest")
            #expect(error.body.message.contains(mention), "\(error.body.message)")
        } catch {
            Issue.record("expected APIError, got \(error)")
        }
    }

    @Test(arguments: StorageBackend.allCases) func reportFieldsAreStoredAndServedAndBadOnesAre400(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        let (service, key) = try await makeService(backend, clock: clock)
        let session = try await session(service, key: key, user: "u1")
        let reports = [h3Report(time: clock.now() - 10), h3Report(time: clock.now() - 10, source: nil, u90: nil, uncertain: nil),
                       h3Report(time: clock.now() - 10, source: .gnssStandardAtmosphere, u90: 1700, uncertain: true)]
        let ack = try await service.ingest(ReportBatch(reports: reports), session: session)
        #expect(ack.newCount == 3)
        let fetched = try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global), session: session)
        #expect(Set(fetched.observations.map(\.report)) == Set(reports))
        for bad in [-0.5, Double.nan, -Double.infinity] {
            var report = h3Report(time: clock.now() - 10)
            report.altitudeU90Feet = bad
            await expectBadRequest("reports[1].altitudeU90Feet") {
                _ = try await service.ingest(ReportBatch(reports: [h3Report(time: clock.now() - 10), report]), session: session)
            }
        }
        #expect(try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global), session: session).observations.count == 3)
    }

    @Test(arguments: StorageBackend.allCases) func offsetsAreValidatedWith400AndNothingStored(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        let (service, key) = try await makeService(backend, clock: clock)
        let session = try await session(service, key: key, user: "u1")
        let now = clock.now()
        let cases: [(String, AltitudeOffsetObservation)] = [
            ("offsetFeet", offset(offsetFeet: 5000.5, time: now)),
            ("offsetFeet", offset(offsetFeet: .nan, time: now)),
            ("pressureAltitudeFeet", offset(pressureAltitudeFeet: 60_001, offsetFeet: 100, time: now)),
            ("pressureAltitudeFeet", offset(pressureAltitudeFeet: -2001, offsetFeet: 100, time: now)),
            ("latitudeDegrees", offset(latitude: 90.5, offsetFeet: 100, time: now)),
            ("latitudeDegrees", offset(longitude: .infinity, offsetFeet: 100, time: now)),
            ("uncertaintyFeet", offset(offsetFeet: 100, uncertaintyFeet: 0, time: now)),
            ("uncertaintyFeet", offset(offsetFeet: 100, uncertaintyFeet: -3, time: now)),
            ("time", offset(offsetFeet: 100, time: now + 601)),
            ("time", offset(offsetFeet: 100, time: .nan)),
        ]
        for (field, bad) in cases {
            await expectBadRequest("altitudeOffset.\(field)") {
                try await service.uploadPosition(flight("DAL1", time: now), altitudeOffset: bad, session: session)
            }
        }
        // Within the clock skew and at the bounds: accepted.
        try await service.uploadPosition(flight("DAL1", time: now), altitudeOffset: offset(
            pressureAltitudeFeet: 60_000, offsetFeet: -5000, uncertaintyFeet: 0.001, time: now + 600), session: session)
        let served = try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global, minLayer: -2, maxLayer: 99), session: session)
        #expect(served.altitudeOffsets?.count == 1)
        #expect(served.altitudeOffsets?.first?.layer == 60)
    }

    @Test(arguments: StorageBackend.allCases) func aggregationDeduplicatesPerReporterAndExpires(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        let (service, key) = try await makeService(backend, clock: clock)
        let a = try await session(service, key: key, user: "a")
        let b = try await session(service, key: key, user: "b")
        let now = clock.now()
        // Aircraft A reports ten times in the same cell and layer: only its newest counts.
        for i in 0..<10 {
            try await service.uploadPosition(flight("A1", time: now - 100 + Double(i)),
                                             altitudeOffset: offset(offsetFeet: 2000 + Double(i), uncertaintyFeet: 10, time: now - 100 + Double(i)),
                                             session: a)
        }
        // An older observation from A afterwards does not replace its newest.
        try await service.uploadPosition(flight("A1", time: now - 200), altitudeOffset: offset(offsetFeet: 0, uncertaintyFeet: 10, time: now - 200), session: a)
        try await service.uploadPosition(flight("B1", time: now - 50), altitudeOffset: offset(offsetFeet: 2109, uncertaintyFeet: 10, time: now - 50), session: b)
        // Another layer, another cell.
        try await service.uploadPosition(flight("B1", time: now - 40), altitudeOffset: offset(pressureAltitudeFeet: 20_500, offsetFeet: 600, time: now - 40), session: b)
        try await service.uploadPosition(flight("B1", time: now - 30), altitudeOffset: offset(latitude: 51.5, longitude: -0.45, offsetFeet: -300, time: now - 30), session: b)

        let global = try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global), session: a)
        let home = try H3.latLngToCell(latitude: 40.6, longitude: -73.8, resolution: 3).rawValue
        let cells = try #require(global.altitudeOffsets)
        #expect(cells.count == 3)
        let cruise = try #require(cells.first { $0.h3 == home && $0.layer == 35 })
        #expect(cruise.observationCount == 2)
        #expect(cruise.offsetFeet == 2059)        // (2009 + 2109) / 2, equal weights
        #expect(abs(cruise.uncertaintyFeet - 50) < 1e-9)   // spread: s² = 2 · 2500 = 5000, / 2 → 50 ft
        #expect(cruise.newestTime == now - 50)
        #expect(cells.contains { $0.h3 == home && $0.layer == 20 && $0.offsetFeet == 600 && $0.uncertaintyFeet == 40 })

        // A route area over New York gets its cells, not London's; the layer range applies.
        let area = SyncArea(type: .route, polygon: AreaGeometry.corridor(
            route: [GeoPoint(lat: 40.0, lng: -74.5), GeoPoint(lat: 41.5, lng: -72.0)], halfWidthNM: 20))
        let routed = try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: area, minLayer: 30, maxLayer: 40), session: a)
        #expect(routed.altitudeOffsets == [cruise])
        // Nowcast or live-flight answers do not carry offsets.
        #expect(try await service.fetch(DeltaFetchRequest(dataType: .liveFlights, area: area), session: a).altitudeOffsets == nil)

        // After the window (60 min) everything is gone; an observation already older than the window is not stored.
        clock.advance(by: 3600)
        try await service.uploadPosition(flight("B1", time: clock.now()), altitudeOffset: offset(offsetFeet: 1, time: clock.now() - 3601), session: b)
        #expect(try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global), session: a).altitudeOffsets == nil)
        let rows = try await service.database.altitudeOffsetObservations(cells: nil, minLayer: -2, maxLayer: 99, oldestTime: -.infinity)
        #expect(rows.isEmpty)
    }

    @Test func databaseFromBeforeTheMigrationOpensAndKeepsItsObservations() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-server-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        let report = h3Report(time: 1_800_000_000 - 10, source: nil, u90: nil, uncertain: nil)
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteServerStorage.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO observations (id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class,
                        reporter_id, tick, received_at) VALUES (?, ?, 35, 40.6, -73.8, ?, ?, 0.3, 0.1, 'medium', 'r_old', 0, 0)
                    """, arguments: [SQLiteServerStorage.blob(report.id), Int64(bitPattern: report.tile.h3), report.enterTime, report.exitTime])
            }
            try queue.close()
        }
        let database = try SQLiteServerStorage(path: path)
        let observations = try await ServerDomain(storage: database).observations(
            .init(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil))
        #expect(observations.map(\.report) == [report])
        #expect(observations.first?.reporterId == "r_old")
    }
}

/// The HTTP layer in process: what a client's bytes get back.
@Suite struct AltitudeRouterTests {
    func withServer(_ backend: StorageBackend, _ body: @escaping @Sendable (any TestClientProtocol, String) async throws -> Void) async throws {
        let database = try await backend.makeStorage()
        let key = try await database.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        let logger = Logger(label: "router-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = try SyncService(database: database, clock: SystemEpochClock(), options: ServerOptions(), logger: logger)
        let app = EddyServerApplication.make(service: service, logger: logger, checkpointInterval: nil)
        try await app.test(.router) { client in try await body(client, key) }
    }

    static func token(_ client: any TestClientProtocol, key: String) async throws -> String {
        let request = SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")
        let response = try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(bytes: try JSONEncoder().encode(request)))
        return try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: response.body)).token
    }

    @Test(arguments: StorageBackend.allCases) func unknownSourceAndNegativeUncertaintyAre400AndAnOffsetComesBackWithTheFetch(backend: StorageBackend) async throws {
        try await withServer(backend) { client, key in
            let auth: HTTPFields = [.authorization: "Bearer \(try await Self.token(client, key: key))"]
            let now = Date().timeIntervalSince1970
            let good = try #require(CanonicalReportBatch.encode(ReportBatch(reports: [h3Report(time: now - 60)])))
            let text = String(decoding: good, as: UTF8.self)
            let accepted = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: ByteBuffer(string: text))
            #expect(accepted.status == .ok)

            let unknown = try await client.execute(uri: "/v1/reports", method: .post, headers: auth,
                                                   body: ByteBuffer(string: text.replacingOccurrences(of: "gnss_fleet", with: "radar")))
            #expect(unknown.status == .badRequest)
            let unknownBody = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: unknown.body))
            #expect(unknownBody.message.contains("altitudeSource") && unknownBody.message.contains("radar"), "\(unknownBody.message)")
            let negative = try await client.execute(uri: "/v1/reports", method: .post, headers: auth,
                                                    body: ByteBuffer(string: text.replacingOccurrences(of: "310.25", with: "-310.25")))
            #expect(negative.status == .badRequest)
            let negativeBody = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: negative.body))
            #expect(negativeBody.message.contains("reports[0].altitudeU90Feet"), "\(negativeBody.message)")

            // A position with `"altitudeOffset": null` is a plain position; one with an offset feeds the fleet cell.
            let flight = LiveFlight(flightID: "DAL9", latitude: 40.6, longitude: -73.8, altitudeFeet: 35000, headingDegrees: 90,
                                    groundSpeedKnots: 450, aircraftType: "B738", time: now)
            var plain = String(decoding: try JSONEncoder().encode(flight), as: UTF8.self)
            plain.removeLast()
            let nullOffset = try await client.execute(uri: "/v1/position", method: .post, headers: auth,
                                                      body: ByteBuffer(string: plain + ",\"altitudeOffset\":null}"))
            #expect(nullOffset.status == .ok)
            let body = PositionUploadBody(position: flight, altitudeOffset: offset(offsetFeet: 1180, time: now - 1))
            let withOffset = try await client.execute(uri: "/v1/position", method: .post, headers: auth,
                                                      body: ByteBuffer(bytes: try JSONEncoder().encode(body)))
            #expect(withOffset.status == .ok)
            let fetch = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: ByteBuffer(bytes: try JSONEncoder().encode(
                DeltaFetchRequest(dataType: .turbulence, area: .global))))
            let answer = try #require(CanonicalTurbulenceDecoder.decode(Data(buffer: fetch.body)))
            #expect(answer.observations.map(\.report.altitudeSource) == [.gnssFleetOffset])
            #expect(answer.altitudeOffsets?.map(\.offsetFeet) == [1180])
            #expect(answer.altitudeOffsets?.first?.h3 == (try H3.latLngToCell(latitude: 40.6, longitude: -73.8, resolution: 3).rawValue))
        }
    }
}
#endif
