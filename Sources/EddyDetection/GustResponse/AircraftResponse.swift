package import EddyVocabulary
import Foundation

/// Vertical-gust spectrum of the atmosphere: von Kármán form with the EDR relation σ_w² = 1.252 (εL)^(2/3).
///
/// Sources: MIL-F-8785C / MIL-HDBK-1797 spectra; the 1.252 factor from matching the von Kármán
/// high-frequency asymptote to Kolmogorov's transverse spectrum (docs/detection.md §Spectrum).
package enum VonKarmanSpectrum {
    /// Turbulence integral length scale above 2,000 ft, metres (2,500 ft).
    package static let lengthScaleMeters = 762.0

    /// Vertical gust variance (m²/s²) for an EDR value ε^(1/3) in m^(2/3) s^-1.
    package static func verticalVariance(edr: Double, lengthScaleMeters L: Double = lengthScaleMeters) -> Double {
        // σ² = 1.252 (ε L)^(2/3) with ε = edr³  ⇒  σ² = 1.252 · edr² · L^(2/3)
        1.252 * edr * edr * pow(L, 2.0 / 3.0)
    }

    /// One-sided vertical gust PSD in (m/s)²/Hz at time frequency `frequencyHz`, flying at `trueAirspeed` m/s.
    package static func verticalPSD(
        frequencyHz f: Double, trueAirspeedMetersPerSecond v: Double, variance: Double,
        lengthScaleMeters L: Double = lengthScaleMeters
    ) -> Double {
        let omega = 2 * Double.pi * f / v          // spatial frequency, rad/m
        let x = 1.339 * L * omega
        let x2 = x * x
        let phi = variance * (L / Double.pi) * (1 + (8.0 / 3.0) * x2) / pow(1 + x2, 11.0 / 6.0)
        return phi * 2 * Double.pi / v
    }
}

/// Per-class aircraft parameters for the rigid-plunge gust response and the detection band.
package struct AircraftResponseParameters: Sendable, Equatable {
    /// Wing loading W/S, N/m².
    package var wingLoadingNewtonsPerSquareMeter: Double
    /// Lift-curve slope C_Lα, per radian.
    package var liftCurveSlopePerRadian: Double
    /// True airspeed assumed when no speed is known, m/s.
    package var nominalTrueAirspeedMetersPerSecond: Double
    /// Altitude assumed when none is known, metres.
    package var nominalAltitudeMeters: Double
    /// Lower edge of the detection band-pass, Hz.
    package var bandLowHz: Double
    /// Upper edge of the detection band-pass, Hz.
    package var bandHighHz: Double
    /// Calibration of the rigid-plunge response to a 6-DOF aircraft (JSBSim), applied by the estimator and the
    /// simulator alike: the class's gust response is `responseGain` × H_plunge (docs/detection.md §Calibration).
    package var responseGain: Double

    /// Creates a parameter set.
    package init(
        wingLoadingNewtonsPerSquareMeter: Double, liftCurveSlopePerRadian: Double,
        nominalTrueAirspeedMetersPerSecond: Double, nominalAltitudeMeters: Double,
        bandLowHz: Double, bandHighHz: Double, responseGain: Double = 1
    ) {
        self.wingLoadingNewtonsPerSquareMeter = wingLoadingNewtonsPerSquareMeter
        self.liftCurveSlopePerRadian = liftCurveSlopePerRadian
        self.nominalTrueAirspeedMetersPerSecond = nominalTrueAirspeedMetersPerSecond
        self.nominalAltitudeMeters = nominalAltitudeMeters
        self.bandLowHz = bandLowHz
        self.bandHighHz = bandHighHz
        self.responseGain = responseGain
    }

    /// The type's own response where its airframe is in `AircraftAirframeTable` and its class is `aircraftClass`:
    /// wing loading at the typical flying mass, C_Lα from the planform at the typical cruise Mach, typical cruise
    /// speed and altitude, and the type's JSBSim-calibrated `responseGain` where one exists; the band stays the class's
    /// (docs/detection.md §Per-type response).
    /// Otherwise (no designator, unknown type, or a class override that disagrees with the type) the class table.
    package static func forType(designator: String?, aircraftClass: AircraftClass) -> AircraftResponseParameters {
        var parameters = forClass(aircraftClass)
        guard let designator, let type = AircraftTypeTable.type(designator: designator), type.aircraftClass == aircraftClass,
              let airframe = AircraftAirframeTable.airframe(designator: type.designator) else { return parameters }
        parameters.wingLoadingNewtonsPerSquareMeter = airframe.wingLoadingNewtonsPerSquareMeter
        parameters.liftCurveSlopePerRadian = airframe.liftCurveSlopePerRadian
        parameters.nominalTrueAirspeedMetersPerSecond = airframe.cruiseTrueAirspeedMetersPerSecond
        parameters.nominalAltitudeMeters = airframe.cruiseAltitudeMeters
        if let gain = AircraftAirframeTable.calibratedResponseGain(designator: type.designator) { parameters.responseGain = gain }
        return parameters
    }

    /// The class's parameters (docs/detection.md §Aircraft classes): W/S and C_Lα are those of the class's
    /// representative type (`AircraftAirframeTable.representativeDesignator`), and so is its JSBSim-calibrated
    /// `responseGain` where the type has one, so a simulated flight (class model) and its replay under the type written
    /// in its meta.json use the same response; the nominal speed / altitude and the band are the class's own.
    package static func forClass(_ aircraftClass: AircraftClass) -> AircraftResponseParameters {
        var parameters: AircraftResponseParameters
        switch aircraftClass {
        case .small:   // light aircraft at 5,000 ft
            parameters = AircraftResponseParameters(
                wingLoadingNewtonsPerSquareMeter: 666, liftCurveSlopePerRadian: 5.3,
                nominalTrueAirspeedMetersPerSecond: 55, nominalAltitudeMeters: 1_524,
                bandLowHz: 0.2, bandHighHz: 4.0, responseGain: 0.9)
        case .medium:  // single-aisle airliner at FL350, M0.78
            parameters = AircraftResponseParameters(
                wingLoadingNewtonsPerSquareMeter: 5_500, liftCurveSlopePerRadian: 5.9,
                nominalTrueAirspeedMetersPerSecond: 230, nominalAltitudeMeters: 10_668,
                bandLowHz: 0.1, bandHighHz: 2.0, responseGain: 0.7)
        case .large:   // wide-body at FL370
            parameters = AircraftResponseParameters(
                wingLoadingNewtonsPerSquareMeter: 5_600, liftCurveSlopePerRadian: 5.5,
                nominalTrueAirspeedMetersPerSecond: 250, nominalAltitudeMeters: 11_278,
                bandLowHz: 0.1, bandHighHz: 2.0, responseGain: 0.7)
        }
        let representative = AircraftAirframeTable.representativeDesignator(aircraftClass)
        if let airframe = AircraftAirframeTable.airframe(designator: representative) {
            parameters.wingLoadingNewtonsPerSquareMeter = airframe.wingLoadingNewtonsPerSquareMeter
            parameters.liftCurveSlopePerRadian = airframe.liftCurveSlopePerRadian
        }
        if let gain = AircraftAirframeTable.calibratedResponseGain(designator: representative) { parameters.responseGain = gain }
        return parameters
    }
}

/// Rigid-plunge, quasi-steady load-factor response to a vertical gust: H(s) = (s/g) / (1 + τs), in g per m/s.
///
/// τ = 2 (W/S) / (ρ V C_Lα g). Its high-frequency gain 1/(gτ) is the sharp-edged-gust formula.
package struct PlungeResponse: Sendable, Equatable {
    /// Time constant τ, seconds.
    package var timeConstantSeconds: Double

    /// Response for the given parameters at an airspeed (m/s) and air density (kg/m³).
    package init(parameters: AircraftResponseParameters, trueAirspeedMetersPerSecond v: Double, densityKilogramsPerCubicMeter rho: Double) {
        timeConstantSeconds = 2 * parameters.wingLoadingNewtonsPerSquareMeter
            / (rho * v * parameters.liftCurveSlopePerRadian * StandardAtmosphere.gravity)
    }

    /// |H(f)|², (g per m/s)², at frequency `frequencyHz`.
    package func magnitudeSquared(frequencyHz f: Double) -> Double {
        let omega = 2 * Double.pi * f
        let tw = timeConstantSeconds * omega
        let g = StandardAtmosphere.gravity
        return (omega * omega) / (g * g) / (1 + tw * tw)
    }

    /// Complex H(f) as (real, imaginary), g per m/s; used to shape synthetic gusts into load factor.
    package func response(frequencyHz f: Double) -> (re: Double, im: Double) {
        // H(jω) = (jω/g) / (1 + jωτ) = (jω/g)(1 − jωτ) / (1 + ω²τ²) = (ω²τ + jω) / (g (1 + ω²τ²))
        let omega = 2 * Double.pi * f
        let tau = timeConstantSeconds
        let denominator = StandardAtmosphere.gravity * (1 + omega * omega * tau * tau)
        return (omega * omega * tau / denominator, omega / denominator)
    }
}
