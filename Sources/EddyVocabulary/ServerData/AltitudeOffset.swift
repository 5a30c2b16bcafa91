import Foundation

/// One aircraft's measured offset between geometric (GNSS, above mean sea level) and pressure altitude.
///
/// Aircraft that know both — ADS-B / AHRS pressure altitude, or a barometer in an unpressurised cabin — upload it
/// with their position; the server aggregates it per coarse cell and layer (`AltitudeOffsetCell`), and aircraft with
/// no pressure source convert their GNSS altitude with it (docs/altitude.md "Fleet altitude assistance").
public struct AltitudeOffsetObservation: Sendable, Equatable, Hashable, Codable {
    /// When it was measured, Unix epoch seconds.
    public var time: Double
    /// Where, degrees WGS-84.
    public var latitudeDegrees: Double
    /// Where, degrees WGS-84.
    public var longitudeDegrees: Double
    /// The aircraft's pressure altitude, feet.
    public var pressureAltitudeFeet: Double
    /// GNSS altitude above mean sea level minus pressure altitude, feet.
    public var offsetFeet: Double
    /// Standard uncertainty (1σ, 68 %) of `offsetFeet`, feet.
    public var uncertaintyFeet: Double

    /// Creates an observation.
    public init(
        time: Double, latitudeDegrees: Double, longitudeDegrees: Double, pressureAltitudeFeet: Double,
        offsetFeet: Double, uncertaintyFeet: Double
    ) {
        self.time = time
        self.latitudeDegrees = latitudeDegrees
        self.longitudeDegrees = longitudeDegrees
        self.pressureAltitudeFeet = pressureAltitudeFeet
        self.offsetFeet = offsetFeet
        self.uncertaintyFeet = uncertaintyFeet
    }
}

/// The fleet's aggregated geometric − pressure altitude offset for one coarse H3 cell and one 1,000-ft layer.
///
/// Served by the server with the data fetch; properties are declared in the wire order.
public struct AltitudeOffsetCell: Sendable, Equatable, Hashable, Codable {
    /// Largest plausible |offset|, feet (ISA ±40 °C and QNH 950…1050 hPa at FL600 stay well inside it).
    public static let maximumOffsetFeet = 5_000.0
    /// Largest accepted 1σ uncertainty, feet.
    public static let maximumUncertaintyFeet = 10_000.0
    /// H3 resolution of `h3` (coarse: the offset varies on the scale of weather systems, hundreds of km).
    public static let h3Resolution = 3
    /// H3 cell (resolution `h3Resolution`) as its 64-bit value.
    public var h3: UInt64
    /// 1,000-ft layer of pressure altitude (`layer 35` = 35,000..<36,000 ft).
    public var layer: Int
    /// Mean offset, feet (GNSS altitude above MSL − pressure altitude).
    public var offsetFeet: Double
    /// Standard uncertainty (1σ) of the mean offset, feet, spread between aircraft included.
    public var uncertaintyFeet: Double
    /// How many observations were averaged.
    public var observationCount: Int
    /// Time of the newest observation, Unix epoch seconds.
    public var newestTime: Double

    /// Creates a cell.
    public init(h3: UInt64, layer: Int, offsetFeet: Double, uncertaintyFeet: Double, observationCount: Int, newestTime: Double) {
        self.h3 = h3
        self.layer = layer
        self.offsetFeet = offsetFeet
        self.uncertaintyFeet = uncertaintyFeet
        self.observationCount = observationCount
        self.newestTime = newestTime
    }
}
