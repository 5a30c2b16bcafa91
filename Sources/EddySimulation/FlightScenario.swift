import EddyDetection
import EddySupport
public import EddyVocabulary
import Foundation

/// A stretch of flight at one turbulence intensity.
public struct TurbulenceSegment: Sendable, Equatable, Codable {
    /// Eddy dissipation rate ε^(1/3), m^(2/3) s^-1 (0 = smooth air).
    public var edr: Double
    /// Length of the segment, seconds.
    public var durationSeconds: Double
    /// Creates a segment.
    public init(edr: Double, durationSeconds: Double) { self.edr = edr; self.durationSeconds = durationSeconds }
}

/// A known interval of the simulated truth, as `meta.json` "truth" lists it.
public struct TruthInterval: Sendable, Codable, Equatable {
    /// Start, seconds (log time base).
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// EDR of a turbulence interval, m^(2/3) s^-1; nil for a handling interval.
    public var edr: Double?
    /// Creates an interval.
    public init(start: Double, end: Double, edr: Double? = nil) { self.start = start; self.end = end; self.edr = edr }
}

/// Ground truth of a simulated flight (the `truth` object of `meta.json`).
public struct FlightTruth: Sendable, Equatable, Codable {
    /// One interval per turbulence segment (smooth segments included with edr 0).
    public var turbulence: [TruthInterval]
    /// Device handling intervals (edr nil).
    public var handling: [TruthInterval]
    /// Manoeuvres flown (steep turns, pull-ups, parabolas, stalls, aerotow, ground rolls, taxi). Default none.
    public var manoeuvres: [ManoeuvreInterval]
    /// Creates a truth record.
    public init(turbulence: [TruthInterval], handling: [TruthInterval], manoeuvres: [ManoeuvreInterval] = []) {
        self.turbulence = turbulence; self.handling = handling; self.manoeuvres = manoeuvres
    }
}

/// An interval in which someone picks the device up and puts it back (at a new angle).
public struct HandlingInterval: Sendable, Equatable, Codable {
    /// Start, seconds.
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// How the device is handled. Default `.burst` (the historical kind).
    public var kind: HandlingKind
    /// Creates an interval.
    public init(start: Double, end: Double, kind: HandlingKind = .burst) { self.start = start; self.end = end; self.kind = kind }

    private enum CodingKeys: String, CodingKey { case start, end, kind }

    /// Decodes an interval; a missing `kind` is `.burst`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = try container.decode(Double.self, forKey: .start)
        end = try container.decode(Double.self, forKey: .end)
        kind = try container.decodeIfPresent(HandlingKind.self, forKey: .kind) ?? .burst
    }
}

/// A level coordinated turn: bank rolled in at a constant roll rate, held, rolled out.
public struct CoordinatedTurn: Sendable, Equatable, Codable {
    /// Time the roll-in starts, seconds.
    public var start: Double
    /// Total duration including roll-in and roll-out, seconds.
    public var durationSeconds: Double
    /// Bank angle, degrees (positive = right turn).
    public var bankDegrees: Double
    /// Roll rate during roll-in / roll-out, degrees per second.
    public var rollRateDegreesPerSecond: Double
    /// Creates a turn (default roll rate 5°/s).
    public init(start: Double, durationSeconds: Double, bankDegrees: Double, rollRateDegreesPerSecond: Double = 5) {
        self.start = start; self.durationSeconds = durationSeconds; self.bankDegrees = bankDegrees
        self.rollRateDegreesPerSecond = rollRateDegreesPerSecond
    }

    /// Bank angle (radians) and roll rate (rad/s) at time `t`.
    func bank(at t: Double) -> (phi: Double, rate: Double) {
        let local = t - start
        guard local > 0, local < durationSeconds else { return (0, 0) }
        let target = bankDegrees * .pi / 180
        let rate = max(0.1, rollRateDegreesPerSecond) * .pi / 180
        let rollTime = min(abs(target) / rate, durationSeconds / 2)
        let signedRate = target >= 0 ? rate : -rate
        if local < rollTime { return (signedRate * local, signedRate) }
        if local > durationSeconds - rollTime { return (signedRate * (durationSeconds - local), -signedRate) }
        return (signedRate * rollTime, 0)
    }
}

/// Everything that defines a simulated flight; every field has a documented default.
public struct FlightScenario: Sendable, Equatable {
    /// Aircraft class: response parameters and nominal speed / altitude. Default `.medium`.
    public var aircraftClass: AircraftClass
    /// Accelerometer (and gyroscope) rate, Hz. Default 50.
    public var accelerometerRateHz: Double
    /// Whether a gyroscope stream is produced. Default true.
    public var includeGyroscope: Bool
    /// Whether a 1 Hz barometer stream is produced. Default true.
    public var includeBarometer: Bool
    /// Turbulence segments, flown back to back from t = 0; their total is the flight length.
    public var segments: [TurbulenceSegment]
    /// White accelerometer noise per axis, RMS g. Default 0.0015 (1.5 mg).
    public var noiseRMSg: Double
    /// White gyroscope noise per axis, RMS rad/s. Default 0.002.
    public var gyroNoiseRMSRadiansPerSecond: Double
    /// Device handling intervals. Default none.
    public var handling: [HandlingInterval]
    /// The device lies flat (screen up) instead of standing in a cradle. Default false.
    public var flat: Bool
    /// Route start latitude, degrees. Default 47.0.
    public var startLatitude: Double
    /// Route start longitude, degrees. Default 8.0.
    public var startLongitude: Double
    /// Flight altitude (GNSS ≈ pressure altitude in the simulation), feet. Default: class nominal, to 100 ft.
    public var altitudeFeet: Double
    /// Ground speed = true airspeed (no wind), m/s. Default: class nominal.
    public var groundSpeedMetersPerSecond: Double
    /// Initial track, degrees true. Default 90.
    public var courseDegrees: Double
    /// Coordinated turns. Default none.
    public var turns: [CoordinatedTurn]
    /// Seed of every random draw (gusts, noise, mount, handling). Default 1.
    public var seed: UInt64
    /// Device mount (device → aircraft frame). Default nil: drawn from the seed (a cradle angle, or a flat yaw if `flat`).
    public var mountRotation: Rotation3?
    /// Cabin altitude of a pressurised aircraft at cruise, feet (barometer reads cabin pressure). Default 6,000.
    /// Without an altitude profile the cabin holds it all flight; with one it follows `CabinSchedule`.
    public var cabinAltitudeFeet: Double
    /// Temperature deviation from ISA, °C, at every level. Default 0 (standard day).
    public var isaDeviationCelsius: Double
    /// Mean-sea-level pressure, hPa. Default 1013.25 (then MSL altitude = pressure altitude when ISA+0).
    public var qnhHectopascals: Double
    /// Climbs and descents in pressure altitude, flown with linear interpolation (holding the first altitude
    /// before the first point and the last after the last). Default nil: level at `altitudeFeet` all flight.
    public var altitudeProfile: [AltitudeWaypoint]?
    /// Elevation of the field above MSL, feet: the ground of `altitudeProfile` (on-ground waypoints, and no
    /// waypoint below it) and of the cabin schedule. Default nil: no ground (on-ground waypoints at 0 ft MSL).
    public var fieldElevationFeet: Double?
    /// GNSS error profile of the fixes. Default `.ideal` (exact fixes, reported accuracy 5 m / 8 m).
    public var gnssProfile: GNSSProfile
    /// Fixes are ADS-B own-ship reports (source `.adsb`) carrying pressure altitude in 25-ft steps. Default false.
    public var adsb: Bool
    /// Whether the cabin is pressurised. Default nil: by class (medium and large yes, small no).
    public var pressurized: Bool?
    /// Absolute bias added to every barometer reading, hPa (a BMP280 is within ±1 hPa). Default 0.
    public var barometerBiasHectopascals: Double
    /// Engine vibration of a rattling cradle, on all flight (not handling). Default nil: none.
    public var vibration: CradleVibration?
    /// Manoeuvres (docs/simulation.md "Manoeuvres"): steep turns, pull-ups, parabolas, stalls, aerotow, ground rolls,
    /// taxi. Default none (then the simulator's output is what it always was).
    public var manoeuvres: [Manoeuvre]

    /// Creates a scenario; nil speed / altitude take the class nominal values.
    public init(
        aircraftClass: AircraftClass = .medium,
        segments: [TurbulenceSegment] = [],
        accelerometerRateHz: Double = 50,
        includeGyroscope: Bool = true,
        includeBarometer: Bool = true,
        noiseRMSg: Double = 0.0015,
        gyroNoiseRMSRadiansPerSecond: Double = 0.002,
        handling: [HandlingInterval] = [],
        flat: Bool = false,
        startLatitude: Double = 47.0,
        startLongitude: Double = 8.0,
        altitudeFeet: Double? = nil,
        groundSpeedMetersPerSecond: Double? = nil,
        courseDegrees: Double = 90,
        turns: [CoordinatedTurn] = [],
        seed: UInt64 = 1,
        mountRotation: Rotation3? = nil,
        cabinAltitudeFeet: Double = 6_000,
        isaDeviationCelsius: Double = 0,
        qnhHectopascals: Double = 1013.25,
        altitudeProfile: [AltitudeWaypoint]? = nil,
        fieldElevationFeet: Double? = nil,
        gnssProfile: GNSSProfile = .ideal,
        adsb: Bool = false,
        pressurized: Bool? = nil,
        barometerBiasHectopascals: Double = 0,
        vibration: CradleVibration? = nil,
        manoeuvres: [Manoeuvre] = []
    ) {
        let parameters = AircraftResponseParameters.forClass(aircraftClass)
        self.aircraftClass = aircraftClass
        self.segments = segments
        self.accelerometerRateHz = accelerometerRateHz
        self.includeGyroscope = includeGyroscope
        self.includeBarometer = includeBarometer
        self.noiseRMSg = noiseRMSg
        self.gyroNoiseRMSRadiansPerSecond = gyroNoiseRMSRadiansPerSecond
        self.handling = handling
        self.flat = flat
        self.startLatitude = startLatitude
        self.startLongitude = startLongitude
        self.altitudeFeet = altitudeFeet ?? (parameters.nominalAltitudeMeters / 0.3048 / 100).rounded() * 100
        self.groundSpeedMetersPerSecond = groundSpeedMetersPerSecond ?? parameters.nominalTrueAirspeedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.turns = turns
        self.seed = seed
        self.mountRotation = mountRotation
        self.cabinAltitudeFeet = cabinAltitudeFeet
        self.isaDeviationCelsius = isaDeviationCelsius
        self.qnhHectopascals = qnhHectopascals
        self.altitudeProfile = altitudeProfile
        self.fieldElevationFeet = fieldElevationFeet
        self.gnssProfile = gnssProfile
        self.adsb = adsb
        self.pressurized = pressurized
        self.barometerBiasHectopascals = barometerBiasHectopascals
        self.vibration = vibration
        self.manoeuvres = manoeuvres
    }

    /// Flight length: the sum of the segment durations, seconds.
    public var durationSeconds: Double { segments.reduce(0) { $0 + max(0, $1.durationSeconds) } }

    /// Whether the cabin is pressurised: `pressurized`, or by class (medium and large).
    public var pressurizedCabin: Bool { pressurized ?? (aircraftClass != .small) }

    /// The day's atmosphere (ISA deviation and QNH).
    package var atmosphere: SimulatedAtmosphere {
        SimulatedAtmosphere(isaDeviationCelsius: isaDeviationCelsius, qnhHectopascals: qnhHectopascals)
    }

    /// Whether any field added for the altitude work differs from its default (then the simulator writes a
    /// truth track; without them its output is what it always was).
    package var usesAltitudeFeatures: Bool {
        isaDeviationCelsius != 0 || qnhHectopascals != 1013.25 || altitudeProfile != nil || fieldElevationFeet != nil
            || gnssProfile != .ideal || adsb || pressurized != nil || barometerBiasHectopascals != 0
    }

    /// The conditions line of the truth track.
    package var truthConditions: TruthConditions {
        TruthConditions(
            isaDeviationCelsius: isaDeviationCelsius, qnhHectopascals: qnhHectopascals, barometerBiasHectopascals: barometerBiasHectopascals,
            fieldElevationFeet: fieldElevationFeet, pressurizedCabin: pressurizedCabin, gnssProfile: gnssProfile, adsb: adsb)
    }

    /// A barometer bias drawn from the seed, uniform in ±1 hPa (BMP280 absolute accuracy), from the fifth output
    /// of the seed's SplitMix64 stream (the simulator uses the first four), so no other draw changes.
    package static func randomBarometerBiasHectopascals(seed: UInt64) -> Double {
        var seeds = SplitMix64(seed: seed)
        for _ in 0..<4 { _ = seeds.next() }
        let uniform = Double(seeds.next() >> 11) * 0x1.0p-53
        return 2 * uniform - 1
    }
}
