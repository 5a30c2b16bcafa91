public import EddyNavigation
public import EddyVocabulary

/// Where the aircraft is vertically, as the host sees it (`didUpdateAltitudeContext(_:)`, `EddyEngine.altitudeContext`).
///
/// Modelled on a commercial altitude service's "altitude context" (docs/altitude.md "Altitude context"): every
/// altitude comes with its 68 % and 90 % uncertainty (the value lies within ± the bound with that probability), the
/// source used, the barometer's calibration, a status and the open problems as numeric codes.
public struct AltitudeContext: Sendable, Equatable {
    /// When, Unix epoch seconds (the fix's time).
    public var time: Double
    /// Pressure altitude (the flight-level scale the tile layer uses), feet.
    public var pressureAltitudeFeet: Double
    /// 68 % uncertainty of `pressureAltitudeFeet`, feet.
    public var pressureAltitudeU68Feet: Double
    /// 90 % uncertainty of `pressureAltitudeFeet`, feet.
    public var pressureAltitudeU90Feet: Double
    /// Where the pressure altitude came from.
    public var source: AltitudeSource
    /// The 1,000-ft layer reports go into (flight-level hold applied).
    public var layer: Int
    /// The flight level held, feet, while the aircraft is level at one.
    public var heldFlightLevelFeet: Double?
    /// True when the 90 % uncertainty reaches beyond `layer`.
    public var layerUncertain: Bool
    /// When the level was chosen by flight-level inference (a level airliner on GNSS), the probability that it is the
    /// level the aircraft holds; nil otherwise. `layerUncertain` is set below 0.9.
    public var flightLevelProbability: Double?
    /// Altitude above mean sea level (EGM96 geoid), metres; nil without GNSS and QNH.
    public var mslMeters: Double?
    /// 68 % uncertainty of `mslMeters`, metres.
    public var mslU68Meters: Double?
    /// 90 % uncertainty of `mslMeters`, metres.
    public var mslU90Meters: Double?
    /// Height above the WGS-84 ellipsoid, metres (MSL + EGM96 undulation); nil without MSL.
    public var haeMeters: Double?
    /// 68 % uncertainty of `haeMeters`, metres.
    public var haeU68Meters: Double?
    /// 90 % uncertainty of `haeMeters`, metres.
    public var haeU90Meters: Double?
    /// Height above terrain, metres; nil without a terrain directory (`EddyConfiguration.terrainDirectory`) or a tile.
    public var hatMeters: Double?
    /// 68 % uncertainty of `hatMeters`, metres.
    public var hatU68Meters: Double?
    /// 90 % uncertainty of `hatMeters`, metres.
    public var hatU90Meters: Double?
    /// Vertical speed, feet per minute (positive up).
    public var verticalSpeedFeetPerMinute: Double?
    /// Cabin pressurisation as decided.
    public var cabin: CabinPressurization
    /// The barometer's calibration.
    public var barometerCalibration: BarometerCalibrationState
    /// Overall status (table in docs/altitude.md).
    public var status: AltitudeStatusCode
    /// Open problems (table in docs/altitude.md); empty when none.
    public var problems: [AltitudeProblemCode]

    /// Creates a context.
    public init(
        time: Double, pressureAltitudeFeet: Double, pressureAltitudeU68Feet: Double, pressureAltitudeU90Feet: Double,
        source: AltitudeSource, layer: Int, heldFlightLevelFeet: Double? = nil, layerUncertain: Bool,
        mslMeters: Double? = nil, mslU68Meters: Double? = nil, mslU90Meters: Double? = nil,
        haeMeters: Double? = nil, haeU68Meters: Double? = nil, haeU90Meters: Double? = nil,
        hatMeters: Double? = nil, hatU68Meters: Double? = nil, hatU90Meters: Double? = nil,
        verticalSpeedFeetPerMinute: Double? = nil, cabin: CabinPressurization,
        barometerCalibration: BarometerCalibrationState, status: AltitudeStatusCode, problems: [AltitudeProblemCode]
    ) {
        self.time = time
        self.pressureAltitudeFeet = pressureAltitudeFeet
        self.pressureAltitudeU68Feet = pressureAltitudeU68Feet
        self.pressureAltitudeU90Feet = pressureAltitudeU90Feet
        self.source = source
        self.layer = layer
        self.heldFlightLevelFeet = heldFlightLevelFeet
        self.layerUncertain = layerUncertain
        self.mslMeters = mslMeters
        self.mslU68Meters = mslU68Meters
        self.mslU90Meters = mslU90Meters
        self.haeMeters = haeMeters
        self.haeU68Meters = haeU68Meters
        self.haeU90Meters = haeU90Meters
        self.hatMeters = hatMeters
        self.hatU68Meters = hatU68Meters
        self.hatU90Meters = hatU90Meters
        self.verticalSpeedFeetPerMinute = verticalSpeedFeetPerMinute
        self.cabin = cabin
        self.barometerCalibration = barometerCalibration
        self.status = status
        self.problems = problems
    }
}

/// The altitude context's overall status. Numeric codes are Eddy's own (docs/altitude.md maps each to the condition
/// of the altitude-service reference it covers).
public enum AltitudeStatusCode: Int, Sendable, Equatable, CaseIterable {
    /// Pressure altitude from an external air-data source (ADS-B / AHRS).
    case externalPressureAltitude = 100
    /// Pressure altitude from the barometer in an unpressurised cabin.
    case barometer = 101
    /// Pressure altitude from GNSS with the fleet's offset (the reference's "success" with server assistance).
    case gnssWithFleetOffset = 102
    /// Pressure altitude from GNSS with the standard atmosphere: no reference nearby, wide uncertainty (the
    /// reference's "inside the area but no reference pressure").
    case gnssStandardAtmosphere = 103
}

/// An open problem of the altitude context (docs/altitude.md "Codes").
public enum AltitudeProblemCode: Int, Sendable, Equatable, CaseIterable {
    /// No barometer calibration (the reference's "no calibration data").
    case barometerUncalibrated = 210
    /// The calibration is older than the staleness limit (the reference's "calibration stale").
    case barometerCalibrationStale = 211
    /// No barometer reading for 10 s (the reference's "no pressure: treat as failed after 10 s").
    case noPressure = 220
    /// The cabin is pressurised: the barometer is not used for altitude.
    case cabinPressurized = 221
    /// The cabin is not decided yet (needs a climb or descent, or level flight high enough).
    case cabinUndecided = 222
    /// No GNSS altitude for 5 s (the reference's "device location stale").
    case gnssStale = 230
    /// No fresh fleet offset nearby (the reference's "reference data stale").
    case fleetOffsetUnavailable = 240
    /// The 90 % uncertainty of the pressure altitude reaches beyond the layer.
    case layerUncertain = 250
}
