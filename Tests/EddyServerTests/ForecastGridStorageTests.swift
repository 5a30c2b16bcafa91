#if Tools
import EddySupport
import Foundation
import Testing

@testable import EddyServerKit

/// Forecast-grid cells in both database backends (real SQLite, real PostgreSQL): the fixtures ingested twice (the
/// second time changes nothing), a newer issue for the same valid time kept alongside and read first, a range read.
@Suite struct ForecastGridStorageTests {
    static let files = ["wafs-egrr-isobaric.grib2", "gtg-kwbc-altitude.grib2", "bad-messages.grib2"].map(ForecastGridReaderTests.fixture)

    @Test(arguments: StorageBackend.databases)
    func ingestIsIdempotentAndNewerIssuesComeFirst(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage()
        let store = try #require(storage as? any ForecastGridStore)
        let ingester = ForecastGridIngester(storage: store, clock: ManualEpochClock(start: 1_800_000_000))
        let first = await ingester.ingest(paths: Self.files)
        let expected = try Self.files.prefix(2).map { try ForecastGridIngester.read(file: $0, product: nil, minimumEDR: 0).cells }
        let cellCount = expected.map(\.count).reduce(0, +)
        #expect(first.filesRead == 3 && first.messagesRead == 15 && first.fieldsRead == 12 && first.skipped == 1, "\(first.line)")
        #expect(first.errors.count == 2 && first.unreadable.isEmpty && first.cellsStored == cellCount, "\(first.line)")
        #expect(try await store.forecastCellCount() == cellCount)
        let again = await ingester.ingest(paths: Self.files)
        #expect(again.cellsStored == cellCount && again.errors.count == 2)
        #expect(try await store.forecastCellCount() == cellCount, "a message ingested twice is one copy")

        // Everything valid on the day comes back, as read from the files.
        let day = ForecastGridReaderTests.day
        let read = try await store.forecastCells(validFrom: day, to: day + 86_400)
        #expect(read.count == cellCount)
        let byKey = Dictionary(uniqueKeysWithValues: expected.joined().map { (Key($0), $0.edr) })
        #expect(read.allSatisfy { byKey[Key($0)] == $0.edr })
        // The range is on valid time: only the +9 h WAFS fields are valid after 08 UTC.
        let late = try await store.forecastCells(validFrom: day + 8 * 3600, to: day + 86_400)
        #expect(!late.isEmpty && late.allSatisfy { $0.validTime == day + 9 * 3600 && $0.product == "WAFS" })

        // A newer issue (06 UTC) of a cell valid at 09 UTC is a row of its own and comes first; a lower value stored
        // again for a held row keeps the larger one.
        let held = try #require(late.first)
        var newer = held
        newer.issueTime = day + 6 * 3600
        newer.edr = 0.5
        var lower = held
        lower.edr = held.edr / 2
        #expect(try await store.storeForecastCells([newer, lower], source: "test", receivedAt: 1) == 2)
        let both = try await store.forecastCells(validFrom: held.validTime, to: held.validTime).filter { $0.h3 == held.h3 && $0.layer == held.layer }
        #expect(both == [newer, held], "\(both)")
        #expect(try await store.forecastCellCount() == cellCount + 1)
        await storage.shutdown()
    }

    /// A stored cell's identity.
    struct Key: Hashable {
        var product: String, h3: UInt64, layer: Int, issue: Double, valid: Double
        init(_ cell: StoredForecastCell) { (product, h3, layer, issue, valid) = (cell.product, cell.h3, cell.layer, cell.issueTime, cell.validTime) }
    }
}
#endif
