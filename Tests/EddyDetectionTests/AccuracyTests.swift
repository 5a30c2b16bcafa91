import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

/// End-to-end acceptance on simulated flights: 10 minutes at each EDR, 1.5 mg noise, random mount.
@Suite struct AccuracyTests {
    static let edrs = [0.05, 0.12, 0.25, 0.37, 0.60]

    /// 2 min smooth (calibration), then 11 min per EDR (10 full minutes inside), then 20 min smooth.
    static func scenario(_ aircraftClass: AircraftClass, seed: UInt64) -> FlightScenario {
        FlightScenario(
            aircraftClass: aircraftClass,
            segments: [TurbulenceSegment(edr: 0, durationSeconds: 120)]
                + edrs.map { TurbulenceSegment(edr: $0, durationSeconds: 660) }
                + [TurbulenceSegment(edr: 0, durationSeconds: 1_200)],
            noiseRMSg: 0.0015, seed: seed)
    }

    @Test(arguments: [AircraftClass.medium, .small])
    func acceptance(aircraftClass: AircraftClass) {
        let scenario = Self.scenario(aircraftClass, seed: aircraftClass == .medium ? 101 : 202)
        let events = detect(scenario)
        let truth = FlightSimulator.truth(for: scenario)
        var all: [(truth: Double, minute: MinuteEvent)] = []
        var smooth: [MinuteEvent] = []
        for interval in truth.turbulence {
            let inside = minutes(events.minutes, inside: interval.start, interval.end)
            let edr = interval.edr!
            if edr == 0 { smooth += inside; continue }
            #expect(inside.count >= 9, "EDR \(edr): \(inside.count) minutes")
            var medians = inside.map(\.edrMedian)
            let median = Statistics.median(&medians)
            if edr >= 0.12 { #expect(abs(median / edr - 1) <= 0.10, "EDR \(edr): median of minute medians \(median)") }
            all += inside.map { (edr, $0) }
        }
        // Smooth: `none` in ≥ 99 % of minutes.
        #expect(smooth.count >= 19)
        let none = smooth.filter { $0.severity == .none }.count
        #expect(Double(none) >= 0.99 * Double(smooth.count), "smooth: \(none)/\(smooth.count) none")
        // ≥ 90 % of minutes within ±20 %.
        let within = all.filter { abs($0.minute.edrMedian / $0.truth - 1) <= 0.20 }.count
        #expect(Double(within) >= 0.9 * Double(all.count), "\(within)/\(all.count) within ±20 %")
        // Severity (from the minute median) in the truth's ICAO class in ≥ 90 % of minutes.
        let classMatch = all.filter { ICAOTurbulenceClass(edr: $0.minute.edrMedian) == ICAOTurbulenceClass(edr: $0.truth) }.count
        #expect(Double(classMatch) >= 0.9 * Double(all.count), "\(classMatch)/\(all.count) ICAO class match")
        // The reported severity is the own-class severity of the median.
        for (_, m) in all { #expect(m.severity == SeverityScale.severity(edr: m.edrMedian, viewer: aircraftClass)) }
        if aircraftClass == .medium {
            let severityMatch = all.filter { $0.minute.severity == SeverityScale.severity(edr: $0.truth, viewer: .medium) }.count
            #expect(Double(severityMatch) >= 0.9 * Double(all.count), "\(severityMatch)/\(all.count) six-level severity match")
        }
    }

    /// The same scenario gives identical events run after run.
    @Test func deterministic() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 300)],
                                      handling: [HandlingInterval(start: 120, end: 130)], seed: 77)
        var config = DetectionConfiguration(aircraftClass: .small)
        config.tileIndexer = gridIndexer
        let first = detect(scenario, configuration: config)
        let second = detect(scenario, configuration: config)
        #expect(first == second)
        #expect(!first.minutes.isEmpty && !first.tiles.isEmpty)
    }

    /// Non-uniform input: 100 Hz, 20 Hz and a jittered 50 Hz stream all give the right EDR (±12 %).
    @Test(arguments: [100.0, 20.0, 50.0])
    func inputRates(rate: Double) {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 480)],
                                      accelerometerRateHz: rate, seed: 41)
        var rng = Xoshiro256StarStar(seed: 1)
        let jitter: ((inout [SensorSample]) -> Void)? = rate != 50 ? nil : { samples in
            // ±4 ms timestamp jitter on accelerometer samples (order kept: 20 ms spacing).
            for i in samples.indices { if case .accelerometer(var a) = samples[i] { a.t += 0.004 * (2 * rng.nextUniform() - 1); samples[i] = .accelerometer(a) } }
        }
        var medians = detect(scenario, transform: jitter).minutes.map(\.edrMedian)
        #expect(medians.count >= 6)
        let median = Statistics.median(&medians)
        #expect(abs(median / 0.3 - 1) < 0.12, "rate \(rate): median \(median)")
    }
}

@Suite struct LargeClassTests {
    /// The large class (777-like at FL370) is estimated with its own response model.
    @Test func largeClassEstimate() {
        let scenario = FlightScenario(aircraftClass: .large, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 540)], seed: 64)
        #expect(scenario.altitudeFeet == 37_000 && scenario.groundSpeedMetersPerSecond == 250)
        var medians = detect(scenario).minutes.map(\.edrMedian)
        #expect(medians.count >= 7)
        let median = Statistics.median(&medians)
        #expect(abs(median / 0.3 - 1) < 0.1, "median \(median)")
    }
}
