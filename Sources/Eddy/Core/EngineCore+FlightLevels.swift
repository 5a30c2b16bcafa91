package import EddyNavigation

extension EngineCore {
    /// Sets the planned cruise levels, feet ([] clears them).
    package mutating func setPlannedCruiseLevels(feet: [Double]) {
        location.updateFlightLevelHints { $0.plannedLevelsFeet = feet }
    }

    /// Sets the cleared level, feet, from the engine's time on (nil: none).
    package mutating func setClearedLevel(feet: Double?, now: Double) {
        let t = engineTime ?? now
        location.updateFlightLevelHints { $0.clearedLevels = feet.map { [FlightLevelHints.ClearedLevel(t: t, levelFeet: $0)] } ?? [] }
    }

    /// Sets the ISA deviation at cruise (°C, its 1σ, and when it held in engine time: Unix seconds); nil clears it.
    package mutating func setCruiseISADeviation(celsius: Double, sigmaCelsius: Double, at t: Double) {
        location.updateFlightLevelHints { $0.temperature = FlightLevelHints.Temperature(isaDeviationCelsius: celsius, sigmaCelsius: sigmaCelsius, t: t) }
    }

    /// Forgets the cruise temperature (the climatology alone gives the offset).
    package mutating func clearCruiseTemperature() {
        location.updateFlightLevelHints { $0.temperature = nil }
    }

    /// The host's flight-level hints in force.
    package var flightLevelHints: FlightLevelHints { location.navigation.flightLevelHints }
}
