#if Tools
package import EddyVocabulary

/// The EDR band a reported intensity stands for, for the class of the aircraft that reported it (docs/nowcast.md
/// "Pilot reports: intensity → EDR").
///
/// A pilot reports what the aircraft felt, and a small aircraft feels a given EDR harder than a large one, so the same
/// word means a lower EDR when a Cessna says it than when a 777 does. The bands are the engine's own six-level scale
/// for a medium aircraft (`SeverityScale.mediumClassThresholds`: 0.10, 0.15, 0.20, 0.30, 0.45 m^(2/3) s^-1; the ICAO
/// classes nil < 0.10 ≤ light < 0.20 ≤ moderate < 0.45 ≤ severe of Annex 3 split at 0.15 and 0.30) scaled by the
/// reporter's class factor (`SeverityScale.thresholdFactor`: small 0.6, medium 1.0, large 1.3; docs/severity.md). A
/// report mapped this way reads back, for a viewer of the reporter's class, as the severity the pilot reported. The
/// in-situ EDR programme calibrated these words against measured EDR for transport aircraft (Sharman et al. 2014, J.
/// Appl. Meteor. Climatol. 53, 1416–1432): the ICAO bands are that calibration's result for medium aircraft.
/// Extreme has no ICAO band: 0.70 × factor is Eddy's choice (about 1.5 × the severe threshold).
package enum PilotReportEDR {
    /// Lower bound of extreme turbulence for a medium aircraft, m^(2/3) s^-1 (Eddy's choice; no ICAO band).
    package static let extremeMediumClassThreshold = 0.70

    /// The EDR band `[lower, upper)` (m^(2/3) s^-1; `upper` nil when open) that `intensity` stands for when an
    /// aircraft of class `reporter` reports it.
    package static func band(for intensity: ReportedTurbulenceIntensity, reporter: AircraftClass) -> (lower: Double, upper: Double?) {
        let factor = SeverityScale.thresholdFactor(for: reporter)
        let t = SeverityScale.mediumClassThresholds   // light, lightModerate, moderate, moderateSevere, severe
        let medium: (Double, Double?) = switch intensity {
        case .smooth: (0, t[0])
        case .light: (t[0], t[1])
        case .lightModerate: (t[1], t[2])
        case .moderate: (t[2], t[3])
        case .moderateSevere: (t[3], t[4])
        case .severe: (t[4], extremeMediumClassThreshold)
        case .severeExtreme: (t[4], nil)
        case .extreme: (extremeMediumClassThreshold, nil)
        }
        return (medium.0 * factor, medium.1.map { $0 * factor })
    }

    /// The reporter's class from its ICAO Doc 8643 designator (`AircraftTypeTable`); medium, marked assumed, when the
    /// type is unknown, `UNKN` or not given (AIREPs name a flight, not a type): PIREPs and AIREPs come mostly from
    /// transport aircraft, and medium is the class the ICAO bands were made for.
    package static func reporterClass(designator: String?) -> (aircraftClass: AircraftClass, assumed: Bool) {
        guard let designator, let type = AircraftTypeTable.type(designator: designator) else { return (.medium, true) }
        return (type.aircraftClass, false)
    }
}
#endif
