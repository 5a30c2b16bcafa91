/// Turbulence severity as the host app shows it (SkyPath scale plus `severe`), ordered from smooth to worst.
public enum Severity: Int, Sendable, Codable, CaseIterable, Comparable, Hashable {
    /// Smooth: nothing felt (reported explicitly for crossed tiles).
    case none = 0
    /// Light turbulence.
    case light = 1
    /// Between light and moderate.
    case lightModerate = 2
    /// Moderate turbulence.
    case moderate = 3
    /// Between moderate and severe.
    case moderateSevere = 4
    /// Severe turbulence.
    case severe = 5

    /// The wire / JSON name (`none`, `light`, `lightModerate`, `moderate`, `moderateSevere`, `severe`).
    public var name: String {
        switch self {
        case .none: "none"
        case .light: "light"
        case .lightModerate: "lightModerate"
        case .moderate: "moderate"
        case .moderateSevere: "moderateSevere"
        case .severe: "severe"
        }
    }

    /// Parses a wire / JSON name; nil when the name is not one of the six.
    public init?(name: String) {
        guard let match = Severity.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// Orders severities from smooth to worst.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// ICAO turbulence class of an EDR value (nil < 0.10 ≤ light < 0.20 ≤ moderate < 0.45 ≤ severe).
public enum ICAOTurbulenceClass: String, Sendable, Codable, CaseIterable, Comparable {
    /// EDR below 0.10.
    case nil_ = "nil"
    /// EDR 0.10 to 0.20.
    case light
    /// EDR 0.20 to 0.45.
    case moderate
    /// EDR 0.45 and above.
    case severe

    /// The ICAO class of an EDR value in m^(2/3) s^-1.
    public init(edr: Double) {
        switch edr {
        case ..<0.10: self = .nil_
        case ..<0.20: self = .light
        case ..<0.45: self = .moderate
        default: self = .severe
        }
    }

    private var order: Int { ICAOTurbulenceClass.allCases.firstIndex(of: self)! }
    /// Orders classes from nil to severe.
    public static func < (lhs: ICAOTurbulenceClass, rhs: ICAOTurbulenceClass) -> Bool { lhs.order < rhs.order }
}

/// Maps EDR (aircraft-independent) to a `Severity` for the viewing aircraft's class.
///
/// Medium-class bands (docs/severity.md): none < 0.10 ≤ light < 0.15 ≤ lightModerate < 0.20 ≤ moderate
/// < 0.30 ≤ moderateSevere < 0.45 ≤ severe. Other classes scale every threshold by a class factor:
/// a small aircraft feels the same EDR harder, so its thresholds are lower. See docs/severity.md.
package enum SeverityScale {
    /// Lower EDR bound (m^(2/3) s^-1) of light, lightModerate, moderate, moderateSevere, severe for the medium class.
    package static let mediumClassThresholds: [Double] = [0.10, 0.15, 0.20, 0.30, 0.45]

    /// Multiplier applied to every medium-class threshold for a viewer class (tunable table, docs/severity.md).
    package static func thresholdFactor(for viewer: AircraftClass) -> Double {
        switch viewer {
        case .small: 0.6
        case .medium: 1.0
        case .large: 1.3
        }
    }

    /// The severity an aircraft of class `viewer` would feel at `edr` (m^(2/3) s^-1); non-finite or negative EDR is `none`.
    package static func severity(edr: Double, viewer: AircraftClass) -> Severity {
        guard edr.isFinite, edr > 0 else { return .none }
        let factor = thresholdFactor(for: viewer)
        var result = Severity.none
        for (index, threshold) in mediumClassThresholds.enumerated() where edr >= threshold * factor {
            result = Severity(rawValue: index + 1)!
        }
        return result
    }

    /// The smallest EDR that reaches `severity` for `viewer` (0 for `none`): what a store query filters on.
    package static func minimumEDR(for severity: Severity, viewer: AircraftClass) -> Double {
        guard severity != .none else { return 0 }
        return mediumClassThresholds[severity.rawValue - 1] * thresholdFactor(for: viewer)
    }
}
