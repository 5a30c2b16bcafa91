#if Tools
import EddyH3
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import Logging
import Testing

@testable import EddyServerKit

/// Provenance through the server: the issued nowcast's cells say which source dominates them, on the wire and in both
/// SQL backends; an older server's cell (no `provenance`) decodes as fleet measured.
@Suite struct NowcastProvenanceServerTests {
    static let start = 1_800_000_000.0 - 1_800_000_000.0.truncatingRemainder(dividingBy: 3600) + 600

    static func cell(_ latitude: Double, _ longitude: Double) throws -> UInt64 {
        try H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: 5).rawValue
    }

    @Test func forecastAndFleetCellsCarryTheirProvenanceOnTheWire() async throws {
        let clock = ManualEpochClock(start: Self.start)
        let storage = InMemoryServerStorage()
        let key = try await storage.addKey(airline: "DAL", label: "test", now: clock.now()).key
        let service = try SyncService(database: storage, clock: clock, options: ServerOptions(),
                                      logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let token = try await service.startSession(SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")).token
        let session = try await service.authenticate(authorization: "Bearer \(token)")
        // A moderate forecast patch at 40 N 100 W valid for the next issue's hours; a measured severe report elsewhere.
        let issue = Self.start - 600 + 3600
        let forecastCell = try Self.cell(40, -100), fleetCell = try Self.cell(42, -95)
        storage.holdForecastCells((0...6).map {
            StoredForecastCell(product: "GTG", h3: forecastCell, layer: 35, issueTime: issue - 3 * 3600, validTime: issue + Double($0) * 3600, edr: 0.3)
        })
        let report = TileReport(id: UUID(), tile: TileID(h3: fleetCell, layer: 35), enterTime: clock.now() - 120, exitTime: clock.now() - 60,
                                edrPeak: 0.45, edrMedian: 0.2, reporterClass: .medium)
        _ = try await service.ingest(ReportBatch(reports: [report]), session: session)
        clock.advance(by: 3600)
        let answer = try await service.fetch(DeltaFetchRequest(dataType: .nowcast, area: .global), session: session)
        let hourZero = Dictionary(answer.nowcast.filter { $0.forecastHour == 0 }.map { ($0.tile.h3, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(hourZero[forecastCell]?.provenance == .forecast, "\(answer.nowcast)")
        #expect(hourZero[fleetCell]?.provenance == .fleetMeasured, "\(answer.nowcast)")
        #expect((hourZero[forecastCell]?.edr ?? 0) >= 0.1, "a moderate forecast alone is issued as turbulence")
        // The JSON carries the field, and a cell without it (an older server) decodes as fleet measured.
        let json = String(decoding: try JSONEncoder().encode(try #require(hourZero[forecastCell])), as: UTF8.self)
        #expect(json.contains("\"provenance\":\"forecast\""), "\(json)")
        let old = #"{"tile":{"h3":7,"layer":30},"forecastHour":1,"validTime":7200,"issueTime":3600,"edr":0.2}"#
        #expect(try JSONDecoder().decode(NowcastCell.self, from: Data(old.utf8)).provenance == .fleetMeasured)
    }

    @Test(arguments: StorageBackend.databases)
    func bothSQLBackendsStoreTheProvenance(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: Self.start)
        let cells = TurbulenceProvenance.allCases.enumerated().map { index, provenance in
            StoredNowcastCell(cell: UInt64(0x85283473fffffff) + UInt64(index) << 12, layer: 30, forecastHour: 0, edr: 0.2,
                              center: GeoPoint(lat: 40, lng: -100), provenance: provenance)
        }
        try await storage.storeNowcast(issueTime: Self.start, tick: 1, cells: cells)
        let read = try await storage.nowcastCells(minLayer: 0, maxLayer: 60, boundingBox: nil, after: nil, limit: nil)
        #expect(Set(read.map(\.cell.provenance)) == Set(TurbulenceProvenance.allCases))
        #expect(read.map(\.cell).sorted { $0.cell < $1.cell } == cells.sorted { $0.cell < $1.cell })
        await storage.shutdown()
    }
}
#endif
