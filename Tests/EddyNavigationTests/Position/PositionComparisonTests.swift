import Foundation
import Testing
@testable import EddyNavigation

/// The comparison table of docs/position.md §7: raw fixes, Kalman, running average and least squares on straight,
/// turning and accelerating flight (20 seeds each, phone error model, 1 Hz). With `EDDY_POSITION_TABLE=1` in the
/// environment the table is printed as Markdown: `EDDY_POSITION_TABLE=1 swift test --skip-build --filter PositionComparison`.
@Suite struct PositionComparisonTests {
    struct Row {
        var scenario: String
        var method: String
        var metrics: PositionMetrics
    }

    static func table() -> [Row] {
        let scenarios: [(String, TruthTrajectory, ClosedRange<Double>?)] = [
            ("straight, 120 kt", .straight, nil),
            ("standard-rate turn, 120 kt", .standardRateTurn, 70...300),
            ("take-off roll and climb acceleration", .accelerating, 20...160),
        ]
        var rows: [Row] = []
        for (name, trajectory, window) in scenarios {
            rows.append(Row(scenario: name, method: "raw fixes",
                            metrics: PositionEvaluation.raw(trajectory: trajectory, seeds: 1...20, lagWindow: window)))
            for method in PositionFilterMethod.allCases {
                rows.append(Row(scenario: name, method: method.rawValue,
                                metrics: PositionEvaluation.run(method, trajectory: trajectory, seeds: 1...20,
                                                                lagWindow: window)))
            }
            rows.append(Row(scenario: name, method: "kalman, no speed/course",
                            metrics: PositionEvaluation.run(.kalman, trajectory: trajectory, seeds: 1...20,
                                                            lagWindow: window, withoutVelocity: true)))
            rows.append(Row(scenario: name, method: "kalman, 10 Hz fixes",
                            metrics: PositionEvaluation.run(.kalman, trajectory: trajectory, seeds: 1...20,
                                                            interval: 0.1, lagWindow: window)))
        }
        return rows
    }

    /// Kalman RMS error (m) and lag (s) against the process noise q, with and without speed/course in the fixes.
    @Test func processNoise() {
        let print = ProcessInfo.processInfo.environment["EDDY_POSITION_TABLE"] != nil
        if print {
            Swift.print("| flight | speed/course | q = 0.3 | q = 1 (default) | q = 3 | q = 10 |")
            Swift.print("|---|---|---:|---:|---:|---:|")
        }
        let scenarios: [(String, TruthTrajectory, ClosedRange<Double>?)] = [
            ("straight", .straight, nil), ("turn", .standardRateTurn, 70...300), ("accelerating", .accelerating, 20...160),
        ]
        for (name, trajectory, window) in scenarios {
            for withoutVelocity in [false, true] {
                var cells: [String] = []
                var rms: [Double] = []
                for q in [0.3, 1, 3, 10] {
                    var configuration = PositionFilterConfiguration.matchingPhoneModel
                    configuration.accelerationNoiseDensity = q
                    let m = PositionEvaluation.run(.kalman, configuration: configuration, trajectory: trajectory,
                                                   seeds: 1...20, lagWindow: window, withoutVelocity: withoutVelocity)
                    rms.append(m.rmsMeters)
                    cells.append(String(format: "%.1f m, %.2f s", m.rmsMeters, m.lagSeconds))
                }
                if print {
                    Swift.print("| \(name) | \(withoutVelocity ? "no" : "yes") | " + cells.joined(separator: " | ") + " |")
                }
                // With speed/course the choice of q hardly matters: within 10 % for q = 0.3…3.
                if !withoutVelocity, let low = rms.prefix(3).min(), let high = rms.prefix(3).max() {
                    #expect(high / low < 1.1, "\(name): \(rms)")
                }
            }
        }
    }

    /// How far the filtered track follows a 5 s excursion of 20–80 m (20 seeds × straight and turn), at 1 and 10 Hz.
    @Test func excursions() {
        let print = ProcessInfo.processInfo.environment["EDDY_POSITION_TABLE"] != nil
        if print {
            Swift.print("| excursion | fixes | largest track difference m | excursion fixes used |")
            Swift.print("|---:|---|---:|---:|")
        }
        for amplitude in [20.0, 30, 50, 80] {
            for interval in [1.0, 0.1] {
                var worst = 0.0, used = 0
                for trajectory in [TruthTrajectory.straight, .standardRateTurn] {
                    let r = PositionEvaluation.excursion(amplitudeMeters: amplitude, trajectory: trajectory,
                                                         interval: interval, seeds: 1...20)
                    worst = max(worst, r.worstMeters)
                    used += r.usedFixes
                }
                if print {
                    let rate = interval == 1 ? "1 Hz" : "10 Hz", total = interval == 1 ? 200 : 2000
                    Swift.print(String(format: "| %.0f m | ", amplitude) + rate
                                + String(format: " | %.1f | %d of %d |", worst, used, total))
                }
                if amplitude >= 50 { #expect(used == 0 && worst <= 5, "\(amplitude) m at \(1 / interval) Hz") }
            }
        }
    }

    /// The claims docs/position.md makes from the table hold, and the table is printed on request.
    @Test func comparison() {
        let rows = Self.table()
        if ProcessInfo.processInfo.environment["EDDY_POSITION_TABLE"] != nil {
            print("| flight | method | RMS error m | vs raw | max error m | lag s | within u68 | within u90 |")
            print("|---|---|---:|---:|---:|---:|---:|---:|")
            for r in rows {
                let m = r.metrics
                print("| \(r.scenario) | \(r.method) | " + String(
                    format: "%.2f | %+.0f %% | %.1f | %.2f | %.0f %% | %.0f %% |", m.rmsMeters, -100 * m.reduction,
                    m.maxErrorMeters, m.lagSeconds, 100 * m.coverage68, 100 * m.coverage90))
            }
        }
        for scenario in Set(rows.map(\.scenario)) {
            let here = rows.filter { $0.scenario == scenario }
            func metrics(_ method: String) -> PositionMetrics? { here.first { $0.method == method }?.metrics }
            guard let raw = metrics("raw fixes"), let kalman = metrics("kalman"),
                  let average = metrics("runningAverage"), let fit = metrics("leastSquares") else {
                Issue.record("missing rows for \(scenario)")
                continue
            }
            // Kalman has the lowest RMS error of the four; the running average lags by seconds.
            #expect(kalman.rmsMeters < min(raw.rmsMeters, average.rmsMeters, fit.rmsMeters), "\(scenario)")
            #expect(average.lagSeconds > 3, "\(scenario)")
            #expect(abs(kalman.lagSeconds) < 0.5, "\(scenario)")
            #expect(!kalman.sawNonFinite && !average.sawNonFinite && !fit.sawNonFinite)
        }
    }
}
