import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

@Suite struct TileTrackerTests {
    let a = TileID(h3: 0x85_2830_8FFF_FFFF, layer: 35)
    let b = TileID(h3: 0x85_2830_93FF_FFFF, layer: 35)

    /// One report per crossing, with the peak and median of the seconds inside; A → B → A gives three reports.
    @Test func oneReportPerCrossing() {
        var tracker = TileTracker(reporterClass: .medium, minimumValidSeconds: 3, salt: 1)
        var events: [DetectionEvent] = []
        var t = 0.0
        for (tile, edrs) in [(a, [0.1, 0.3, 0.2, 0.15]), (b, [0.05, 0.04, 0.06]), (a, [0.5, 0.6, 0.55])] {
            tracker.update(tile: tile, at: t, into: &events)
            for edr in edrs { t += 1; tracker.addSecond(edr: edr, disturbed: false, at: t); tracker.update(tile: tile, at: t, into: &events) }
        }
        tracker.finish(at: t, into: &events)
        let reports = events.tiles
        #expect(reports.map(\.tile) == [a, b, a])
        #expect(reports.map(\.edrPeak) == [0.3, 0.06, 0.6])
        #expect(reports.map(\.edrMedian) == [0.175, 0.05, 0.55])
        #expect(reports.map(\.enterTime) == [0, 4, 7] && reports.map(\.exitTime) == [4, 7, 10])
        #expect(reports[1].severity(for: .medium) == .none)
        #expect(Set(reports.map(\.id)).count == 3)
    }

    /// Crossings with too few valid seconds, or with device disturbance, are not reported.
    @Test func skipsDisturbedAndEmptyCrossings() {
        var tracker = TileTracker(reporterClass: .small, minimumValidSeconds: 2, salt: 0)
        var events: [DetectionEvent] = []
        tracker.update(tile: a, at: 0, into: &events)
        tracker.addSecond(edr: 0.2, disturbed: false, at: 1)
        tracker.addSecond(edr: nil, disturbed: true, at: 2)
        tracker.addSecond(edr: 0.2, disturbed: false, at: 3)
        tracker.update(tile: b, at: 3, into: &events)
        tracker.addSecond(edr: 0.2, disturbed: false, at: 4)
        tracker.update(tile: a, at: 4, into: &events)
        tracker.addSecond(edr: 0.1, disturbed: false, at: 5)
        tracker.addSecond(edr: nil, disturbed: false, at: 6)
        tracker.addSecond(edr: 0.1, disturbed: false, at: 7)
        tracker.finish(at: 7, into: &events)
        #expect(events.tiles.count == 1)
        #expect(events.tiles.first?.enterTime == 4 && events.tiles.first?.exitTime == 7)
    }

    /// Report ids are deterministic functions of tile, enter time and salt.
    @Test func deterministicIDs() {
        let id1 = DeterministicUUID.make(a.h3, 35, (12.5).bitPattern, 7)
        #expect(id1 == DeterministicUUID.make(a.h3, 35, (12.5).bitPattern, 7))
        #expect(id1 != DeterministicUUID.make(a.h3, 35, (12.5).bitPattern, 8))
        #expect(id1 != DeterministicUUID.make(b.h3, 35, (12.5).bitPattern, 7))
        let text = id1.uuidString
        #expect(Array(text)[14] == "8")   // version 8
        #expect("89AB".contains(Array(text)[19]))  // RFC variant
    }

    /// In a simulated flight with a 0.1° test grid, crossings follow the route and each tile appears once per crossing.
    @Test func simulatedFlightTiles() {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.25, durationSeconds: 600)], courseDegrees: 90, seed: 12)
        var config = DetectionConfiguration(aircraftClass: .medium)
        config.tileIndexer = gridIndexer
        let tiles = detect(scenario, configuration: config).tiles
        #expect(tiles.count >= 12)
        #expect(Set(tiles.map(\.tile)).count == tiles.count)          // straight route: no tile twice
        for (x, y) in zip(tiles, tiles.dropFirst()) { #expect(x.exitTime == y.enterTime) }
        for tile in tiles {
            #expect(tile.tile.layer == 35)
            #expect(tile.edrPeak >= tile.edrMedian && abs(tile.edrMedian / 0.25 - 1) < 0.35)
        }
    }
}

@Suite struct H3TileTests {
    /// The default indexer gives H3 resolution-5 cells: a medium flight at FL350 crosses res-5 cells
    /// (~8.5 km edges) about once a minute, each reported once, layer 35.
    @Test func defaultIndexerIsH3Resolution5() throws {
        let cell = try #require(TileIndexer.h3Resolution5.cell(37.7749, -122.4194))
        #expect(String(cell, radix: 16) == "85283083fffffff")
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0, durationSeconds: 900)], seed: 4)
        let tiles = detect(scenario).tiles
        #expect(tiles.count >= 8 && tiles.count <= 25, "\(tiles.count) tiles")
        for tile in tiles {
            #expect(String(tile.tile.h3, radix: 16).hasPrefix("85") && tile.tile.layer == 35)
            #expect(tile.severity(for: .medium) == .none)
        }
        #expect(Set(tiles.map(\.tile)).count == tiles.count)
    }
}
