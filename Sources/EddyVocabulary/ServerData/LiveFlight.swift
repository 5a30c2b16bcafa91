import EddyH3
import Foundation

/// The last known position of a live flight (traffic): what an aircraft uploads (`POST /v1/position`), what the
/// server hands out, what the store keeps and what host apps read.
///
/// On the wire (JSON) it carries `flightId`, `aircraftType`, `lat`, `lng`, `altitudeFeet`,
/// `headingDegrees`, `speedKnots` and `time` (`docs/openapi.yaml`, all required) and the optional `flightNumber`;
/// the store-only fields (`departure`, `destination`, `tile`) are not sent, and a decoded flight has `tile == nil`
/// (the store places it with `positionTile`).
public struct LiveFlight: Sendable, Equatable, Hashable {
    /// Flight id (unique key; wire `flightId`): random per flight, never the pilot's user id. The server serves its own
    /// random id per flight, whatever the uploader sent (docs/protocol.md "Live flights").
    public var flightID: String
    /// Latitude, degrees (wire `lat`).
    public var latitude: Double
    /// Longitude, degrees (wire `lng`).
    public var longitude: Double
    /// Pressure altitude, feet.
    public var altitudeFeet: Double
    /// True track / heading, degrees, when known (always present on the wire).
    public var headingDegrees: Double?
    /// Ground speed, knots, when known (always present on the wire, as `speedKnots`).
    public var groundSpeedKnots: Double?
    /// ICAO aircraft type (e.g. `B738`), when known (always present on the wire).
    public var aircraftType: String?
    /// Flight number, when known. Sent with the own position (wire `flightNumber`, optional, 1–16 characters); the
    /// server serves it only to clients of the same airline.
    public var flightNumber: String?
    /// Departure airport, when known; not on the wire.
    public var departure: String?
    /// Destination airport, when known; not on the wire.
    public var destination: String?
    /// The longest flight number the wire carries, characters (Unicode scalars).
    public static let maximumFlightNumberLength = 16
    /// Tile of the position; nil until placed (the wire does not carry it).
    public var tile: TileID?
    /// Time of the position, Unix epoch seconds.
    public var time: Double

    /// Creates a live flight position.
    public init(
        flightID: String, latitude: Double, longitude: Double, altitudeFeet: Double,
        headingDegrees: Double? = nil, groundSpeedKnots: Double? = nil, aircraftType: String? = nil,
        flightNumber: String? = nil, departure: String? = nil, destination: String? = nil,
        tile: TileID? = nil, time: Double
    ) {
        self.flightID = flightID
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeFeet = altitudeFeet
        self.headingDegrees = headingDegrees
        self.groundSpeedKnots = groundSpeedKnots
        self.aircraftType = aircraftType
        self.flightNumber = flightNumber
        self.departure = departure
        self.destination = destination
        self.tile = tile
        self.time = time
    }

    /// The tile of the position (H3 resolution 5 × altitude layer); nil when the position has no H3 cell.
    package var positionTile: TileID? {
        // A wire altitude outside any flight level (or not finite) has no layer: not placed, like a position
        // with no H3 cell (and never converted to an Int it does not fit).
        guard altitudeFeet.isFinite, abs(altitudeFeet) <= 1_000_000 else { return nil }
        guard let cell = try? H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: TileID.h3Resolution) else {
            return nil
        }
        return TileID(h3: cell.rawValue, layer: TileID.layer(altitudeFeet: altitudeFeet))
    }
}

extension LiveFlight: Codable {
    /// The wire's field names.
    private enum CodingKeys: String, CodingKey {
        case flightID = "flightId", aircraftType, latitude = "lat", longitude = "lng", altitudeFeet, headingDegrees
        case groundSpeedKnots = "speedKnots", time, flightNumber
    }

    /// Reads the wire fields (all required but `flightNumber`); the store-only fields stay nil.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let flightID = try container.decode(String.self, forKey: .flightID)
        let aircraftType = try container.decode(String.self, forKey: .aircraftType)
        let latitude = try container.decode(Double.self, forKey: .latitude)
        let longitude = try container.decode(Double.self, forKey: .longitude)
        let altitudeFeet = try container.decode(Double.self, forKey: .altitudeFeet)
        let headingDegrees = try container.decode(Double.self, forKey: .headingDegrees)
        let groundSpeedKnots = try container.decode(Double.self, forKey: .groundSpeedKnots)
        let time = try container.decode(Double.self, forKey: .time)
        let flightNumber = try container.decodeIfPresent(String.self, forKey: .flightNumber)
        self.init(
            flightID: flightID, latitude: latitude, longitude: longitude, altitudeFeet: altitudeFeet,
            headingDegrees: headingDegrees, groundSpeedKnots: groundSpeedKnots, aircraftType: aircraftType,
            flightNumber: flightNumber, time: time)
    }

    /// Writes the wire fields in the wire order (a field that is nil is left out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flightID, forKey: .flightID)
        try container.encodeIfPresent(aircraftType, forKey: .aircraftType)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(altitudeFeet, forKey: .altitudeFeet)
        try container.encodeIfPresent(headingDegrees, forKey: .headingDegrees)
        try container.encodeIfPresent(groundSpeedKnots, forKey: .groundSpeedKnots)
        try container.encode(time, forKey: .time)
        try container.encodeIfPresent(flightNumber, forKey: .flightNumber)
    }
}
