import Testing
@testable import EddyCore

@Suite("AlertMonitor")
struct AlertMonitorTests {
    typealias F = AlertFixtures

    private func evaluation(_ candidates: [AlertCandidate], at p: Geodesy.Point = F.origin) throws -> AlertEvaluation {
        try AlertEvaluator.evaluate(query: AlertQuery(), position: F.position(p), candidates: candidates)
    }

    private let a1 = AlertCandidate(report: F.report(bearingDegrees: 0, distanceNM: 80, id: 1), origin: .server)
    private let a2 = AlertCandidate(report: F.report(bearingDegrees: 5, distanceNM: 40, id: 2), origin: .server)

    @Test("A1 A1 A1 → one alert, even while the distance shrinks")
    func repeatsSuppressed() throws {
        var m = AlertMonitor()
        var notifications: [AlertNotification] = []
        for step in 0..<3 {
            let p = Geodesy.destination(from: F.origin, bearingDegrees: 0, distanceNM: Double(step) * 10)
            if let n = m.process(try evaluation([a1], at: p)) { notifications.append(n) }
        }
        #expect(notifications.count == 1)
        guard case .alert(let e, let newOrWorse) = notifications.first else { Issue.record("no alert"); return }
        #expect(e.items.map(\.tile) == [a1.report.tile])
        #expect(newOrWorse == [a1.report.tile])
        #expect(m.isAlerted(a1.report.tile))
    }

    @Test("A1 A2 A1 → three alerts")
    func changesNotify() throws {
        var m = AlertMonitor()
        let seq = [[a1], [a2], [a1]]
        var tilesNotified: [[TileID]] = []
        for c in seq {
            if case .alert(_, let newOrWorse)? = m.process(try evaluation(c)) { tilesNotified.append(newOrWorse) }
        }
        #expect(tilesNotified == [[a1.report.tile], [a2.report.tile], [a1.report.tile]])
        #expect(m.isAlerted(a1.report.tile) && !m.isAlerted(a2.report.tile))
    }

    @Test("A1 ∅ A1 → alert, cleared, alert; ∅ at the start says nothing")
    func cleared() throws {
        var m = AlertMonitor()
        #expect(m.process(try evaluation([])) == nil)
        #expect(m.process(try evaluation([])) == nil)
        let first = m.process(try evaluation([a1]))
        let second = m.process(try evaluation([]))
        let third = m.process(try evaluation([a1]))
        if case .alert? = first {} else { Issue.record("expected alert, got \(String(describing: first))") }
        #expect(second == .cleared)
        if case .alert? = third {} else { Issue.record("expected alert, got \(String(describing: third))") }
        #expect(m.alerted == [a1.report.tile: .moderate])
    }

    @Test("A tile joining, a tile getting worse and a tile leaving each notify; a tile getting milder notifies without newOrWorse")
    func setChanges() throws {
        var m = AlertMonitor()
        _ = m.process(try evaluation([a1]))
        guard case .alert(let e, let added)? = m.process(try evaluation([a1, a2])) else { Issue.record("join"); return }
        #expect(added == [a2.report.tile])
        #expect(e.items.first?.tile == a2.report.tile)  // nearest first
        var worse = a1
        worse.report.edrPeak = 0.5
        guard case .alert(_, let w)? = m.process(try evaluation([worse, a2])) else { Issue.record("worse"); return }
        #expect(w == [a1.report.tile])
        #expect(m.alerted[a1.report.tile] == .severe)
        guard case .alert(_, let milder)? = m.process(try evaluation([a1, a2])) else { Issue.record("milder"); return }
        #expect(milder.isEmpty)
        guard case .alert(_, let left)? = m.process(try evaluation([a2])) else { Issue.record("leave"); return }
        #expect(left.isEmpty)
        #expect(!m.isAlerted(a1.report.tile))
        #expect(m.process(try evaluation([a2])) == nil)
    }

    @Test("reset forgets the alerted tiles, so the same set notifies again")
    func reset() throws {
        var m = AlertMonitor()
        #expect(m.process(try evaluation([a1])) != nil)
        #expect(m.process(try evaluation([a1])) == nil)
        m.reset()
        #expect(!m.isAlerted(a1.report.tile))
        #expect(m.process(try evaluation([a1])) != nil)
    }
}
