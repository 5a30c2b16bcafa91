import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

/// The two-aircraft acceptance geometry at the pure level: aircraft B flies towards a moderate area that A reported.
@Suite("Alert scenario")
struct AlertScenarioTests {
    typealias F = AlertFixtures
    /// B starts 200 NM south of the origin, flies north at 450 kt, layer 35; one fix every 10 s for 40 min.
    private func fixes() -> [LocationSample] {
        let start = Geodesy.destination(from: F.origin, bearingDegrees: 180, distanceNM: 200)
        return (0...240).map { i in
            let t = 20_000 + Double(i) * 10
            let p = Geodesy.destination(from: start, bearingDegrees: 0, distanceNM: 450 * Double(i) * 10 / 3600)
            return LocationSample(t: t, latitudeDegrees: p.latitude, longitudeDegrees: p.longitude,
                                  speedMetersPerSecond: 450 * 1852 / 3600, courseDegrees: 0,
                                  pressureAltitudeFeet: 35_400, source: .adsb)
        }
    }

    private func run(_ candidates: (Double) -> [AlertCandidate]) throws -> [(t: Double, notification: AlertNotification)] {
        var monitor = AlertMonitor()
        var out: [(Double, AlertNotification)] = []
        for fix in fixes() {
            let position = try #require(AlertPosition(fix: fix))
            let evaluation = try AlertEvaluator.evaluate(query: AlertQuery(), position: position, candidates: candidates(fix.t))
            if let n = monitor.process(evaluation, at: fix.t) { out.append((fix.t, n)) }
        }
        return out
    }

    @Test("Exactly one alert when the area comes within 100 NM ahead, cleared once it is behind")
    func oneAlert() throws {
        let area = AlertCandidate(report: F.report(at: F.origin, layer: 36, edr: 0.25, time: 19_000), origin: .server)
        let centre = F.centre(area.report.tile)
        let out = try run { _ in [area] }
        #expect(out.count == 2)
        guard out.count == 2, case .alert(let e, let newOrWorse) = out[0].notification else { return }
        #expect(newOrWorse == [area.report.tile])
        let d = try #require(e.items.first?.distanceNM)
        // The first fix inside 100 NM: the previous fix (1.25 NM earlier along the track) was outside.
        #expect(d <= 100 && d > 100 - 1.25)
        #expect(out[1].notification == .cleared)
        // Cleared once the centre is more than 15° off the nose, i.e. shortly before passing abeam or behind it.
        let fix = try #require(fixes().first { $0.t == out[1].t })
        #expect(Geodesy.distanceNM(from: (fix.latitudeDegrees, fix.longitudeDegrees), to: centre) < 30)
    }

    @Test("No alert when the area is 3 layers away or outside the beam")
    func noAlert() throws {
        let high = AlertCandidate(report: F.report(at: F.origin, layer: 38, time: 19_000), origin: .server)
        #expect(try run { _ in [high] }.isEmpty)
        // 40 NM east of the track: within the beam only beyond 149 NM, so never within the look-ahead.
        let aside = AlertCandidate(report: F.report(from: F.origin, bearingDegrees: 90, distanceNM: 40, layer: 35, time: 19_000),
                                   origin: .server)
        #expect(try run { _ in [aside] }.isEmpty)
    }

    @Test("A new report ahead while alerted gives a second alert")
    func situationChanges() throws {
        let first = AlertCandidate(report: F.report(at: F.origin, layer: 35, time: 19_000, id: 1), origin: .server)
        let second = AlertCandidate(
            report: F.report(bearingDegrees: 0, distanceNM: 60, layer: 34, edr: 0.5, time: 20_600, id: 2), origin: .server)
        // The second report (60 NM beyond the first, severe) reaches B's cache at t = 20,700; it comes within
        // 100 NM ahead after the first one did, and that change alerts again.
        let out = try run { t in t >= 20_700 ? [first, second] : [first] }
        let alerts = out.compactMap { entry -> [TileID]? in
            if case .alert(_, let n) = entry.notification { return n } else { return nil }
        }
        #expect(alerts.count >= 2)
        #expect(alerts.prefix(2) == [[first.report.tile], [second.report.tile]])
    }
}
