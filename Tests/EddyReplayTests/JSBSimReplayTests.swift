import EddyCore
import Foundation
import Testing
@testable import EddyReplay

/// Flights flown by JSBSim's 6-DOF 737 and C172 through MIL-F-8785C (Dryden) turbulence
/// (scripts/jsbsim_flight.py): an aircraft response that is not Eddy's own plunge model.
/// Truth = band-equivalent EDR per segment (docs/replay.md §Truth).
@Suite("Replay of JSBSim flights")
struct JSBSimReplayTests {
    /// Turbulent truth segments of a replay, in truth order.
    private func turbulentSegments(_ name: String) throws -> [SegmentComparison] {
        let summary = try FlightReplay.run(directory: Fixture.flight(name))
        return summary.segments.filter { $0.truthEDR > 0 }.sorted { $0.truthEDR < $1.truthEDR }
    }

    /// Segments are measured, their medians keep the truth's order, and each is within ±30 % of truth.
    private func check(_ segments: [SegmentComparison], tolerance: Double = 0.30) {
        let measured = segments.filter { $0.medianEDR != nil }
        let medians = measured.compactMap(\.medianEDR)
        #expect(medians == medians.sorted(), "severity order not preserved: \(medians)")
        for segment in measured {
            let error = segment.relativeError!
            #expect(abs(error) <= tolerance, "truth \(segment.truthEDR): measured \(segment.medianEDR!) (\(Int((error * 100).rounded())) %)")
        }
    }

    @Test("737 (medium class): all three segments within ±30 %, in truth order")
    func boeing737() throws {
        let segments = try turbulentSegments("jsbsim-737-mixed")
        #expect(segments.map(\.truthEDR) == [0.1658, 0.269, 0.5311])
        #expect(segments.allSatisfy { $0.minutes >= 3 }, "minutes per segment: \(segments.map(\.minutes))")
        check(segments)
    }

    @Test("C172 (small class): light and moderate within ±30 %, in truth order")
    func c172() throws {
        let segments = try turbulentSegments("jsbsim-c172-mixed")
        #expect(segments.count == 3)
        #expect(segments[0].minutes >= 3)
        #expect(segments[1].minutes >= 2)
        // Whatever is measured keeps the order and lies within ±30 % of the band-equivalent truth.
        check(segments)
        // Known detector gap (reported to the lead): in the strongest segment (EDR 0.26, POE 4 at
        // 5,000 ft) no minute survives the gates, and the onset of the moderate one is taken for
        // device handling (10 s "not in position", then 30 s settle).
        withKnownIssue("strong turbulence in a light aircraft is gated out", isIntermittent: true) {
            #expect(segments[2].minutes >= 3)
        }
    }
}
