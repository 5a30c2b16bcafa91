package import EddyVocabulary
import Foundation

/// Published airframe figures of one aircraft type, from which its rigid-plunge gust response is derived.
///
/// Figures are public manufacturer / type-certificate data (sources per row in docs/detection.md §Per-type response).
/// The response uses a typical flying mass (`typicalMassFraction` × maximum take-off mass; for gliders the dry mass
/// with a normal crew, stated as a fraction of MTOM), the wing area, the aspect ratio b²/S and the quarter-chord sweep.
package struct AircraftAirframe: Sendable, Equatable {
    /// ICAO Doc 8643 type designator.
    package var designator: String
    /// Maximum take-off mass (MTOW / MTOM), kg.
    package var maximumTakeoffMassKilograms: Double
    /// Typical flying mass as a fraction of the maximum take-off mass.
    package var typicalMassFraction: Double
    /// Reference wing area, m².
    package var wingAreaSquareMeters: Double
    /// Wing span, m.
    package var wingSpanMeters: Double
    /// Quarter-chord sweep, degrees.
    package var quarterChordSweepDegrees: Double
    /// Taper ratio (tip chord / root chord) used to convert the quarter-chord sweep to the half-chord sweep.
    package var taperRatio: Double
    /// Typical cruise true airspeed, knots.
    package var cruiseTrueAirspeedKnots: Double
    /// Typical cruise altitude, feet.
    package var cruiseAltitudeFeet: Double

    /// Aspect ratio b²/S.
    package var aspectRatio: Double { wingSpanMeters * wingSpanMeters / wingAreaSquareMeters }
    /// Typical flying mass, kg.
    package var typicalMassKilograms: Double { maximumTakeoffMassKilograms * typicalMassFraction }
    /// Wing loading at the typical flying mass, N/m².
    package var wingLoadingNewtonsPerSquareMeter: Double {
        typicalMassKilograms * StandardAtmosphere.gravity / wingAreaSquareMeters
    }
    /// Typical cruise true airspeed, m/s.
    package var cruiseTrueAirspeedMetersPerSecond: Double { cruiseTrueAirspeedKnots * 1852 / 3600 }
    /// Typical cruise altitude, m.
    package var cruiseAltitudeMeters: Double { cruiseAltitudeFeet * 0.3048 }
    /// Mach number at the typical cruise speed and altitude (ISA speed of sound).
    package var cruiseMach: Double {
        let temperature = StandardAtmosphere.temperatureKelvin(altitudeMeters: min(20_000, max(0, cruiseAltitudeMeters)))
        return cruiseTrueAirspeedMetersPerSecond / (1.4 * StandardAtmosphere.gasConstant * temperature).squareRoot()
    }
    /// Half-chord sweep, degrees: tan Λ_c/2 = tan Λ_c/4 − (1 − λ) / (A (1 + λ)) (DATCOM planform relation).
    package var halfChordSweepDegrees: Double {
        let tanQuarter = tan(quarterChordSweepDegrees * .pi / 180)
        return atan(tanQuarter - (1 - taperRatio) / (aspectRatio * (1 + taperRatio))) * 180 / .pi
    }
    /// Lift-curve slope at the typical cruise Mach number, per radian (`LiftCurveSlope.datcom`).
    package var liftCurveSlopePerRadian: Double {
        LiftCurveSlope.datcom(aspectRatio: aspectRatio, halfChordSweepDegrees: halfChordSweepDegrees, mach: cruiseMach)
    }
}

/// Finite-wing lift-curve slope from the planform (Helmbold; USAF DATCOM §4.1.3.2 with sweep and compressibility).
package enum LiftCurveSlope {
    /// C_Lα = 2πA / (2 + √(A²β²/κ² (1 + tan²Λ_c/2 / β²) + 4)), β = √(1 − M²), κ = 0.95 (section slope / 2π); per radian.
    ///
    /// With Λ = 0 and M = 0 (and κ = 1) this is Helmbold's 2πA / (2 + √(A² + 4)). Mach is clamped to 0…0.9.
    package static func datcom(aspectRatio a: Double, halfChordSweepDegrees sweep: Double, mach: Double, kappa: Double = 0.95) -> Double {
        let m = min(0.9, max(0, mach))
        let beta2 = 1 - m * m
        let tanSweep = tan(sweep * .pi / 180)
        let root = (a * a * beta2 / (kappa * kappa) * (1 + tanSweep * tanSweep / beta2) + 4).squareRoot()
        return 2 * Double.pi * a / (2 + root)
    }

    /// Helmbold's unswept, incompressible form 2πA / (2 + √(A² + 4)), per radian.
    package static func helmbold(aspectRatio a: Double) -> Double {
        2 * Double.pi * a / (2 + (a * a + 4).squareRoot())
    }
}

/// The per-type airframe table (docs/detection.md §Per-type response lists every row with its source).
package enum AircraftAirframeTable {
    /// The airframe of a designator (case-insensitive, spaces ignored); nil when the type has no figures.
    package static func airframe(designator: String) -> AircraftAirframe? {
        byDesignator[designator.trimmingCharacters(in: .whitespaces).uppercased()]
    }

    /// The type whose airframe stands for a class when no type is known (and whose name simulated flights carry).
    package static func representativeDesignator(_ aircraftClass: AircraftClass) -> String {
        switch aircraftClass {
        case .small: "C172"
        case .medium: "B738"
        case .large: "B77W"
        }
    }

    /// The `responseGain` fitted on JSBSim's 6-DOF model of the type, where one exists (docs/detection.md §Calibration):
    /// B738 ← JSBSim `737`, C172 ← `c172p`, B788 ← `787-8`, DHC6 ← `DHC6`. Other types take their class's gain.
    package static func calibratedResponseGain(designator: String) -> Double? {
        calibratedGains[designator.trimmingCharacters(in: .whitespaces).uppercased()]
    }

    private static let calibratedGains: [String: Double] = ["B738": 0.67, "C172": 0.93, "B788": 0.54, "DHC6": 0.64]

    /// Every row, in table order.
    package static let all: [AircraftAirframe] = rows.map {
        AircraftAirframe(
            designator: $0.0, maximumTakeoffMassKilograms: $0.1, typicalMassFraction: $0.2, wingAreaSquareMeters: $0.3,
            wingSpanMeters: $0.4, quarterChordSweepDegrees: $0.5, taperRatio: $0.6, cruiseTrueAirspeedKnots: $0.7,
            cruiseAltitudeFeet: $0.8)
    }

    private static let byDesignator: [String: AircraftAirframe] = Dictionary(
        all.map { ($0.designator, $0) }, uniquingKeysWith: { first, _ in first })

    // Typical mass fractions: jets and turboprops mid-cruise 0.85 MTOW; light piston / single turboprop 0.9 MTOW
    // (they usually fly near full); gliders dry with a normal crew (90 kg per seat), given as a fraction of MTOM.
    private static let airliner = 0.85
    private static let light = 0.9

    // (designator, MTOW kg, mass fraction, S m², b m, Λc/4 °, taper λ, cruise TAS kt, cruise altitude ft)
    private static let rows: [(String, Double, Double, Double, Double, Double, Double, Double, Double)] = [
        // Airbus single-aisle (A320 family TCDS EASA.A.064; span without / with sharklets)
        ("A319", 75_500, airliner, 122.6, 34.10, 25, 0.24, 450, 35_000),
        ("A320", 78_000, airliner, 122.6, 34.10, 25, 0.24, 450, 35_000),
        ("A321", 93_500, airliner, 122.6, 34.10, 25, 0.24, 450, 35_000),
        ("A19N", 75_500, airliner, 122.6, 35.80, 25, 0.24, 450, 35_000),
        ("A20N", 79_000, airliner, 122.6, 35.80, 25, 0.24, 450, 35_000),
        ("A21N", 97_000, airliner, 122.6, 35.80, 25, 0.24, 450, 35_000),
        ("BCS1", 63_100, airliner, 112.3, 35.10, 27, 0.25, 450, 35_000),
        ("BCS3", 70_900, airliner, 112.3, 35.10, 27, 0.25, 450, 35_000),
        // Boeing single-aisle (737 TCDS FAA A16WE; Boeing airport planning documents)
        ("B737", 70_080, airliner, 124.6, 35.80, 25, 0.28, 450, 35_000),
        ("B738", 79_010, airliner, 124.6, 35.80, 25, 0.28, 450, 35_000),
        ("B739", 85_130, airliner, 124.6, 35.80, 25, 0.28, 450, 35_000),
        ("B37M", 80_300, airliner, 127.0, 35.90, 25, 0.28, 453, 35_000),
        ("B38M", 82_200, airliner, 127.0, 35.90, 25, 0.28, 453, 35_000),
        ("B39M", 88_300, airliner, 127.0, 35.90, 25, 0.28, 453, 35_000),
        ("B752", 115_680, airliner, 185.25, 38.05, 25, 0.24, 458, 37_000),
        ("B753", 123_600, airliner, 185.25, 38.05, 25, 0.24, 458, 37_000),
        // Wide-bodies
        ("B763", 186_880, airliner, 283.3, 47.57, 31.5, 0.21, 470, 37_000),
        ("B764", 204_120, airliner, 290.7, 51.92, 31.5, 0.21, 470, 37_000),
        ("B772", 247_210, airliner, 427.8, 60.93, 31.6, 0.15, 490, 37_000),
        ("B77L", 347_800, airliner, 436.8, 64.80, 31.6, 0.15, 490, 37_000),
        ("B77W", 351_530, airliner, 436.8, 64.80, 31.6, 0.15, 490, 37_000),
        ("B788", 227_930, airliner, 377.0, 60.12, 32.2, 0.15, 488, 39_000),
        ("B789", 254_011, airliner, 377.0, 60.12, 32.2, 0.15, 488, 39_000),
        ("B78X", 254_011, airliner, 377.0, 60.12, 32.2, 0.15, 488, 39_000),
        ("B744", 396_890, airliner, 525.0, 64.44, 37.5, 0.24, 490, 35_000),
        ("B748", 447_700, airliner, 554.0, 68.40, 37.5, 0.24, 490, 37_000),
        ("A332", 242_000, airliner, 361.6, 60.30, 30, 0.22, 470, 37_000),
        ("A333", 242_000, airliner, 361.6, 60.30, 30, 0.22, 470, 37_000),
        ("A339", 251_000, airliner, 465.0, 64.00, 30, 0.22, 470, 37_000),
        ("A359", 283_000, airliner, 442.0, 64.75, 31.9, 0.20, 488, 39_000),
        ("A35K", 319_000, airliner, 464.3, 64.75, 31.9, 0.20, 488, 39_000),
        ("A388", 575_000, airliner, 845.0, 79.75, 33.5, 0.22, 488, 37_000),
        // Regional jets
        ("E170", 37_200, airliner, 72.72, 26.00, 23.5, 0.28, 440, 35_000),
        ("E75L", 40_370, airliner, 72.72, 28.65, 23.5, 0.28, 440, 35_000),
        ("E175", 40_370, airliner, 72.72, 28.65, 23.5, 0.28, 440, 35_000),
        ("E190", 51_800, airliner, 92.53, 28.72, 23.5, 0.28, 447, 35_000),
        ("E195", 52_290, airliner, 92.53, 28.72, 23.5, 0.28, 447, 35_000),
        ("E290", 56_400, airliner, 103.0, 33.72, 23.5, 0.25, 450, 35_000),
        ("E295", 61_500, airliner, 103.0, 35.12, 23.5, 0.25, 450, 35_000),
        ("CRJ2", 24_040, airliner, 48.35, 21.21, 26.9, 0.29, 424, 35_000),
        ("CRJ7", 34_020, airliner, 70.60, 23.24, 26.9, 0.29, 450, 35_000),
        ("CRJ9", 38_330, airliner, 70.60, 24.85, 26.9, 0.29, 450, 35_000),
        ("CRJX", 41_640, airliner, 77.40, 26.18, 26.9, 0.29, 450, 35_000),
        // Regional turboprops
        ("AT72", 22_800, airliner, 61.00, 27.05, 3, 0.55, 275, 17_000),
        ("AT76", 23_000, airliner, 61.00, 27.05, 3, 0.55, 275, 17_000),
        ("AT45", 18_600, airliner, 54.50, 24.57, 3, 0.55, 300, 17_000),
        ("DH8D", 29_260, airliner, 63.08, 28.42, 3, 0.50, 360, 25_000),
        // Business jets
        ("GLF6", 45_178, airliner, 119.2, 30.36, 36, 0.28, 488, 45_000),
        ("GLEX", 44_452, airliner, 94.95, 28.65, 35, 0.28, 488, 43_000),
        ("C25A", 5_613, airliner, 24.50, 15.10, 0, 0.45, 413, 35_000),
        ("C510", 3_930, airliner, 19.51, 13.16, 0, 0.45, 340, 35_000),
        // Light aircraft and small turboprops
        ("C152", 757, light, 14.86, 10.11, 0, 0.70, 107, 4_000),
        ("C172", 1_157, light, 16.17, 11.00, 0, 0.70, 122, 6_000),
        ("C182", 1_406, light, 16.17, 11.00, 0, 0.70, 145, 8_000),
        ("C206", 1_633, light, 16.17, 11.00, 0, 0.70, 151, 8_000),
        ("C208", 3_969, light, 25.96, 15.88, 0, 0.60, 180, 10_000),
        ("PA28", 1_157, light, 15.79, 10.67, 0, 0.70, 125, 6_000),
        ("P28A", 1_157, light, 15.79, 10.67, 0, 0.70, 125, 6_000),
        ("PA46", 1_969, light, 16.26, 13.11, 0, 0.50, 213, 25_000),
        ("SR20", 1_429, light, 13.46, 11.68, 0, 0.50, 155, 8_000),
        ("SR22", 1_633, light, 13.46, 11.68, 0, 0.50, 183, 8_000),
        ("DA40", 1_200, light, 13.54, 11.94, 0, 0.55, 147, 8_000),
        ("DA42", 1_785, light, 16.29, 13.42, 0, 0.55, 170, 10_000),
        ("BE20", 5_670, light, 28.15, 16.61, 0, 0.50, 289, 25_000),
        ("BE36", 1_656, light, 16.80, 10.21, 0, 0.60, 176, 8_000),
        ("PC12", 4_740, light, 25.81, 16.28, 0, 0.50, 280, 25_000),
        ("TBM9", 3_354, light, 18.00, 12.83, 0, 0.50, 330, 28_000),
        ("DHC6", 5_670, light, 39.02, 19.81, 0, 1.00, 150, 10_000),
        // Gliders and motor gliders: dry, normal crew (90 kg a seat) over MTOM; cruise = a typical inter-thermal
        // speed at a typical working height.
        ("AS21", 600, 540.0 / 600, 17.95, 17.00, 0, 0.40, 54, 5_000),   // ASK 21: 360 kg empty + 2 × 90
        ("LS4", 525, 325.0 / 525, 10.50, 15.00, 0, 0.40, 59, 5_000),    // LS4: 235 kg empty + 90
        ("LS8", 525, 340.0 / 525, 10.50, 15.00, 0, 0.40, 62, 5_000),    // LS8 (15 m): 250 kg empty + 90
        ("DG1T", 750, 595.0 / 750, 17.53, 20.00, 0, 0.35, 59, 5_000),   // DG-1000T (20 m): 415 kg empty + 2 × 90
        ("DUOD", 700, 590.0 / 700, 16.40, 20.00, 0, 0.35, 59, 5_000),   // Duo Discus: 410 kg empty + 2 × 90
        ("AS27", 500, 335.0 / 500, 9.00, 15.00, 0, 0.40, 62, 5_000),    // ASW 27: 245 kg empty + 90
        ("VENT", 525, 320.0 / 525, 9.67, 15.00, 0, 0.40, 62, 5_000),    // Ventus-2 (15 m): 230 kg empty + 90
        ("SF25", 610, 580.0 / 610, 18.20, 15.30, 0, 0.50, 81, 4_000),   // SF 25C Falke: 400 kg empty + 2 × 90
        // GLID (type not designated): the median of the table's single-seat 15-m gliders (LS4, LS8, ASW 27, Ventus-2):
        // 330 kg flying, 10.1 m², 15 m, 60 kt — wing loading 320 N/m², a club or racing single-seater's.
        ("GLID", 525, 330.0 / 525, 10.10, 15.00, 0, 0.40, 60, 5_000),
    ]
}
