import Foundation
import Testing
@testable import EddyReplay

/// Flights flown by JSBSim's 6-DOF 737 and C172 through MIL-F-8785C (Dryden) turbulence
/// (scripts/jsbsim_flight.py): an aircraft response that is not Eddy's own plunge model.
/// Truth = the independent truth per segment: the von Kármán EDR whose in-band vertical-gust variance equals that of
/// the gusts JSBSim applied (docs/replay.md §Truth; the model-weighted truth stays in meta.json for the record).
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
        #expect(segments.map(\.truthEDR) == [0.198, 0.2745, 0.6619])
        #expect(segments.allSatisfy { $0.minutes >= 3 }, "minutes per segment: \(segments.map(\.minutes))")
        check(segments)
    }

    @Test("C172 (small class): all three segments within ±30 %, in truth order")
    func c172() throws {
        let segments = try turbulentSegments("jsbsim-c172-mixed")
        #expect(segments.map(\.truthEDR) == [0.0859, 0.2248, 0.2896])
        #expect(segments.allSatisfy { $0.minutes >= 3 }, "minutes per segment: \(segments.map(\.minutes))")
        check(segments)
    }
}
