package import EddyNavigation
package import EddySensorLog

extension FlightLevelHints {
    /// The hints of a flight plan (`override`'s fields where given, else `base`'s): flight levels in feet, the ISA
    /// deviation with its σ (default 2 °C, an upper-air temperature forecast's error) and time (default 0).
    package init(merging override: FlightMeta.FlightPlan?, over base: FlightMeta.FlightPlan?) {
        self.init()
        let plan = FlightMeta.FlightPlan.merged(override, over: base)
        plannedLevelsFeet = (plan?.plannedLevels ?? []).map { Double($0) * 100 }
        clearedLevels = (plan?.clearedLevels ?? []).map { ClearedLevel(t: $0.t, levelFeet: Double($0.level) * 100) }
        if let isa = plan?.isaDeviation {
            temperature = Temperature(isaDeviationCelsius: isa.celsius, sigmaCelsius: isa.sigmaCelsius ?? 2, t: isa.t ?? 0)
        }
    }
}

extension FlightMeta.FlightPlan {
    /// `override`'s fields where given, else `base`'s (nil when both are nil).
    package static func merged(_ override: FlightMeta.FlightPlan?, over base: FlightMeta.FlightPlan?) -> FlightMeta.FlightPlan? {
        guard override != nil || base != nil else { return nil }
        return FlightMeta.FlightPlan(
            plannedLevels: override?.plannedLevels ?? base?.plannedLevels, clearedLevels: override?.clearedLevels ?? base?.clearedLevels,
            isaDeviation: override?.isaDeviation ?? base?.isaDeviation)
    }
}
