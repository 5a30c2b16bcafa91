/// A barometer's measured bias: reading − true static pressure.
public struct BarometerCalibration: Sendable, Equatable, Codable {
    /// How a calibration was made.
    public enum Method: String, Sendable, Equatable, Codable {
        /// From a known field elevation and QNH, on the ground and still.
        case manual
        /// In the background, against an external pressure altitude (ADS-B / AHRS) in an unpressurised cabin.
        case background
    }

    /// Bias: reading − true static pressure, hPa (subtract it from readings).
    public var biasHectopascals: Double
    /// Standard uncertainty (1σ) of the bias, hPa.
    public var uncertaintyHectopascals: Double
    /// When it was made, Unix epoch seconds.
    public var calibratedAt: Double
    /// How it was made.
    public var method: Method

    /// Creates a calibration.
    public init(biasHectopascals: Double, uncertaintyHectopascals: Double, calibratedAt: Double, method: Method) {
        self.biasHectopascals = biasHectopascals
        self.uncertaintyHectopascals = uncertaintyHectopascals
        self.calibratedAt = calibratedAt
        self.method = method
    }
}

/// The barometer calibration as the host sees it.
public enum BarometerCalibrationState: Sendable, Equatable {
    /// No calibration: the sensor's stated absolute accuracy applies (BMP280: ±1 hPa).
    case uncalibrated
    /// A calibration younger than the staleness limit, in use.
    case calibrated(BarometerCalibration)
    /// A calibration older than the staleness limit: not used; recalibrate (manual, or fly with an external source).
    case stale(BarometerCalibration)

    /// Short name for logs and JSON: `uncalibrated`, `calibrated`, `stale`.
    public var name: String {
        switch self {
        case .uncalibrated: "uncalibrated"
        case .calibrated: "calibrated"
        case .stale: "stale"
        }
    }
}

/// Why a manual calibration was refused (the altitude-service reference's "manual calibration failed" and
/// "pressure changing too fast or user not still").
public enum BarometerCalibrationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No barometer reading in the last 10 s.
    case noPressure
    /// Pressure changed by more than the limit over the last 10 s (door, pressurisation, moving vertically).
    case pressureChangingTooFast(hectopascalsPerSecond: Double)
    /// The aircraft is moving (ground speed above 2 m/s).
    case moving(groundSpeedMetersPerSecond: Double)
    /// The field elevation or QNH is not a plausible value.
    case invalidReference(String)
    /// The cabin is pressurised (or not known to be unpressurised while airborne): a cabin pressure cannot be calibrated.
    case pressurizedCabin

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .noPressure: "no barometer reading in the last 10 s: wait for pressure data and try again"
        case .pressureChangingTooFast(let rate):
            "pressure is changing by \(rate) hPa/s: calibrate with doors closed, standing still, before pressurisation"
        case .moving(let speed): "the aircraft is moving (\(speed) m/s): calibrate while stopped"
        case .invalidReference(let why): why
        case .pressurizedCabin: "the cabin is pressurised: the barometer cannot be calibrated against the outside air"
        }
    }
}
