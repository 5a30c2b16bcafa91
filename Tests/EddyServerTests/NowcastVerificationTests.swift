#if Tools
import EddyH3
import EddyProtocol
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// The verification scores and the hindcast over stored reports (docs/nowcast.md "Verification").
@Suite struct NowcastVerificationTests {
    @Test func scoresFollowTheirDefinitions() {
        var counts = VerificationCounts()
        for (forecast, observed) in [(true, true), (true, true), (true, false), (false, true), (false, false), (false, false)] {
            counts.add(forecast: forecast, observed: observed)
        }
        #expect(counts.hits == 2 && counts.falseAlarms == 1 && counts.misses == 1 && counts.correctNegatives == 2)
        #expect(counts.csi == 0.5 && counts.pod == 2.0 / 3 && counts.far == 1.0 / 3 && counts.bias == 1.0)
        #expect(VerificationCounts().csi == nil && VerificationCounts().bias == nil)
    }

    @Test func anIssueIsScoredAgainstTheReportsOfEachLaterHourPerLayerBand() {
        let issue = 1_800_000_000.0
        let verification = NowcastVerification()
        let hit = NowcastVerification.Cell(cell: 1, layer: 35, forecastHour: 0)
        let falseAlarm = NowcastVerification.Cell(cell: 2, layer: 35, forecastHour: 1)
        let predictions: [NowcastVerification.System: [NowcastVerification.Cell: Double]] = [
            .nowcast: [hit: 0.3, falseAlarm: 0.2], .forecast: [hit: 0.05], .persistence: [:],
        ]
        let observations = [
            NowcastVerification.Observation(cell: 1, layer: 35, time: issue + 600, edrPeak: 0.25),   // hour 0, turbulent
            NowcastVerification.Observation(cell: 1, layer: 35, time: issue + 900, edrPeak: 0.02),   // same cell and hour: once
            NowcastVerification.Observation(cell: 2, layer: 35, time: issue + 4000, edrPeak: 0.03),  // hour 1, smooth
            NowcastVerification.Observation(cell: 3, layer: 41, time: issue + 7300, edrPeak: 0.4),   // hour 2, FL400 band
            NowcastVerification.Observation(cell: 4, layer: 35, time: issue - 60, edrPeak: 0.4),     // before the issue
        ]
        let counts = verification.score(issueTime: issue, predictions: predictions, observations: observations)
        #expect(counts[.init(system: .nowcast, layerBand: 35, forecastHour: 0)]?.hits == 1)
        #expect(counts[.init(system: .nowcast, layerBand: 35, forecastHour: 1)]?.falseAlarms == 1)
        #expect(counts[.init(system: .nowcast, layerBand: 40, forecastHour: 2)]?.misses == 1)
        #expect(counts[.init(system: .forecast, layerBand: 35, forecastHour: 0)]?.misses == 1, "0.05 is below the event")
        #expect(counts[.init(system: .persistence, layerBand: 35, forecastHour: 1)]?.correctNegatives == 1)
        let total = counts.values.reduce(0) { $0 + $1.hits + $1.misses + $1.falseAlarms + $1.correctNegatives }
        #expect(total == 9, "three scored cells × three systems")
        let table = verification.table(counts)
        #expect(table.contains("nowcast      FL350-399  +0") && table.contains("1.000"), "\(table)")
    }

    @Test func theHindcastScoresStoredReportsAgainstLaterOnes() async throws {
        let storage = InMemoryServerStorage()
        let issue = 1_800_000_000.0 - 1_800_000_000.0.truncatingRemainder(dividingBy: 3600)
        let cell = try H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue
        func report(_ time: Double, _ edr: Double) -> TileReport {
            TileReport(id: UUID(), tile: TileID(h3: cell, layer: 35), enterTime: time - 60, exitTime: time, edrPeak: edr, edrMedian: edr / 2,
                       reporterClass: .medium)
        }
        // Moderate measured 20 min before the issue, moderate again 30 min after it: a hit for nowcast and persistence.
        let rows = [report(issue - 1200, 0.3), report(issue + 1800, 0.3)].map { IngestRow(report: $0, center: GeoPoint(lat: 40, lng: -100)) }
        let database: any ServerStorage = storage
        _ = try await database.insertReports(ReportUpload(rows: rows, reporterId: "r", liveFlightUpdatedSince: issue, fallbackPublicId: "p",
                                                         tick: 1, receivedAt: issue + 1900))
        let counts = try await NowcastHindcast().run(storage: storage, from: issue, to: issue)
        #expect(counts[.init(system: .nowcast, layerBand: 35, forecastHour: 0)]?.hits == 1, "\(counts)")
        #expect(counts[.init(system: .persistence, layerBand: 35, forecastHour: 0)]?.hits == 1)
        #expect(counts[.init(system: .forecast, layerBand: 35, forecastHour: 0)]?.misses == 1, "no forecast grids held")
    }
}
#endif
