import Foundation

/// An aircraft type by its ICAO Doc 8643 type designator, with the size class Eddy uses for severity.
public struct AircraftType: Sendable, Hashable, Codable {
    /// ICAO Doc 8643 type designator, upper case (e.g. "B738").
    public var designator: String
    /// Common name (e.g. "Boeing 737-800").
    public var name: String
    /// Size class that decides how a given EDR feels on board (rule in docs/alerts.md).
    public var aircraftClass: AircraftClass
    /// Whether the type is a glider or motor glider (towed or winched into the air; the tow-surge test applies).
    public var isGlider: Bool { AircraftTypeTable.gliderDesignators.contains(designator) }

    /// Creates a type entry.
    public init(designator: String, name: String, aircraftClass: AircraftClass) {
        self.designator = designator; self.name = name; self.aircraftClass = aircraftClass
    }
}

/// Failure to find an aircraft type.
public enum AircraftTypeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The designator is not in the committed table.
    case unknownDesignator(String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .unknownDesignator(let d):
            "unknown ICAO aircraft type designator \"\(d)\": use one listed by AircraftTypeTable.all (ICAO Doc 8643 designator, e.g. B738)"
        }
    }
}

/// The committed table of common aircraft types.
///
/// Designators and names follow ICAO Doc 8643 (Aircraft Type Designators). The class rule is Eddy's own:
/// small = light piston / turboprop aircraft up to about 7 t maximum take-off mass (ICAO wake category L,
/// plus single-engine utility turboprops); medium = single-aisle airliners, regional jets and regional
/// turboprops above 7 t; large = wide-bodies (twin-aisle). See docs/alerts.md.
public enum AircraftTypeTable {
    /// Every type in the table, sorted by designator.
    public static let all: [AircraftType] = entries.map {
        AircraftType(designator: $0.0, name: $0.1, aircraftClass: $0.2)
    }.sorted { $0.designator < $1.designator }

    /// Designators of the table's gliders and motor gliders (the rows under "Gliders and motor gliders").
    public static let gliderDesignators: Set<String> = ["AS21", "LS4", "LS8", "DG1T", "DUOD", "AS27", "VENT", "SF25", "GLID"]

    private static let byDesignator: [String: AircraftType] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.designator, $0) })

    /// The type for a designator (case-insensitive, surrounding spaces ignored); nil when unknown.
    public static func type(designator: String) -> AircraftType? {
        byDesignator[normalized(designator)]
    }

    /// The type for a designator, or `AircraftTypeError.unknownDesignator`.
    public static func requireType(designator: String) throws(AircraftTypeError) -> AircraftType {
        guard let found = type(designator: designator) else { throw .unknownDesignator(designator) }
        return found
    }

    private static func normalized(_ designator: String) -> String {
        designator.trimmingCharacters(in: .whitespaces).uppercased()
    }

    private static let entries: [(String, String, AircraftClass)] = [
        // Airbus single-aisle
        ("A319", "Airbus A319", .medium),
        ("A320", "Airbus A320", .medium),
        ("A321", "Airbus A321", .medium),
        ("A19N", "Airbus A319neo", .medium),
        ("A20N", "Airbus A320neo", .medium),
        ("A21N", "Airbus A321neo", .medium),
        ("BCS1", "Airbus A220-100", .medium),
        ("BCS3", "Airbus A220-300", .medium),
        // Boeing single-aisle
        ("B737", "Boeing 737-700", .medium),
        ("B738", "Boeing 737-800", .medium),
        ("B739", "Boeing 737-900", .medium),
        ("B37M", "Boeing 737 MAX 7", .medium),
        ("B38M", "Boeing 737 MAX 8", .medium),
        ("B39M", "Boeing 737 MAX 9", .medium),
        ("B752", "Boeing 757-200", .medium),
        ("B753", "Boeing 757-300", .medium),
        // Wide-bodies
        ("B763", "Boeing 767-300", .large),
        ("B764", "Boeing 767-400", .large),
        ("B772", "Boeing 777-200", .large),
        ("B77L", "Boeing 777-200LR", .large),
        ("B77W", "Boeing 777-300ER", .large),
        ("B788", "Boeing 787-8", .large),
        ("B789", "Boeing 787-9", .large),
        ("B78X", "Boeing 787-10", .large),
        ("B744", "Boeing 747-400", .large),
        ("B748", "Boeing 747-8", .large),
        ("A332", "Airbus A330-200", .large),
        ("A333", "Airbus A330-300", .large),
        ("A339", "Airbus A330-900", .large),
        ("A359", "Airbus A350-900", .large),
        ("A35K", "Airbus A350-1000", .large),
        ("A388", "Airbus A380-800", .large),
        // Regional jets
        ("E170", "Embraer 170", .medium),
        ("E75L", "Embraer 175 (long wing)", .medium),
        ("E175", "Embraer 175 (common alias; Doc 8643 designators E75L / E75S)", .medium),
        ("E190", "Embraer 190", .medium),
        ("E195", "Embraer 195", .medium),
        ("E290", "Embraer 190-E2", .medium),
        ("E295", "Embraer 195-E2", .medium),
        ("CRJ2", "Bombardier CRJ200", .medium),
        ("CRJ7", "Bombardier CRJ700", .medium),
        ("CRJ9", "Bombardier CRJ900", .medium),
        ("CRJX", "Bombardier CRJ1000", .medium),
        // Regional turboprops (above 7 t)
        ("AT72", "ATR 72", .medium),
        ("AT76", "ATR 72-600", .medium),
        ("AT45", "ATR 42-500", .medium),
        ("DH8D", "De Havilland Canada Dash 8-400", .medium),
        // Business jets above 7 t
        ("GLF6", "Gulfstream G650", .medium),
        ("GLEX", "Bombardier Global Express", .medium),
        // Light aircraft and small turboprops (≤ about 7 t)
        ("C152", "Cessna 152", .small),
        ("C172", "Cessna 172 Skyhawk", .small),
        ("C182", "Cessna 182 Skylane", .small),
        ("C206", "Cessna 206 Stationair", .small),
        ("C208", "Cessna 208 Caravan", .small),
        ("PA28", "Piper PA-28 (common alias; Doc 8643 designator P28A)", .small),
        ("P28A", "Piper PA-28 (fixed gear)", .small),
        ("PA46", "Piper PA-46 Malibu", .small),
        ("SR20", "Cirrus SR20", .small),
        ("SR22", "Cirrus SR22", .small),
        ("DA40", "Diamond DA40", .small),
        ("DA42", "Diamond DA42", .small),
        ("BE20", "Beechcraft King Air 200", .small),
        ("BE36", "Beechcraft Bonanza 36", .small),
        ("PC12", "Pilatus PC-12", .small),
        ("TBM9", "Daher TBM 900", .small),
        ("C25A", "Cessna Citation CJ2", .small),
        ("C510", "Cessna Citation Mustang", .small),
        ("DHC6", "De Havilland Canada DHC-6 Twin Otter", .small),
        // Gliders and motor gliders (small class: the severity a light aircraft feels)
        ("AS21", "Schleicher ASK 21", .small),
        ("LS4", "Rolladen-Schneider LS4", .small),
        ("LS8", "Rolladen-Schneider / DG LS8", .small),
        ("DG1T", "DG Flugzeugbau DG-1000", .small),
        ("DUOD", "Schempp-Hirth Duo Discus", .small),
        ("AS27", "Schleicher ASW 27", .small),
        ("VENT", "Schempp-Hirth Ventus-2", .small),
        ("SF25", "Scheibe SF 25 Falke", .small),
        // Doc 8643's designator for a glider whose type has none (flight plans use it; IGC files often name no type):
        // a generic single-seat 15-m glider (docs/detection.md §Per-type response).
        ("GLID", "Glider (type not designated)", .small),
    ]
}
