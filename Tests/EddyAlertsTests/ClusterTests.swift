import EddyH3
import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

@Suite("TurbulenceClusterer")
struct ClusterTests {
    /// An item `northNM` north of (47, 8) (all on one meridian, so pairwise distances are differences).
    private func item(_ n: Int, northNM: Double, eastNM: Double = 0, severity: Severity = .moderate) -> TurbulenceClusterItem {
        var p = Geodesy.destination(from: (47, 8), bearingDegrees: 0, distanceNM: northNM)
        if eastNM != 0 { p = Geodesy.destination(from: p, bearingDegrees: 90, distanceNM: eastNM) }
        return TurbulenceClusterItem(tile: TileID(h3: UInt64(n), layer: 35), severity: severity,
                                     latitudeDegrees: p.latitude, longitudeDegrees: p.longitude)
    }

    private func memberSets(_ c: TurbulenceClusterer) -> [[UInt64]] { c.clusters.map { $0.items.map(\.tile.h3) } }

    @Test("Nearest-member rule: 29 NM joins, 31 NM starts a new cluster")
    func nearestBoundary() {
        var c = TurbulenceClusterer()
        c.process(items: [item(1, northNM: 0), item(2, northNM: 29)])
        #expect(memberSets(c) == [[1, 2]])
        var d = TurbulenceClusterer()
        d.process(items: [item(1, northNM: 0), item(2, northNM: 31)])
        #expect(memberSets(d) == [[1], [2]])
    }

    @Test("Every-member rule: 59 NM from the farthest member joins, 61 NM does not")
    func everyMemberBoundary() {
        // Chain 0, 29, 58: each within 30 of the previous, all within 60 of each other.
        let chain = [item(1, northNM: 0), item(2, northNM: 29), item(3, northNM: 58)]
        var c = TurbulenceClusterer()
        c.process(items: chain + [item(4, northNM: 59)])
        #expect(memberSets(c) == [[1, 2, 3, 4]])
        var d = TurbulenceClusterer()
        d.process(items: chain + [item(4, northNM: 61)])  // 3 NM from the nearest, but 61 NM from item 1
        #expect(memberSets(d) == [[1, 2, 3], [4]])
        #expect(abs(c.clusters[0].diameterNM - 59) < 1e-6)
    }

    @Test("Result does not depend on input order")
    func deterministic() {
        let items = (1...12).map { item($0, northNM: Double($0 * 7 % 50) * 3, eastNM: Double($0 % 4) * 9) }
        var a = TurbulenceClusterer(), b = TurbulenceClusterer()
        a.process(items: items)
        b.process(items: items.reversed())
        #expect(a.clusters == b.clusters)
        #expect(a.clusters.count > 1)
        // Every cluster satisfies the rule for each member against the others.
        for cluster in a.clusters where cluster.items.count > 1 {
            #expect(cluster.diameterNM <= 60 + 1e-9)
        }
    }

    @Test("Vanished items are dropped, empty clusters removed, ids stay; a new far item gets a new id")
    func dropVanished() {
        var c = TurbulenceClusterer()
        c.process(items: [item(1, northNM: 0), item(2, northNM: 10), item(3, northNM: 200)])
        #expect(c.clusters.map(\.id) == [1, 2])
        c.process(items: [item(2, northNM: 10), item(4, northNM: 400)])
        #expect(c.clusters.map(\.id) == [1, 3])
        #expect(memberSets(c) == [[2], [4]])
    }

    @Test("Severity updates, max severity, centre and nearest worst item")
    func stats() throws {
        var c = TurbulenceClusterer()
        c.process(items: [item(1, northNM: 0, severity: .light), item(2, northNM: 20, severity: .moderate),
                          item(3, northNM: 40, severity: .moderate)])
        let cluster = try #require(c.clusters.first)
        #expect(cluster.maxSeverity == .moderate)
        let centre = try #require(cluster.centre)
        let mid = Geodesy.destination(from: (47, 8), bearingDegrees: 0, distanceNM: 20)
        #expect(Geodesy.distanceNM(from: (centre.latitude, centre.longitude), to: mid) < 0.01)
        #expect(cluster.nearestMaxSeverityItem(fromLatitude: 47, longitude: 8)?.tile.h3 == 2)
        #expect(abs(cluster.distanceNM(fromLatitude: 47, longitude: 8)) < 1e-6)
        c.process(items: [item(1, northNM: 0, severity: .severe), item(2, northNM: 20), item(3, northNM: 40)])
        #expect(c.clusters.first?.maxSeverity == .severe)
        #expect(c.clusters.first?.id == 1)
    }

    @Test("Alerted bookkeeping per tile: alerted once, un-alerted by a new or worse member, cleared by reset")
    func alerted() throws {
        var c = TurbulenceClusterer()
        c.process(items: [item(1, northNM: 0), item(2, northNM: 20)])
        var cluster = try #require(c.clusters.first)
        #expect(!c.isAlerted(cluster: cluster))
        c.alerted(cluster: cluster)
        #expect(c.isAlerted(cluster: cluster))
        // Same items again: still alerted.
        c.process(items: [item(1, northNM: 0), item(2, northNM: 20)])
        #expect(c.isAlerted(cluster: try #require(c.clusters.first)))
        // A new member joins: not alerted until told.
        c.process(items: [item(1, northNM: 0), item(2, northNM: 20), item(3, northNM: 35)])
        cluster = try #require(c.clusters.first)
        #expect(cluster.items.count == 3)
        #expect(!c.isAlerted(cluster: cluster))
        c.alerted(cluster: cluster)
        // A member gets worse: not alerted.
        c.process(items: [item(1, northNM: 0, severity: .severe), item(2, northNM: 20), item(3, northNM: 35)])
        #expect(!c.isAlerted(cluster: try #require(c.clusters.first)))
        // A member gets milder: still alerted (the worse severity was already told).
        c.alerted(cluster: try #require(c.clusters.first))
        c.process(items: [item(1, northNM: 0, severity: .light), item(2, northNM: 20), item(3, northNM: 35)])
        #expect(c.isAlerted(cluster: try #require(c.clusters.first)))
        c.reset()
        #expect(c.clusters.isEmpty)
        c.process(items: [item(1, northNM: 0)])
        #expect(!c.isAlerted(cluster: try #require(c.clusters.first)))
        #expect(c.clusters.first?.id == 1)
    }

    @Test("Items from reports sit at their tile centre; invalid cells are refused")
    func fromReport() throws {
        let r = AlertFixtures.report(bearingDegrees: 0, distanceNM: 10, edr: 0.25)
        let it = try #require(TurbulenceClusterItem(report: r, viewer: .medium))
        let centre = try H3.cellToLatLng(H3Index(rawValue: r.tile.h3))
        #expect(it.latitudeDegrees == centre.latitude && it.longitudeDegrees == centre.longitude)
        #expect(it.severity == .moderate)
        var bad = r
        bad.tile = TileID(h3: 42, layer: 35)
        #expect(TurbulenceClusterItem(report: bad, viewer: .medium) == nil)
    }
}
