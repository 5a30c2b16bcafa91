#if Tools
import EddyH3
import EddySupport
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// Pilot reports stored in both database backends (real SQLite, real PostgreSQL): the fixture files ingested, then
/// ingested again (idempotent: nothing new), read back per cell with their provenance, time and EDR band.
@Suite struct PilotReportStorageTests {
    static let files = ["awc-aircraftreports-2022-09-01.csv", "awc-aircraftreports-2022-04-23.csv", "bad-lines.txt"]
        .map { PilotReportOracleTests.folder.appendingPathComponent($0).path }

    @Test(arguments: StorageBackend.databases)
    func ingestIsIdempotentAndCellsCarryProvenanceAndBand(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage()
        let reports = try #require(storage as? any PilotReportStorage)
        let stations = try PilotReportOracleTests.stations()
        let ingester = PilotReportIngester(storage: reports, stations: stations, referenceTime: AircraftReportCSV.instant("2022-09-01T06:00:00Z"),
                                           clock: ManualEpochClock(start: 1_700_000_000))
        let first = await ingester.ingest(paths: Self.files)
        // 10 + 1 turbulence reports of the CSVs; the one good line of bad-lines.txt is the first CSV row's report (same
        // text, same minute), read from a text file: one report, counted as already held.
        #expect(first.filesRead == 3 && first.stored == 11 && first.duplicates == 1, "\(first.line)")
        #expect(first.skipped == 13 && first.errors.count == 10 && first.unreadable.isEmpty, "\(first.line)")
        #expect(first.errors.allSatisfy { $0.hasPrefix(Self.files[2] + ":") }, "\(first.errors)")
        let again = await ingester.ingest(paths: Self.files)
        #expect(again.stored == 0 && again.duplicates == 12, "\(again.line)")
        #expect(try await reports.pilotReportCount() == 11)

        let cells = try await reports.pilotReportCells(observedFrom: AircraftReportCSV.instant("2022-09-01T00:00:00Z")!,
                                                       to: AircraftReportCSV.instant("2022-09-02T00:00:00Z")!)
        #expect(cells.count == 10 && cells.allSatisfy { $0.provenance == "pilotReport" && $0.kind == .routinePIREP })
        #expect(cells.map(\.observationTime) == cells.map(\.observationTime).sorted())
        // The NEG of a SH36 (not in the table: medium assumed) over Indiana at 7,000 ft.
        let smooth = try #require(cells.first { $0.intensity == .smooth })
        #expect(smooth.layer == 7 && smooth.edrLower == 0 && smooth.edrUpper == 0.10 && smooth.aircraftClassAssumed)
        // A B737 (medium) reporting LGT CHOP; an A321's MOD CAT.
        #expect(cells.contains { $0.intensity == .light && $0.aircraftClass == .medium && !$0.aircraftClassAssumed && $0.edrLower == 0.10 && $0.layer == 34 })
        #expect(cells.contains { $0.intensity == .moderate && $0.layer == 20 && $0.edrLower == 0.20 && $0.edrUpper == 0.30 })
        let urgent = try await reports.pilotReportCells(observedFrom: AircraftReportCSV.instant("2022-04-23T00:00:00Z")!,
                                                        to: AircraftReportCSV.instant("2022-04-24T00:00:00Z")!)
        #expect(urgent.count == 1 && urgent[0].kind == .urgentPIREP && urgent[0].intensity == .moderateSevere && urgent[0].layer == 39)
        let h3 = try #require(try? H3Cell.of(latitude: 38.015, longitude: -104.659))
        #expect(urgent[0].h3 == h3)
        await storage.shutdown()
    }

    /// A band of layers (`/TB … 160-260`) is one report with a cell per layer.
    @Test(arguments: StorageBackend.databases)
    func aBandOfLayersIsOneReportWithACellPerLayer(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage()
        let reports = try #require(storage as? any PilotReportStorage)
        let line = "QX UA /OV 62N040W /TM 0449 /FL360 /TP B38M /TB LGT-MOD CAT 330-370"
        let reading = PilotReportReader.read(line, source: "band.txt", referenceTime: AircraftReportCSV.instant("2022-09-01T06:00:00Z")!, stations: nil)
        let record = try #require(reading.records.first)
        #expect(record.cells.map(\.layer) == Array(33...37))
        #expect(try await reports.storePilotReports([record, record], receivedAt: 1) == Set([record.id]))
        let cells = try await reports.pilotReportCells(observedFrom: 0, to: 2e9)
        #expect(cells.map(\.layer) == Array(33...37) && Set(cells.map(\.reportId)) == Set([record.id]))
        #expect(cells.allSatisfy { $0.edrLower == 0.15 && $0.edrUpper == 0.20 && $0.intensity == .lightModerate })
        await storage.shutdown()
    }
}

/// The resolution-5 cell of a position (tests).
enum H3Cell {
    static func of(latitude: Double, longitude: Double) throws -> UInt64 {
        try H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: TileID.h3Resolution).rawValue
    }
}
#endif
