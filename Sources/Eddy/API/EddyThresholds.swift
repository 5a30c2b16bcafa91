package import EddyNavigation
package import EddyProtocol

/// The thresholds in force for flight phase, low power and location accuracy (`EddyEngine.thresholds`).
///
/// Each comes from the server's session settings when the server sends it (operators tune them per fleet on
/// `eddy-server serve`), otherwise from the engine's local default (`EddyConfiguration.flightPhase` and the two accuracy
/// limits of `EddyConfiguration`). The last server values are persisted with the session, so an offline restart keeps
/// them; `stop()` forgets them with the session (docs/engine.md "Server thresholds").
public struct EddyThresholds: Sendable, Equatable, Codable {
    /// Below this ground speed, after landing, the engine may enter low power mode, knots.
    public var lowPowerSpeedKnots: Double
    /// How long the aircraft must stay on the ground and slow before low power mode, seconds.
    public var lowPowerAfterSeconds: Double
    /// A climb this far above the last on-ground altitude counts as in the air, feet.
    public var inAirAltitudeFeet: Double
    /// At or above this ground speed the aircraft counts as in the air, knots.
    public var inAirSpeedKnots: Double
    /// Fixes whose horizontal accuracy (68 % radius) is worse than this are not used for position, metres.
    public var maximumHorizontalAccuracyMeters: Double
    /// Fixes whose vertical accuracy (68 %) is worse than this have their GNSS altitude ignored, metres.
    public var maximumVerticalAccuracyMeters: Double
    /// Whether the server of the current (or last persisted) session sent thresholds; false: all local defaults.
    public var isFromServer: Bool

    /// Creates thresholds.
    public init(lowPowerSpeedKnots: Double, lowPowerAfterSeconds: Double, inAirAltitudeFeet: Double, inAirSpeedKnots: Double,
                maximumHorizontalAccuracyMeters: Double, maximumVerticalAccuracyMeters: Double, isFromServer: Bool = false) {
        self.lowPowerSpeedKnots = lowPowerSpeedKnots
        self.lowPowerAfterSeconds = lowPowerAfterSeconds
        self.inAirAltitudeFeet = inAirAltitudeFeet
        self.inAirSpeedKnots = inAirSpeedKnots
        self.maximumHorizontalAccuracyMeters = maximumHorizontalAccuracyMeters
        self.maximumVerticalAccuracyMeters = maximumVerticalAccuracyMeters
        self.isFromServer = isFromServer
    }

    /// The local defaults of a flight-phase configuration and two accuracy limits.
    package init(local phase: FlightPhaseConfiguration, maximumHorizontalAccuracyMeters: Double, maximumVerticalAccuracyMeters: Double) {
        self.init(lowPowerSpeedKnots: phase.lowPowerSpeedKnots, lowPowerAfterSeconds: phase.lowPowerAfterSeconds,
                  inAirAltitudeFeet: phase.airborneClimbFeet, inAirSpeedKnots: phase.airborneSpeedKnots,
                  maximumHorizontalAccuracyMeters: maximumHorizontalAccuracyMeters,
                  maximumVerticalAccuracyMeters: maximumVerticalAccuracyMeters)
    }

    /// These values with every valid (positive, finite) value the server sent in their place; nil server: unchanged.
    package func overridden(by server: ClientThresholds?) -> EddyThresholds {
        guard let server else { return self }
        func pick(_ value: Double?, _ local: Double) -> Double { value.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? local }
        return EddyThresholds(
            lowPowerSpeedKnots: pick(server.lowPowerSpeedKnots, lowPowerSpeedKnots),
            lowPowerAfterSeconds: pick(server.lowPowerAfterSeconds, lowPowerAfterSeconds),
            inAirAltitudeFeet: pick(server.inAirAltitudeFeet, inAirAltitudeFeet),
            inAirSpeedKnots: pick(server.inAirSpeedKnots, inAirSpeedKnots),
            maximumHorizontalAccuracyMeters: pick(server.maximumHorizontalAccuracyMeters, maximumHorizontalAccuracyMeters),
            maximumVerticalAccuracyMeters: pick(server.maximumVerticalAccuracyMeters, maximumVerticalAccuracyMeters),
            isFromServer: true)
    }

    /// A flight-phase configuration with these thresholds in place of its low-power and in-air values.
    package func applied(to phase: FlightPhaseConfiguration) -> FlightPhaseConfiguration {
        var phase = phase
        phase.lowPowerSpeedKnots = lowPowerSpeedKnots
        phase.lowPowerAfterSeconds = lowPowerAfterSeconds
        phase.airborneClimbFeet = inAirAltitudeFeet
        phase.airborneSpeedKnots = inAirSpeedKnots
        return phase
    }
}
