package import EddyVocabulary

/// The CSV files of a flight directory, in the fixed order the reader breaks time ties with.
///
/// When samples of several files carry the same `t`, the merged stream gives location first, then
/// barometer, gyroscope and accelerometer last: context (where, how high, how the device turns) is
/// known before the accelerometer sample it applies to.
public enum SensorFileKind: Int, Sendable, CaseIterable, Comparable, Hashable {
    /// `location.csv`.
    case location = 0
    /// `barometer.csv`.
    case barometer = 1
    /// `gyroscope.csv`.
    case gyroscope = 2
    /// `accelerometer.csv` (the only required one).
    case accelerometer = 3

    /// File name inside the flight directory.
    public var fileName: String {
        switch self {
        case .location: "location.csv"
        case .barometer: "barometer.csv"
        case .gyroscope: "gyroscope.csv"
        case .accelerometer: "accelerometer.csv"
        }
    }

    /// Column names this file understands, in the order the writer writes them (value slot = index).
    public var columns: [String] {
        switch self {
        case .accelerometer: ["t", "ax", "ay", "az"]
        case .gyroscope: ["t", "wx", "wy", "wz"]
        case .barometer: ["t", "pressure_hpa"]
        case .location: ["t", "lat", "lon", "alt_m", "h_acc_m", "v_acc_m", "speed_mps", "course_deg", "pressure_alt_ft", "source"]
        }
    }

    /// How many leading entries of `columns` are required.
    var requiredColumnCount: Int {
        switch self {
        case .accelerometer, .gyroscope: 4
        case .barometer: 2
        case .location: 3
        }
    }

    /// Whether the file must be present in a flight directory.
    public var isRequired: Bool { self == .accelerometer }

    /// The file a sample goes to.
    package init(_ sample: SensorSample) {
        switch sample {
        case .accelerometer: self = .accelerometer
        case .gyroscope: self = .gyroscope
        case .barometer: self = .barometer
        case .location: self = .location
        }
    }

    /// Orders like the tie-break order.
    public static func < (lhs: SensorFileKind, rhs: SensorFileKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

