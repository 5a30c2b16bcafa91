#if Tools
package import EddyH3

// What a pilot report says once decoded (docs/nowcast.md "Pilot reports"): the pure vocabulary of the PIREP / AIREP
// decoders, shared by the text decoder, the AWC CSV reader, the EDR mapping and the storage. No I/O here.

/// The kind of an aircraft report.
package enum PilotReportKind: String, Sendable, Hashable, CaseIterable {
    /// A routine PIREP (`UA`).
    case routinePIREP = "UA"
    /// An urgent PIREP (`UUA`).
    case urgentPIREP = "UUA"
    /// An ICAO air-report (`ARP`, `ARS`, or a bare position report of the AIREP form).
    case airep = "AIREP"
}

/// Turbulence intensity as pilots report it (FAA JO 7110.10 / AIM 7-1-18 contractions), ordered smooth → extreme.
package enum ReportedTurbulenceIntensity: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// `NEG`, `SMTH`, `NIL`: smooth air reported.
    case smooth = 0
    /// `LGT`.
    case light
    /// `LGT-MOD`.
    case lightModerate
    /// `MOD`.
    case moderate
    /// `MOD-SEV`.
    case moderateSevere
    /// `SEV`.
    case severe
    /// `SEV-EXTRM`.
    case severeExtreme
    /// `EXTRM`.
    case extreme

    /// The contraction as stored and printed (`NEG`, `LGT`, `LGT-MOD`, `MOD`, `MOD-SEV`, `SEV`, `SEV-EXTRM`, `EXTRM`).
    package var code: String {
        switch self {
        case .smooth: "NEG"
        case .light: "LGT"
        case .lightModerate: "LGT-MOD"
        case .moderate: "MOD"
        case .moderateSevere: "MOD-SEV"
        case .severe: "SEV"
        case .severeExtreme: "SEV-EXTRM"
        case .extreme: "EXTRM"
        }
    }

    /// The intensity for a stored code; nil for any other text.
    package init?(code: String) {
        guard let match = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = match
    }

    /// Orders intensities from smooth to extreme.
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The intensity a report of the range `low`…`high` ("LGT TO MOD", "LGT-MOD", "OCNL MOD" after "LGT") stands for:
    /// the in-between level when the two are adjacent base levels, otherwise the worse of the two.
    package static func range(_ low: Self, _ high: Self) -> Self {
        let (a, b) = low <= high ? (low, high) : (high, low)
        switch (a, b) {
        case (.light, .moderate): return .lightModerate
        case (.moderate, .severe): return .moderateSevere
        case (.severe, .extreme): return .severeExtreme
        default: return b
        }
    }
}

/// The kind of turbulence reported with the intensity.
package enum ReportedTurbulenceType: String, Sendable, Hashable {
    /// Clear-air turbulence (`CAT`).
    case clearAir = "CAT"
    /// Chop (`CHOP`): rhythmic bumpiness without appreciable changes of altitude or attitude.
    case chop = "CHOP"
    /// Low-level wind shear (`LLWS`).
    case lowLevelWindShear = "LLWS"
}

/// Where a report was made, as written and as decoded.
package struct PilotReportLocation: Sendable, Equatable {
    /// The location as written (`KADH120005`, `62N040W`, `TXK`, `6325N02044W`).
    package var text: String
    /// The reference station (`/OV` station or its first fix), when the location names one.
    package var station: String?
    /// Radial from the station, degrees as written (magnetic for VOR radials), when given.
    package var radialDegrees: Int?
    /// Distance from the station, nautical miles, when given.
    package var distanceNM: Int?
    /// The decoded position; nil until a station table resolves a station-relative location.
    package var position: LatLng?
    /// Whether the position is the midpoint of a route (`/OV ABC-DEF`) rather than a point report.
    package var isRouteMidpoint: Bool = false
}

/// The altitude band a report covers, feet (pressure altitude, as flight levels and PIREP altitudes are read here).
package struct PilotReportAltitude: Sendable, Equatable {
    /// Lowest altitude, feet.
    package var lowFeet: Double
    /// Highest altitude, feet (equal to `lowFeet` for a single level).
    package var highFeet: Double

    /// A band from its bounds, feet (given in either order).
    package init(lowFeet: Double, highFeet: Double) {
        self.lowFeet = min(lowFeet, highFeet)
        self.highFeet = max(lowFeet, highFeet)
    }

    /// The 1,000-ft layers (`TileID.layer`) the band touches: from the layer of `lowFeet` to the layer of `highFeet`.
    package var layers: ClosedRange<Int> {
        Int((lowFeet / 1000).rounded(.down))...Int((highFeet / 1000).rounded(.down))
    }
}

/// The turbulence group of a report.
package struct ReportedTurbulence: Sendable, Equatable {
    /// The intensity (the worse end of a range, or the in-between level; `ReportedTurbulenceIntensity.range`).
    package var intensity: ReportedTurbulenceIntensity
    /// CAT, CHOP or LLWS when written.
    package var type: ReportedTurbulenceType?
    /// The altitude band given inside the group (`/TB MOD 180-280`, `BLO 250`), when different from the report's.
    package var altitude: PilotReportAltitude?
    /// The group as written.
    package var text: String
}

/// One decoded aircraft report: the fields Eddy uses, with the text they came from.
package struct DecodedPilotReport: Sendable, Equatable {
    /// PIREP (routine or urgent) or AIREP.
    package var kind: PilotReportKind
    /// The report as received (one line).
    package var rawText: String
    /// Where.
    package var location: PilotReportLocation
    /// The time of the observation written in the report (`/TM hhmm`), as hour and minute UTC.
    package var timeOfDay: (hour: Int, minute: Int)?
    /// The observation's instant, Unix seconds: `timeOfDay` placed on the latest day not after the reference time
    /// (`PilotReportTime.resolve`), or the decoded time of the AWC CSV.
    package var observationTime: Double
    /// The reporting altitude (`/FL`, `F350`); nil when unknown (`UNKN`, `DURD`, `DURC`).
    package var altitude: PilotReportAltitude?
    /// The altitude field as written (`380`, `DURGD`, `F350`).
    package var altitudeText: String?
    /// The aircraft type as written (`/TP`; ICAO Doc 8643 designator or `UNKN`); nil for AIREPs, which name a flight.
    package var aircraftType: String?
    /// The flight (AIREP call sign), when given.
    package var flight: String?
    /// The turbulence group; nil when the report says nothing about turbulence.
    package var turbulence: ReportedTurbulence?

    /// Reports compare equal field by field (the tuple is compared by its parts).
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.rawText == rhs.rawText && lhs.location == rhs.location
            && lhs.timeOfDay?.hour == rhs.timeOfDay?.hour && lhs.timeOfDay?.minute == rhs.timeOfDay?.minute
            && lhs.observationTime == rhs.observationTime && lhs.altitude == rhs.altitude && lhs.altitudeText == rhs.altitudeText
            && lhs.aircraftType == rhs.aircraftType && lhs.flight == rhs.flight && lhs.turbulence == rhs.turbulence
    }

    /// The altitude band the turbulence applies to: the group's own band, else the report's altitude.
    package var turbulenceAltitude: PilotReportAltitude? { turbulence?.altitude ?? altitude }
}

/// Why a line could not be decoded: what is wrong and what to do (printed as `FILE:LINE: …`).
package struct PilotReportLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the line.
    package var problem: String
    /// What to do about it.
    package var remedy: String

    /// An error from its problem and remedy.
    package init(_ problem: String, _ remedy: String) {
        self.problem = problem
        self.remedy = remedy
    }

    /// "problem; remedy".
    package var description: String { "\(problem); \(remedy)" }
}

/// Resolving a report's time of day to an instant.
package enum PilotReportTime {
    /// Reports may be stamped up to this many seconds after the reference time (clocks of different stations).
    package static let futureToleranceSeconds = 600.0

    /// The latest instant at `hour`:`minute` UTC not later than `referenceTime` plus the tolerance, Unix seconds.
    /// Reports are filed after the fact, so the observation lies before the file (or the receipt) that carries it.
    package static func resolve(hour: Int, minute: Int, referenceTime: Double) -> Double {
        let limit = referenceTime + futureToleranceSeconds
        let day = (limit / 86_400).rounded(.down) * 86_400
        let candidate = day + Double(hour * 3600 + minute * 60)
        return candidate <= limit ? candidate : candidate - 86_400
    }
}
#endif
