import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

/// Own reports count as felt from the last visit of their tile (docs/alerts.md "Own reports").
@Suite("OwnTileVisits")
struct OwnTileVisitsTests {
    typealias F = AlertFixtures

    /// A severe own report 30 NM ahead, 70 minutes old at the evaluation (t = 10,000 s).
    private let ahead = F.report(at: Geodesy.destination(from: F.origin, bearingDegrees: 0, distanceNM: 30),
                                 layer: 35, edr: 0.5, time: 10_000 - 70 * 60)

    private func alerted(_ candidates: [AlertCandidate]) throws -> [TileID] {
        try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(), candidates: candidates).items.map(\.tile)
    }

    @Test("An own report older than the exclusion alerts; the same report of a tile visited 5 min ago does not")
    func visitExtendsTheExclusion() throws {
        let own = AlertCandidate(report: ahead, origin: .own)
        #expect(try alerted([own]) == [ahead.tile])
        var visits = OwnTileVisits()
        visits.record(ahead.tile, at: 10_000 - 5 * 60)
        #expect(try alerted(visits.felt([own])).isEmpty)
        // 61 minutes after the visit it is old enough again.
        visits = OwnTileVisits()
        visits.record(ahead.tile, at: 10_000 - 61 * 60)
        #expect(try alerted(visits.felt([own])) == [ahead.tile])
    }

    @Test("Server reports, other layers and earlier visits are left as they are")
    func onlyOwnReportsOfTheVisitedTile() throws {
        var visits = OwnTileVisits()
        visits.record(ahead.tile, at: 10_000 - 60)
        let server = AlertCandidate(report: ahead, origin: .server)
        #expect(visits.felt([server]) == [server])
        let otherLayer = TileID(h3: ahead.tile.h3, layer: ahead.tile.layer + 1)
        var elsewhere = OwnTileVisits()
        elsewhere.record(otherLayer, at: 10_000 - 60)
        elsewhere.record(ahead.tile, at: 10_000 - 80 * 60)   // before the report: changes nothing
        let own = AlertCandidate(report: ahead, origin: .own)
        #expect(elsewhere.felt([own]) == [own])
        let visit = elsewhere.lastVisit(of: otherLayer)
        #expect(visit == 9_940, "\(String(describing: visit))")
    }

    @Test("Visits older than six hours are swept; NaN times are ignored")
    func sweep() {
        var visits = OwnTileVisits()
        visits.record(ahead.tile, at: 0)
        visits.record(ahead.tile, at: .nan)
        #expect(visits.lastVisit(of: ahead.tile) == 0)
        let other = TileID(h3: ahead.tile.h3, layer: 1)
        visits.record(other, at: OwnTileVisits.keepSeconds + 1)
        #expect(visits.lastVisit(of: ahead.tile) == nil)
        #expect(visits.lastVisit(of: other) == OwnTileVisits.keepSeconds + 1)
    }
}
