import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

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
            if let n = m.process(try evaluation([a1], at: p), at: Double(step) * 10) { notifications.append(n) }
        }
        #expect(notifications.count == 1)
        guard case .alert(let e, let newOrWorse) = notifications.first else { Issue.record("no alert"); return }
        #expect(e.items.map(\.tile) == [a1.report.tile])
        #expect(newOrWorse == [a1.report.tile])
        #expect(m.isAlerted(a1.report.tile))
    }

    @Test("A1 A2 A1, each a hold apart → three alerts")
    func changesNotify() throws {
        var m = AlertMonitor()
        let seq = [[a1], [a2], [a1]]
        var tilesNotified: [[TileID]] = []
        for (i, c) in seq.enumerated() {
            let t = Double(i) * AlertMonitor.defaultHoldSeconds
            if case .alert(_, let newOrWorse)? = m.process(try evaluation(c), at: t) { tilesNotified.append(newOrWorse) }
        }
        #expect(tilesNotified == [[a1.report.tile], [a2.report.tile], [a1.report.tile]])
        #expect(m.isAlerted(a1.report.tile) && !m.isAlerted(a2.report.tile))
    }

    @Test("A1 ∅ A1, each a hold apart → alert, cleared, alert; ∅ at the start says nothing")
    func cleared() throws {
        var m = AlertMonitor()
        let hold = AlertMonitor.defaultHoldSeconds
        #expect(m.process(try evaluation([]), at: 0) == nil)
        #expect(m.process(try evaluation([]), at: 1) == nil)
        let first = m.process(try evaluation([a1]), at: 2)
        let second = m.process(try evaluation([]), at: 2 + hold)
        let third = m.process(try evaluation([a1]), at: 2 + 2 * hold)
        if case .alert? = first {} else { Issue.record("expected alert, got \(String(describing: first))") }
        #expect(second == .cleared)
        if case .alert? = third {} else { Issue.record("expected alert, got \(String(describing: third))") }
        #expect(m.alerted == [a1.report.tile: .moderate])
    }

    @Test("A tile joining, a tile getting worse and a tile leaving each notify; a tile getting milder notifies without newOrWorse")
    func setChanges() throws {
        var m = AlertMonitor()
        let hold = AlertMonitor.defaultHoldSeconds
        _ = m.process(try evaluation([a1]), at: 0)
        guard case .alert(let e, let added)? = m.process(try evaluation([a1, a2]), at: 1) else { Issue.record("join"); return }
        #expect(added == [a2.report.tile])
        #expect(e.items.first?.tile == a2.report.tile)  // nearest first
        var worse = a1
        worse.report.edrPeak = 0.5
        guard case .alert(_, let w)? = m.process(try evaluation([worse, a2]), at: 2) else { Issue.record("worse"); return }
        #expect(w == [a1.report.tile])
        #expect(m.alerted[a1.report.tile] == .severe)
        guard case .alert(_, let milder)? = m.process(try evaluation([a1, a2]), at: 2 + hold) else { Issue.record("milder"); return }
        #expect(milder.isEmpty)
        guard case .alert(_, let left)? = m.process(try evaluation([a2]), at: 2 + 2 * hold) else { Issue.record("leave"); return }
        #expect(left.isEmpty)
        #expect(!m.isAlerted(a1.report.tile))
        #expect(m.process(try evaluation([a2]), at: 2 + 3 * hold) == nil)
    }

    @Test("reset forgets the alerted tiles, so the same set notifies again")
    func reset() throws {
        var m = AlertMonitor()
        #expect(m.process(try evaluation([a1]), at: 0) != nil)
        #expect(m.process(try evaluation([a1]), at: 1) == nil)
        m.reset()
        #expect(!m.isAlerted(a1.report.tile))
        #expect(m.process(try evaluation([a1]), at: 2) != nil)
    }

    // MARK: - Damping (docs/alerts.md "Damping")

    @Test("A1 ∅ A1 within the hold → one alert; ∅ held for the whole hold → cleared, counted from the last sight")
    func shortGapsAreDamped() throws {
        var m = AlertMonitor()
        let hold = AlertMonitor.defaultHoldSeconds
        var notifications: [(Double, AlertNotification)] = []
        let seen: [(Double, [AlertCandidate])] = [(0, [a1]), (10, []), (20, [a1])]
        for (t, c) in seen { if let n = m.process(try evaluation(c), at: t) { notifications.append((t, n)) } }
        for t in stride(from: 21.0, through: 20 + hold + 5, by: 1) {
            if let n = m.process(try evaluation([]), at: t) { notifications.append((t, n)) }
        }
        #expect(notifications.count == 2)
        if case .alert? = notifications.first?.1 {} else { Issue.record("expected one alert first") }
        #expect(notifications.last?.1 == .cleared)
        #expect(notifications.last?.0 == 20 + hold)
    }

    @Test("Worse notifies at once; milder is held at the alerted severity, then notified without newOrWorse")
    func milderIsHeldWorseIsNot() throws {
        var m = AlertMonitor()
        let hold = AlertMonitor.defaultHoldSeconds
        var severe = a1
        severe.report.edrPeak = 0.5
        _ = m.process(try evaluation([a1]), at: 0)
        guard case .alert(_, let worse)? = m.process(try evaluation([severe]), at: 1) else { Issue.record("worse not at once"); return }
        #expect(worse == [a1.report.tile])
        #expect(m.process(try evaluation([a1]), at: 2) == nil)
        #expect(m.process(try evaluation([a1]), at: 1 + hold - 0.5) == nil)
        #expect(m.alerted[a1.report.tile] == .severe)
        guard case .alert(let e, let milder)? = m.process(try evaluation([a1]), at: 1 + hold) else { Issue.record("milder never notified"); return }
        #expect(milder.isEmpty)
        #expect(e.items.map(\.severity) == [.moderate])
        #expect(m.alerted[a1.report.tile] == .moderate)
    }

    @Test("A held tile stays in the items of an alert for a tile that joins meanwhile")
    func heldTileIsShownWithANewOne() throws {
        var m = AlertMonitor()
        _ = m.process(try evaluation([a1]), at: 0)
        #expect(m.process(try evaluation([]), at: 5) == nil)
        guard case .alert(let e, let added)? = m.process(try evaluation([a2]), at: 10) else { Issue.record("join"); return }
        #expect(added == [a2.report.tile])
        #expect(Set(e.items.map(\.tile)) == [a1.report.tile, a2.report.tile])
        #expect(e.items.map(\.distanceNM) == e.items.map(\.distanceNM).sorted())
    }

    @Test("A tile swept by the beam of a circling aircraft (in view 4 s of every 25 s for 5 min) alerts once")
    func circlingDoesNotFlap() throws {
        var m = AlertMonitor()
        var count = 0
        for second in 0..<300 {
            let inView = second % 25 < 4
            if m.process(try evaluation(inView ? [a1] : []), at: Double(second)) != nil { count += 1 }
        }
        #expect(count == 1)
        #expect(m.isAlerted(a1.report.tile))
    }
}
