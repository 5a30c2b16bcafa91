import Foundation
import Testing
@testable import EddyCore

@Suite struct ProbeTests {
    @Test func probe() {
        for cls in [AircraftClass.medium, .small] {
            let edrs = [0.05, 0.12, 0.25, 0.37, 0.60]
            let scenario = FlightScenario(aircraftClass: cls, segments: [TurbulenceSegment(edr: 0, durationSeconds: 120)] + edrs.map { TurbulenceSegment(edr: $0, durationSeconds: 660) }, seed: UInt64(ProcessInfo.processInfo.environment["SEED"] ?? "11")!)
            let flight = FlightSimulator.simulate(scenario)
            var p = DetectionPipeline(configuration: DetectionConfiguration(aircraftClass: cls))
            var events: [DetectionEvent] = []
            for s in flight.samples.mergedSamples() { p.process(s, into: &events) }
            p.finish(into: &events)
            for interval in flight.truth.turbulence {
                var meds: [Double] = []
                for e in events { if case .minute(let m) = e, m.t - 60 >= interval.start + 60, m.t <= interval.end { meds.append(m.edrMedian) } }
                guard let truth = interval.edr, truth > 0 else { continue }
                var sorted = meds
                let mm = Statistics.median(&sorted)
                let within = meds.filter { abs($0 / truth - 1) <= 0.2 }.count
                print(cls, truth, "nu", String(format: "%.1f", p.degreesOfFreedom), "n", meds.count, "medmed/truth", String(format: "%.3f", mm / truth), "within20", within, meds.map { String(format: "%.2f", $0 / truth) }.joined(separator: " "))
            }
        }
    }
}
