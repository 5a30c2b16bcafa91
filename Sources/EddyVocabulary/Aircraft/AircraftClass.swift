/// Size class of an aircraft, as SkyPath's `size`: it decides how a given EDR feels on board.
public enum AircraftClass: String, Sendable, Codable, CaseIterable, Hashable {
    /// Light aircraft (C172-like): feels a given EDR about twice as hard as a medium jet.
    case small
    /// Medium transport (737 / A320-like): the reference class for the EDR bands.
    case medium
    /// Large transport (777 / A350-like): feels a given EDR less than a medium jet.
    case large
}
