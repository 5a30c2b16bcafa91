import EddyNavigation
import EddyTesting
import Testing
@testable import Eddy

@Suite("Engine: flight-level hints (issue 28)")
struct FlightLevelHintTests {
    /// Planned and cleared levels and the cruise temperature reach the engine's one navigation (the estimator every
    /// report's layer comes from); nil clears; implausible values are refused with what is wrong and change nothing.
    @Test func hintsReachNavigationAndBadOnesAreRefused() throws {
        let folder = try EngineFolder()
        let engine = try folder.flightTimeEngine()
        try engine.setPlannedCruiseLevels([350, 370])
        try engine.setClearedFlightLevel(350)
        try engine.setCruiseTemperature(CruiseTemperature(staticAirTemperatureCelsius: -44.3, flightLevel: 350, observedAt: 1_700_000_000))
        var hints = engine.core.withLock { $0.flightLevelHints }
        #expect(hints.plannedLevelsFeet == [35_000, 37_000])
        #expect(hints.clearedLevels.map(\.levelFeet) == [35_000])
        let temperature = try #require(hints.temperature)
        // ISA at FL350 is −54.3 °C: −44.3 °C is ISA+10.
        #expect(abs(temperature.isaDeviationCelsius - 10) < 0.05, "\(temperature)")
        #expect(temperature.sigmaCelsius == 1 && temperature.t == 1_700_000_000)

        #expect(throws: EddyError.self) { try engine.setClearedFlightLevel(700) }
        #expect(throws: EddyError.self) { try engine.setPlannedCruiseLevels([350, -10]) }
        #expect(throws: EddyError.self) {
            try engine.setCruiseTemperature(CruiseTemperature(isaDeviationCelsius: .nan, observedAt: 0))
        }
        hints = engine.core.withLock { $0.flightLevelHints }
        #expect(hints.plannedLevelsFeet == [35_000, 37_000] && hints.clearedLevels.map(\.levelFeet) == [35_000] && hints.temperature != nil)

        try engine.setClearedFlightLevel(nil)
        try engine.setCruiseTemperature(nil)
        hints = engine.core.withLock { $0.flightLevelHints }
        #expect(hints.clearedLevels.isEmpty && hints.temperature == nil)
    }
}
