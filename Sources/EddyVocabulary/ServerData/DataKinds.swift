import Foundation

/// The kind of data a fetch brings (SkyPath `DataTypeOptions`): one type for the engine, the store, the sync
/// layer and the wire.
///
/// `rawValue` is the store's and the host API's spelling (`turbulencePolygons`); the JSON wire spelling is
/// `wireName` (`polygons`), which is what `Codable` reads and writes. Cases are declared in the order the
/// sync scheduler fetches them.
public enum DataType: String, Sendable, CaseIterable, Hashable {
    /// Turbulence reports (other aircraft's tile reports).
    case turbulence
    /// Nowcast cells, 0–6 h ahead.
    case nowcast
    /// Aggregated turbulence polygons (GeoJSON).
    case turbulencePolygons
    /// Live flights (traffic, last positions).
    case liveFlights

    /// The name on the wire (`docs/protocol.md`): `polygons` for `turbulencePolygons`, the raw value otherwise.
    package var wireName: String {
        switch self {
        case .turbulence: "turbulence"
        case .nowcast: "nowcast"
        case .turbulencePolygons: "polygons"
        case .liveFlights: "liveFlights"
        }
    }

    /// The data type with a wire name; nil for an unknown name.
    package init?(wireName: String) {
        guard let match = DataType.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = match
    }
}

extension DataType: Codable {
    /// Reads the wire name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let type = DataType(wireName: name) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Cannot initialize DataType from invalid String value \(name)")
        }
        self = type
    }

    /// Writes the wire name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wireName)
    }
}

/// The area a fetch covers (SkyPath `DataAreaType`); the raw value is also the wire spelling. Cases are declared
/// in the order the sync scheduler visits them.
public enum DataAreaType: String, Sendable, Codable, CaseIterable, Hashable {
    /// The route corridor polygon.
    case route
    /// The visible map viewport polygon.
    case viewport
    /// The whole world.
    case global
}
