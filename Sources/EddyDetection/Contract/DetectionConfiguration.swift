package import EddyVocabulary
import Foundation

/// Tunables of the detection pipeline; every default is explained in docs/detection.md.
package struct DetectionConfiguration: Sendable {
    /// Class of the recording aircraft: response model, band and own-class severity.
    package var aircraftClass: AircraftClass
    /// Response parameters (W/S, C_Lα, nominal speed / altitude, band, calibration gain). Default: the class table.
    package var response: AircraftResponseParameters
    /// Scale per-second EDR by the model's median-bias factor so minute medians are unbiased. Default true.
    package var correctMedianBias: Bool
    /// Internal uniform rate the accelerometer is averaged to, Hz. Default 25.
    package var internalRateHz: Double
    /// Length of the EDR variance window, seconds. Default 10.
    package var windowSeconds: Int
    /// Time constant of the gravity low-pass, seconds. Default 5.
    package var gravityTimeConstantSeconds: Double
    /// Nominal accelerometer white noise per axis, RMS g (its in-band variance is subtracted). Default 0.0015.
    package var sensorNoiseRMSg: Double
    /// Below this ground speed the aircraft is on the ground and nothing is measured, knots. Default 50.
    package var groundSpeedGateKnots: Double
    /// A fix's speed is used by the ground gate only while the fix is at most this old, seconds. Default 3.
    package var groundSpeedMaxAgeSeconds: Double
    /// How the device is installed: `.cradle` (flat = lying on a seat) or `.fixed` (flat is correct). Default `.cradle`.
    package var mount: DeviceMount
    /// Estimate and remove the gyroscope's zero-rate offset before the turn gate. Default true.
    package var estimateGyroBias: Bool
    /// Turn rate (gyro |ω̄| low-passed with τ = 2 s, or GNSS track rate) above which a turn is "hard", degrees/s. Default 4.
    package var turnRateGateDegreesPerSecond: Double
    /// A gyro reading above this means the device is handled, rad/s. Default 1.
    package var handlingGyroPeakRadiansPerSecond: Double
    /// Gyro RMS within a 40 ms tick above this means handled, rad/s. Default 0.5.
    package var handlingGyroRMSRadiansPerSecond: Double
    /// Accelerometer component across the apparent vertical above this means handled, g. Default 0.25.
    package var handlingTransverseG: Double
    /// Gradual handling: time constant of the reference vertical the tilt tests measure from, seconds. Default 10. The
    /// calibrated direction can be degrees away from where the force has settled since (attitude, trim), and a pick-up
    /// that first turns towards it looks like a swing coming back (issue 28); a τ = 10 s vertical follows the aircraft
    /// and damps a 0.3-Hz swing 19-fold, and moves < 1° in a pick-up's first 2 s.
    package var handlingTiltReferenceSeconds: Double
    /// Gradual handling, tilt test: angle of the τ = 0.25 s vertical from the reference one above which the excess is
    /// integrated, degrees. Default 8.
    package var handlingTiltDegrees: Double
    /// Gradual handling, tilt test: integrated excess angle of one excursion that means handled, degree-seconds. Default 1.
    package var handlingTiltDegreeSeconds: Double
    /// Gradual handling, tilt-trend test, judged only on ticks without gyro samples: the quick vertical must be this far
    /// from the reference one and have moved away from it by this much within `handlingTiltTrendSeconds`, never turning
    /// back, degrees. Default 5.5: a 10° slide over 3 s is out of position within 2 s. Its cost without gyro: a brisk
    /// sideslip at cruise turns the force the same way and is taken out of position (not measured, never a wrong
    /// report); with a gyro the rotation test tells the two apart, so the trend is not used (docs/detection.md §2).
    package var handlingTiltTrendDegrees: Double
    /// Gradual handling, tilt-trend test: the window over which the tilt must grow without turning back, seconds. Default 1.5.
    package var handlingTiltTrendSeconds: Double
    /// Gradual handling, tilt-trend test: the most the tilt may fall back within the window (sensor noise, a rattling
    /// cradle's aliased remainder), degrees. Default 0.5.
    package var handlingTiltTrendDrawdownDegrees: Double
    /// Gradual handling, gyro test: the vertical must have turned by more than this over the window, degrees. Default 3.
    package var handlingRotationDegrees: Double
    /// Gradual handling, gyro test: window over which measured and gyro-predicted turns are compared, seconds. Default 0.5.
    package var handlingRotationWindowSeconds: Double
    /// Gradual handling, gyro test: how long the turn must agree with the gyro, seconds. Default 0.4.
    package var handlingRotationHoldSeconds: Double
    /// Minute and tile reports are held back this long after their end and dropped if the device is taken out of
    /// position (or into noise) within it, seconds. Default 3 (gradual handling is recognised within 2 s).
    package var handlingLookbackSeconds: Double
    /// Departure of the apparent vertical from the calibrated direction that means "moved", degrees. Default 10.
    package var moveAngleDegrees: Double
    /// How long the departure must hold, seconds. Default 1.5.
    package var moveHoldSeconds: Double
    /// Steady time needed to (re-)calibrate, seconds. Default 10.
    package var steadySecondsToCalibrate: Double
    /// |û_z| > cos(this) means the device lies flat, degrees. Default 15.
    package var horizontalAngleDegrees: Double
    /// RMS of the accelerometer across the apparent vertical within a tick (vibration, taps) above this means "in noise", g. Default 0.05.
    package var noiseThresholdG: Double
    /// No measurement during this time after the device is (re-)calibrated, seconds. Default 30.
    package var mountSettleSeconds: Double
    /// No measurement during this time after any other gate (turn, ground, data gap), seconds. Default 20.
    package var gateSettleSeconds: Double
    /// A minute needs this many valid per-second estimates to be reported. Default 30.
    package var minimumValidSecondsPerMinute: Int
    /// A tile crossing needs this many valid per-second estimates to be reported. Default 10.
    package var minimumValidSecondsPerTile: Int
    /// Salt of the deterministic tile-report UUIDs (e.g. a flight id hash). Default 0.
    package var reportSalt: UInt64
    /// Maps a position to a tile cell. Default `TileIndexer.h3Resolution5`.
    package var tileIndexer: TileIndexer
    /// Gate manoeuvres by the load factor held away from 1 g (`ManoeuvreGate`). Default true.
    package var manoeuvreGate: Bool
    /// Departure of the τ = 2 s load factor from steady flight that is a manoeuvre, g (at least). Default 0.06.
    package var manoeuvreLoadThresholdG: Double
    /// The threshold is at least this multiple of the recent RMS in the upper EDR band (turbulence's own slow part). Default 7.
    package var manoeuvreTurbulenceFactor: Double
    /// Time constant of the load-factor low-pass the manoeuvre gate compares, seconds. Default 2.
    package var manoeuvreTimeConstantSeconds: Double
    /// Across-vertical fluctuation correlated with the load factor above this is a surge (tow, braking). Default 0.7 for the
    /// small class (gliders are towed) unless the type is a known powered aircraft; infinity (no surge test) for those and
    /// for larger classes, whose severe turbulence correlates too.
    package var manoeuvreSurgeCorrelation: Double
    /// Rotation speed of the class, knots: once on the ground, the aircraft stays there below it. Default: small 55,
    /// medium 145, large 160.
    package var rotationSpeedKnots: Double
    /// A fresh speed below 1.3 × rotation speed falling faster than this over 3 s is a landing roll, m/s². Default 1.2.
    package var brakingMetersPerSecondSquared: Double
    /// Ground vibration without location (docs/detection.md §5): while no fresh speed is known, the band's output whose
    /// share of power below `groundVibrationSplitHz` (τ = `groundVibrationTimeConstantSeconds`) is below this is taken
    /// for a ground roll or taxi and gated like the ground gate. Default 0.15; 0 switches the cue off.
    package var groundVibrationLowShare: Double
    /// Ground vibration: the split frequency, Hz. Default 1 (airborne load-factor power lies mostly below it, a rolling
    /// aircraft's above it, at and above the gear's heave resonance).
    package var groundVibrationSplitHz: Double
    /// Ground vibration: time constant of the two power estimates, seconds. Default 10.
    package var groundVibrationTimeConstantSeconds: Double
    /// Ground vibration: how long the share must stay below `groundVibrationLowShare`, seconds. Default 5 (at an abrupt
    /// onset of turbulence the band's power rises at once and its low part ≈ 0.5 s later, the 1-Hz low-pass's delay).
    package var groundVibrationHoldSeconds: Double
    /// Ground vibration is judged only while the band's power reads at least this fraction of the class's light
    /// threshold as EDR (below it nothing would read light, and sensor noise alone has no airborne spectrum). Default 0.5.
    package var groundVibrationMinimumLightFraction: Double

    /// Accelerometer rate below which nothing is measured: 2.5 × the top of the EDR band (Nyquist, 2×, plus a margin
    /// so that power folded back from above the band top stays out of the band), Hz. Jets 5 Hz, light aircraft 10 Hz.
    package var minimumSampleRateHz: Double { 2.5 * response.bandHighHz }

    /// Creates a configuration for `aircraftClass` whose response is the type's own where `typeDesignator` is known
    /// (`AircraftResponseParameters.forType`), the class's otherwise.
    package init(aircraftClass: AircraftClass, typeDesignator: String?) {
        self.init(aircraftClass: aircraftClass)
        response = .forType(designator: typeDesignator, aircraftClass: aircraftClass)
        // A known powered type is never on tow: its severe turbulence must not be gated as rope surges (JSBSim DHC-6,
        // seed 102: the EDR 0.29 segment). Unknown small types keep the test: a glider pilot may not give a type.
        if let typeDesignator, let type = AircraftTypeTable.type(designator: typeDesignator), !type.isGlider {
            manoeuvreSurgeCorrelation = .infinity
        }
    }

    /// Creates a configuration with the documented defaults for `aircraftClass`.
    package init(aircraftClass: AircraftClass) {
        self.aircraftClass = aircraftClass
        response = .forClass(aircraftClass)
        correctMedianBias = true
        internalRateHz = 25
        windowSeconds = 10
        gravityTimeConstantSeconds = 5
        sensorNoiseRMSg = 0.0015
        groundSpeedGateKnots = 50
        groundSpeedMaxAgeSeconds = 3
        mount = .cradle
        estimateGyroBias = true
        turnRateGateDegreesPerSecond = 4
        handlingGyroPeakRadiansPerSecond = 1
        handlingGyroRMSRadiansPerSecond = 0.5
        handlingTransverseG = 0.25
        handlingTiltReferenceSeconds = 10
        handlingTiltDegrees = 8
        handlingTiltDegreeSeconds = 1
        handlingTiltTrendDegrees = 5.5
        handlingTiltTrendSeconds = 1.5
        handlingTiltTrendDrawdownDegrees = 0.5
        handlingRotationDegrees = 3
        handlingRotationWindowSeconds = 0.5
        handlingRotationHoldSeconds = 0.4
        handlingLookbackSeconds = 3
        moveAngleDegrees = 10
        moveHoldSeconds = 1.5
        steadySecondsToCalibrate = 10
        horizontalAngleDegrees = 15
        noiseThresholdG = 0.05
        mountSettleSeconds = 30
        gateSettleSeconds = 20
        minimumValidSecondsPerMinute = 30
        minimumValidSecondsPerTile = 10
        reportSalt = 0
        tileIndexer = .h3Resolution5
        manoeuvreGate = true
        manoeuvreLoadThresholdG = 0.06
        manoeuvreTurbulenceFactor = 7
        manoeuvreTimeConstantSeconds = 2
        // Tow surges happen to gliders (small class). A jet's severe turbulence moves the across- and along-vertical loads
        // together too (JSBSim 737, seed 102: 156 s of EDR 0.26–0.56 gated as surges), so larger classes skip the test.
        manoeuvreSurgeCorrelation = aircraftClass == .small ? 0.7 : .infinity
        rotationSpeedKnots = switch aircraftClass {
        case .small: 55
        case .medium: 145
        case .large: 160
        }
        brakingMetersPerSecondSquared = 1.2
        groundVibrationLowShare = 0.15
        groundVibrationSplitHz = 1
        groundVibrationTimeConstantSeconds = 10
        groundVibrationHoldSeconds = 5
        groundVibrationMinimumLightFraction = 0.5
    }
}
