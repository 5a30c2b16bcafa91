#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import EddyServerKit

/// A square grid standing in for H3 in unit tests of the merge: cell = x · 1000 + y (x, y in 0..<1000),
/// a unit square with corners at integer degrees, counter-clockwise, four edge neighbours.
struct SquareGrid: CellGeometry {
    static func cell(_ x: Int, _ y: Int) -> UInt64 { UInt64(x * 1000 + y + 1) }
    func xy(_ cell: UInt64) -> (Int, Int) { (Int(cell - 1) / 1000, Int(cell - 1) % 1000) }
    func isValidCell(_ cell: UInt64) -> Bool { cell >= 1 && cell <= 1_000_000 }
    func center(of cell: UInt64) -> GeoPoint { let (x, y) = xy(cell); return GeoPoint(lat: Double(y) + 0.5, lng: Double(x) + 0.5) }
    func boundary(of cell: UInt64) -> [GeoPoint] {
        let (x, y) = xy(cell)
        let (lx, ly) = (Double(x), Double(y))
        return [GeoPoint(lat: ly, lng: lx), GeoPoint(lat: ly, lng: lx + 1), GeoPoint(lat: ly + 1, lng: lx + 1), GeoPoint(lat: ly + 1, lng: lx)]
    }
    func neighbors(of cell: UInt64) -> [UInt64] {
        let (x, y) = xy(cell)
        return [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)].filter { $0.0 >= 0 && $0.1 >= 0 }.map { Self.cell($0.0, $0.1) }
    }
}

@Suite struct PolygonBuilderTests {
    let builder = PolygonBuilder(geometry: SquareGrid(), layersPerBand: 5)

    @Test func adjacentTilesOfOneBandAndSeverityMergeIntoOnePolygon() {
        // A 2 × 2 block at moderate (EDR 0.25) on layers 30 and 32 (same band 30–34).
        let tiles = [(0, 0, 30), (1, 0, 32), (0, 1, 30), (1, 1, 31)].map {
            PolygonBuilder.TileEDR(cell: SquareGrid.cell($0.0, $0.1), layer: $0.2, edrPeak: 0.25)
        }
        let features = builder.build(tiles: tiles, viewer: .medium, historyHours: 2)
        #expect(features.count == 1)
        let feature = features[0]
        #expect(feature.properties.severity == "moderate")
        #expect(feature.properties.layerMin == 30 && feature.properties.layerMax == 34)
        #expect(feature.properties.tileCount == 4)
        let ring = feature.geometry.coordinates[0]
        #expect(ring.count == 9)   // 8 unit edges around a 2 × 2 block, closed
        #expect(ring.first == ring.last)
        let area = PolygonBuilder.signedArea(ring.map { GeoPoint(lat: $0[1], lng: $0[0]) })
        #expect(abs(area - 4) < 1e-9)   // counter-clockwise outer ring of area 4
    }

    @Test func differentSeverityOrBandOrGapGivesSeparatePolygons() {
        let tiles = [
            PolygonBuilder.TileEDR(cell: SquareGrid.cell(0, 0), layer: 30, edrPeak: 0.25),   // moderate
            PolygonBuilder.TileEDR(cell: SquareGrid.cell(1, 0), layer: 30, edrPeak: 0.12),   // light
            PolygonBuilder.TileEDR(cell: SquareGrid.cell(5, 5), layer: 30, edrPeak: 0.25),   // moderate, apart
            PolygonBuilder.TileEDR(cell: SquareGrid.cell(0, 0), layer: 36, edrPeak: 0.25),   // other band
            PolygonBuilder.TileEDR(cell: SquareGrid.cell(9, 9), layer: 30, edrPeak: 0.01),   // smooth: no polygon
        ]
        let features = builder.build(tiles: tiles, viewer: .medium, historyHours: 1)
        #expect(features.count == 4)
        #expect(features.filter { $0.properties.severity == "moderate" }.count == 3)
        #expect(features.allSatisfy { $0.properties.tileCount == 1 && $0.geometry.coordinates[0].count == 5 })
    }

    @Test func ringOfCellsHasAHole() {
        var tiles: [PolygonBuilder.TileEDR] = []
        for x in 0..<3 { for y in 0..<3 where !(x == 1 && y == 1) {
            tiles.append(.init(cell: SquareGrid.cell(x, y), layer: 10, edrPeak: 0.5))
        } }
        let features = builder.build(tiles: tiles, viewer: .medium, historyHours: 2)
        #expect(features.count == 1)
        let rings = features[0].geometry.coordinates
        #expect(rings.count == 2)
        let outer = PolygonBuilder.signedArea(rings[0].map { GeoPoint(lat: $0[1], lng: $0[0]) })
        let hole = PolygonBuilder.signedArea(rings[1].map { GeoPoint(lat: $0[1], lng: $0[0]) })
        #expect(abs(outer - 9) < 1e-9)
        #expect(abs(hole + 1) < 1e-9)   // clockwise hole of area 1
    }

    @Test func viewerClassChangesSeverity() {
        let tiles = [PolygonBuilder.TileEDR(cell: SquareGrid.cell(0, 0), layer: 10, edrPeak: 0.13)]
        #expect(builder.build(tiles: tiles, viewer: .medium, historyHours: 2)[0].properties.severity == "light")
        #expect(builder.build(tiles: tiles, viewer: .small, historyHours: 2)[0].properties.severity == "moderate")
    }
}

@Suite struct NowcastModelTests {
    @Test func persistenceDecaysWithAgeAndForecastHour() {
        let model = NowcastModel()
        let issue = 1_800_000_000.0
        let cells = model.issue(at: issue, observations: [
            .init(cell: 1, layer: 35, exitTime: issue - 1800, edrPeak: 0.4),
            .init(cell: 1, layer: 35, exitTime: issue - 7200, edrPeak: 0.3),   // older and weaker: dominated
            .init(cell: 2, layer: 20, exitTime: issue - 8 * 3600, edrPeak: 0.9),   // too old
        ])
        #expect(cells.allSatisfy { $0.cell == 1 && $0.layer == 35 })
        let h0 = cells.first { $0.forecastHour == 0 }!.edr
        #expect(abs(h0 - 0.4 * exp(-0.5 / 1.5)) < 1e-12)
        let byHour = cells.map(\.edr)
        #expect(zip(byHour, byHour.dropFirst()).allSatisfy { $0 > $1 })   // strictly decaying
        // Cut below 0.05: 0.4·exp(−(0.5+h)/1.5) ≥ 0.05 ⇔ h ≤ 1.5·ln 8 − 0.5 ≈ 2.62 → hours 0, 1, 2.
        #expect(cells.map(\.forecastHour) == [0, 1, 2])
    }
}

@Suite struct RateLimiterTests {
    @Test func burstThenRetryAfterThenRefill() {
        let limiter = RateLimiter(perMinute: 60, burst: 2)
        #expect(limiter.take("s", now: 100) == nil)
        #expect(limiter.take("s", now: 100) == nil)
        let wait = limiter.take("s", now: 100)
        #expect(wait != nil && abs(wait! - 1) < 1e-9)
        #expect(limiter.take("other", now: 100) == nil)   // per session
        #expect(limiter.take("s", now: 101.01) == nil)
    }

    @Test func idleSessionsAreForgottenWithoutLosingTheirLimit() {
        let limiter = RateLimiter(perMinute: 60, burst: 2)
        #expect(limiter.take("busy", now: 0) == nil)
        #expect(limiter.take("busy", now: 0) == nil)
        for i in 0...10_000 { _ = limiter.take("idle-\(i)", now: 0) }
        // Still limited right after the pruning pass (it only drops buckets that have refilled).
        #expect(limiter.take("busy", now: 0.5) != nil)
        #expect(limiter.take("fresh", now: 10) == nil)
    }
}

@Suite struct WireTests {
    @Test func fastTurbulenceJSONDecodesLikeJSONEncoderOutput() throws {
        let reports = [
            TileReport(id: UUID(), tile: TileID(h3: 0x85_2a_10_0b_ff_ff_ff_ff, layer: -1), enterTime: 1_795_311_750.425_29,
                       exitTime: 1_795_311_780, edrPeak: 0.443_332_776_518_195, edrMedian: 1e-05, reporterClass: .medium),
            TileReport(id: UUID(), tile: TileID(h3: 599_718_737_871_896_575, layer: 38), enterTime: 0, exitTime: 0.5,
                       edrPeak: 2, edrMedian: 0, reporterClass: .large),
        ]
        let response = DeltaFetchResponse(dataType: .turbulence, serverTick: 42, full: false, observations: [
            Observation(report: reports[0], reporterId: "r_0123abcd", tick: 40),
            Observation(report: reports[1], reporterId: "odd \"id\"\n\u{1}é", tick: 41),
        ])
        let fast = FastJSON.turbulenceResponse(response)
        let decoded = try JSONDecoder().decode(DeltaFetchResponse.self, from: Data(buffer: fast))
        #expect(decoded == response)
        let reference = try JSONDecoder().decode(DeltaFetchResponse.self, from: JSONEncoder().encode(response))
        #expect(decoded == reference)
        let empty = DeltaFetchResponse(dataType: .turbulence, serverTick: 0, full: true)
        #expect(try JSONDecoder().decode(DeltaFetchResponse.self, from: Data(buffer: FastJSON.turbulenceResponse(empty))) == empty)
        // The client's canonical-layout decoder reads what the writer writes…
        #expect(CanonicalTurbulenceDecoder.decode(Data(buffer: FastJSON.turbulenceResponse(empty))) == empty)
        var plain = response
        plain.observations[1].reporterId = "r_99"
        #expect(CanonicalTurbulenceDecoder.decode(Data(buffer: FastJSON.turbulenceResponse(plain))) == plain)
        // …and declines (so JSONDecoder takes over) escapes, other key orders, and truncated bodies.
        #expect(CanonicalTurbulenceDecoder.decode(Data(buffer: fast)) == nil)
        #expect(CanonicalTurbulenceDecoder.decode(try JSONEncoder().encode(plain)) == nil)
        let bytes = Data(buffer: FastJSON.turbulenceResponse(plain))
        #expect(CanonicalTurbulenceDecoder.decode(bytes.dropLast()) == nil)
        #expect(CanonicalTurbulenceDecoder.decode(bytes + Data(" ".utf8)) == nil)
    }

    @Test func canonicalReportBatchRoundTripsAndDeclinesOtherLayouts() throws {
        let reports = (0..<3).map { i in
            TileReport(id: UUID(), tile: TileID(h3: 0x85_2a_10_0b_ff_ff_ff_ff - UInt64(i), layer: i - 1), enterTime: 1_795_311_750.425_29 + Double(i),
                       exitTime: 1_795_311_780, edrPeak: [0.443_332_776_518_195, 2, 1e-05][i], edrMedian: [1e-05, 0, 0][i],
                       reporterClass: AircraftClass.allCases[i])
        }
        let batch = ReportBatch(reports: reports)
        let canonical = try #require(CanonicalReportBatch.encode(batch))
        #expect(try JSONDecoder().decode(ReportBatch.self, from: canonical) == batch)   // valid JSON for anyone
        #expect(CanonicalReportBatch.decode(canonical) == batch)
        #expect(CanonicalReportBatch.decode(try #require(CanonicalReportBatch.encode(ReportBatch(reports: [])))) == ReportBatch(reports: []))
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys]
        #expect(CanonicalReportBatch.decode(try sorted.encode(batch)) == nil)   // another key order: JSONDecoder's job
        var nan = reports[0]
        nan.edrPeak = .nan
        #expect(CanonicalReportBatch.encode(ReportBatch(reports: [nan])) == nil)
        // Strict JSON numbers: what JSONDecoder would refuse is not accepted here either.
        let text = String(decoding: canonical, as: UTF8.self)
        for bad in [text.replacingOccurrences(of: "\"layer\":1", with: "\"layer\":01"),
                    text.replacingOccurrences(of: "\"exitTime\":1795311780", with: "\"exitTime\":+1795311780"),
                    text.replacingOccurrences(of: "\"edrMedian\":0,", with: "\"edrMedian\":0.,"),
                    text + " "] {
            #expect(bad != text)
            #expect(CanonicalReportBatch.decode(Data(bad.utf8)) == nil)
        }
    }

    @Test func versionsCompareNumerically() {
        #expect(WireVersion("1.10.0")! > WireVersion("1.9.9")!)
        #expect(WireVersion("2")! == WireVersion("2.0.0")!)
        #expect(WireVersion("1.x") == nil)
        #expect(WireVersion("1.2.3.4") == nil)
    }

    @Test func servedOpenAPIMatchesTheCommittedDocument() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let committed = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(committed == OpenAPIDocument.yaml, "regenerate with: eddy-server openapi > docs/openapi.yaml")
    }
}

@Suite struct SyncServiceTests {
    func makeService(_ backend: StorageBackend, clock: ManualEpochClock, options: ServerOptions = ServerOptions()) async throws -> (SyncService, String) {
        let db = try await backend.makeStorage(now: clock.now())
        let key = try await db.addKey(airline: "DAL", label: "test", now: clock.now()).key
        let service = try SyncService(database: db, geometry: SquareGrid(), clock: clock, options: options, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return (service, key)
    }

    func report(_ x: Int, _ y: Int, layer: Int = 35, edr: Double, time: Double) -> TileReport {
        TileReport(id: UUID(), tile: TileID(h3: SquareGrid.cell(x, y), layer: layer), enterTime: time - 60, exitTime: time,
                   edrPeak: edr, edrMedian: edr / 2, reporterClass: .medium)
    }

    @Test(arguments: StorageBackend.allCases) func ingestIsIdempotentAndDeltaFollowsTicks(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        let (service, key) = try await makeService(backend, clock: clock)
        let started = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0"))
        let session = try await service.authenticate(authorization: "Bearer \(started.token)")
        let batch = (0..<10).map { report($0, 0, edr: 0.3, time: clock.now() - 100) }
        let first = try await service.ingest(ReportBatch(reports: batch), session: session)
        #expect(first.newCount == 10 && first.duplicateCount == 0)
        let again = try await service.ingest(ReportBatch(reports: batch), session: session)
        #expect(again.newCount == 0 && again.duplicateCount == 10 && Set(again.acceptedIds) == Set(batch.map(\.id)))

        let full = try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global), session: session)
        #expect(full.full && full.observations.count == 10)
        clock.advance(by: 180)   // three ticks later
        let later = [report(20, 0, edr: 0.5, time: clock.now() - 10)]
        _ = try await service.ingest(ReportBatch(reports: later), session: session)
        let delta = try await service.fetch(
            DeltaFetchRequest(dataType: .turbulence, area: .global, sinceTick: full.serverTick + 1), session: session)
        #expect(!delta.full)
        #expect(delta.observations.map(\.report.id) == later.map(\.id))
        // A tick older than fullRefreshAfterTicks gets everything again.
        clock.advance(by: 61 * 60)
        let stale = try await service.fetch(
            DeltaFetchRequest(dataType: .turbulence, area: .global, sinceTick: full.serverTick, historyHours: 4), session: session)
        #expect(stale.full && stale.observations.count == 11)
    }

    @Test(arguments: StorageBackend.allCases) func invalidReportsAreRejectedOneByOne(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        let (service, key) = try await makeService(backend, clock: clock)
        let token = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")).token
        let session = try await service.authenticate(authorization: "Bearer \(token)")
        var bad = report(1, 1, edr: 0.3, time: clock.now())
        bad.edrMedian = 0.9   // median above peak
        var badCell = report(1, 1, edr: 0.3, time: clock.now())
        badCell.tile.h3 = 0
        let good = report(2, 2, edr: 0.3, time: clock.now())
        let ack = try await service.ingest(ReportBatch(reports: [bad, good, badCell]), session: session)
        #expect(ack.acceptedIds == [good.id])
        #expect(Set(ack.rejected.map(\.id)) == [bad.id, badCell.id])
    }

    @Test(arguments: StorageBackend.allCases) func areaFilterPolygonsNowcastAndFlights(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        var options = ServerOptions()
        options.nowcastIntervalSeconds = 3600
        let (service, key) = try await makeService(backend, clock: clock, options: options)
        let token = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")).token
        let session = try await service.authenticate(authorization: "Bearer \(token)")
        let inside = [report(10, 10, edr: 0.35, time: clock.now() - 600), report(11, 10, edr: 0.35, time: clock.now() - 600)]
        let outside = [report(50, 50, edr: 0.35, time: clock.now() - 600)]
        _ = try await service.ingest(ReportBatch(reports: inside + outside), session: session)
        let area = SyncArea(type: .route, polygon: [
            GeoPoint(lat: 9, lng: 9), GeoPoint(lat: 9, lng: 13), GeoPoint(lat: 12, lng: 13), GeoPoint(lat: 12, lng: 9),
        ])
        let turbulence = try await service.fetch(DeltaFetchRequest(dataType: .turbulence, area: area), session: session)
        #expect(Set(turbulence.observations.map(\.report.id)) == Set(inside.map(\.id)))
        let polygons = try await service.fetch(DeltaFetchRequest(dataType: .turbulencePolygons, area: area), session: session)
        #expect(polygons.polygons?.features.count == 1)
        #expect(polygons.polygons?.features.first?.properties.tileCount == 2)
        // Nowcast is issued at the next hour boundary from what arrived before it.
        clock.advance(by: 3600)
        let nowcast = try await service.fetch(DeltaFetchRequest(dataType: .nowcast, area: area), session: session)
        #expect(!nowcast.nowcast.isEmpty)
        #expect(Set(nowcast.nowcast.map(\.tile.h3)) == Set(inside.map(\.tile.h3)))
        #expect(nowcast.nowcast.allSatisfy { $0.validTime == $0.issueTime + Double($0.forecastHour) * 3600 })

        // Live flights: another user's position is seen, own is not; it expires after 10 minutes.
        let otherToken = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u2", clientVersion: "1.0.0")).token
        let other = try await service.authenticate(authorization: "Bearer \(otherToken)")
        let flight = LiveFlight(flightID: "DAL12", latitude: 10.5, longitude: 10.5, altitudeFeet: 35000,
                                headingDegrees: 90, groundSpeedKnots: 450, aircraftType: "B738", time: clock.now())
        try await service.uploadPosition(flight, session: other)
        // Served under the server's random public id, never the uploader's id (issue 13).
        let served = try await service.fetch(DeltaFetchRequest(dataType: .liveFlights, area: area), session: session).liveFlights
        #expect(served.count == 1)
        #expect(served.first?.flightID != flight.flightID && served.first?.flightID.hasPrefix("f") == true)
        var renamed = flight
        renamed.flightID = served.first?.flightID ?? ""
        #expect(served == [renamed])
        #expect(try await service.fetch(DeltaFetchRequest(dataType: .liveFlights, area: area), session: other).liveFlights.isEmpty)
        clock.advance(by: 601)
        #expect(try await service.fetch(DeltaFetchRequest(dataType: .liveFlights, area: area), session: session).liveFlights.isEmpty)
    }

    @Test(arguments: StorageBackend.allCases) func authenticationErrors(backend: StorageBackend) async throws {
        let clock = ManualEpochClock(start: 1_800_000_000)
        var options = ServerOptions()
        options.sessionTTLSeconds = 60
        options.minimumClientVersion = WireVersion("1.2.0")!
        let (service, key) = try await makeService(backend, clock: clock, options: options)
        await #expect(throws: APIError.self) {
            try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u", clientVersion: "1.1.9"))
        }
        do {
            _ = try await service.startSession(SessionStartRequest(apiKey: "nope", airline: "DAL", userId: "u", clientVersion: "1.2.0"))
            Issue.record("unknown key accepted")
        } catch { #expect(error.status == 401) }
        let token = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u", clientVersion: "1.2.0")).token
        clock.advance(by: 61)
        do {
            _ = try await service.authenticate(authorization: "Bearer \(token)")
            Issue.record("expired session accepted")
        } catch { #expect(error.status == 401 && error.body.error == "sessionExpired") }
        let fresh = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u", clientVersion: "1.2.0")).token
        try await service.database.revokeKey(id: 1)
        do {
            _ = try await service.authenticate(authorization: "Bearer \(fresh)")
            Issue.record("revoked key accepted")
        } catch { #expect(error.status == 403) }
    }
}
#endif
