import Foundation
import EddyVocabulary
import Testing
@testable import EddySensorLog

@Suite("meta.json flight_plan (issue 28)")
struct FlightPlanMetaTests {
    private func meta(_ flightPlan: String) -> Data {
        Data("""
        {"format": "eddy-sensor-log", "version": 1, "aircraft": {"class": "medium"}, "flight_plan": \(flightPlan)}
        """.utf8)
    }

    /// The block decodes with its defaults, and a meta without it keeps its bytes when encoded again.
    @Test func decodesAndOlderFilesKeepTheirBytes() throws {
        let decoded = try FlightMeta.decode(meta("""
            {"planned_levels": [350, 370], "cleared_levels": [{"t": 0, "level": 350}, {"t": 3600, "level": 370}],
             "isa_deviation": {"celsius": -8.5}}
            """))
        let plan = try #require(decoded.flightPlan)
        #expect(plan.plannedLevels == [350, 370])
        #expect(plan.clearedLevels == [.init(t: 0, level: 350), .init(t: 3_600, level: 370)])
        #expect(plan.isaDeviation == FlightMeta.FlightPlan.ISADeviation(celsius: -8.5))
        let plain = FlightMeta(aircraft: .init(aircraftClass: .medium))
        let text = try #require(String(data: try plain.encoded(), encoding: .utf8))
        #expect(!text.contains("flight_plan"))
    }

    /// Implausible values are refused naming the field and what to write instead.
    @Test(arguments: [
        ("{\"planned_levels\": [350, 900]}", "planned_levels[1]"),
        ("{\"cleared_levels\": [{\"t\": 100, \"level\": 350}, {\"t\": 50, \"level\": 370}]}", "cleared_levels[1].t"),
        ("{\"isa_deviation\": {\"celsius\": 75}}", "isa_deviation.celsius"),
        ("{\"isa_deviation\": {\"celsius\": 5, \"sigma_celsius\": 0}}", "isa_deviation.sigma_celsius"),
    ])
    func badValuesAreRefused(block: String, field: String) {
        do {
            _ = try FlightMeta.decode(meta(block))
            Issue.record("accepted \(block)")
        } catch {
            #expect(error.kind == .invalidMeta)
            #expect(error.description.contains(field), "\(error)")
        }
    }
}
