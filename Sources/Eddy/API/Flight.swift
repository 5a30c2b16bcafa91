import Dispatch
import EddyH3
import EddyStore
import EddySync
import Foundation

/// A flight (SkyPath's `Flight`): set by the host, or temporary while airborne without one.
public struct Flight: Sendable, Equatable, Codable {
    /// Flight number (e.g. "DAL123").
    public var flightNumber: String?
    /// Departure airport, ICAO code.
    public var departure: String?
    /// Destination airport, ICAO code.
    public var destination: String?
    /// The host's flight plan id.
    public var flightPlanId: String?
    /// True for the flight the engine made up at take-off because the host set none.
    public var isTemporary: Bool
    /// Creates a flight.
    public init(flightNumber: String? = nil, departure: String? = nil, destination: String? = nil,
                flightPlanId: String? = nil, isTemporary: Bool = false) {
        self.flightNumber = flightNumber; self.departure = departure; self.destination = destination
        self.flightPlanId = flightPlanId; self.isTemporary = isTemporary
    }
    /// A stable key for report-id salts.
    var key: String { [flightNumber ?? "", departure ?? "", destination ?? "", flightPlanId ?? ""].joined(separator: "/") }
}
