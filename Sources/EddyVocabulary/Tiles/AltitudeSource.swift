/// Where an altitude came from, best first (docs/altitude.md "Sources").
///
/// The tile layer is a 1,000-ft layer of **pressure altitude** (flight levels). An aircraft's pressure altitude comes
/// from an external air-data source when it has one, from the device barometer only in an unpressurised cabin, and
/// otherwise from GNSS (geometric) altitude converted to pressure altitude — with the fleet's measured offset when
/// one is fresh nearby, else with the standard atmosphere (ISA, QNH 1013.25 hPa) and a wide uncertainty.
public enum AltitudeSource: String, Sendable, Codable, CaseIterable, Comparable {
    /// Pressure altitude from an external source: ADS-B own-ship or an AHRS / air-data computer.
    case external
    /// The device barometer in an unpressurised cabin (a cabin barometer is never used as the aircraft's altitude).
    case barometer
    /// GNSS altitude converted with the fleet's fresh geometric − pressure altitude offset nearby.
    case gnssFleetOffset = "gnss_fleet"
    /// GNSS altitude converted with the standard atmosphere: off by ≈ 4 ft per 1,000 ft per °C of ISA deviation.
    case gnssStandardAtmosphere = "gnss"

    /// Rank, best first (external = 0).
    public var rank: Int {
        switch self {
        case .external: 0
        case .barometer: 1
        case .gnssFleetOffset: 2
        case .gnssStandardAtmosphere: 3
        }
    }

    /// Orders best first.
    public static func < (lhs: AltitudeSource, rhs: AltitudeSource) -> Bool { lhs.rank < rhs.rank }
}
