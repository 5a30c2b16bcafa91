import EddyVocabulary
import Foundation

/// Barometric altitude from a static pressure: ISA pressure altitude, QNH altitude, and their sensitivities.
///
/// Formulas (docs/altitude.md "Barometric altitude"): the ICAO standard atmosphere (Doc 7488) below 11 km,
/// h = T₀/L · (1 − (p/p_ref)^(R·L/g)), with p_ref = 1013.25 hPa for pressure altitude and p_ref = QNH for the altitude
/// an altimeter set to QNH shows. Pressure in **hPa** (CoreMotion's `CMAltitudeData.pressure` is in kPa: multiply by 10).
package enum BarometricAltitude {
    /// Lowest pressure accepted, hPa (≈ 53,000 ft; a BMP280 reads down to 300 hPa).
    package static let minimumPressureHectopascals = 100.0
    /// Highest pressure accepted, hPa (the deepest surface pressure ever recorded is ≈ 1,084 hPa).
    package static let maximumPressureHectopascals = 1_100.0

    /// Why a pressure value was refused.
    package enum PressureProblem: Sendable, Equatable, CustomStringConvertible {
        /// NaN or ±∞.
        case notFinite
        /// Zero or negative.
        case notPositive(Double)
        /// Between 10 and 110: looks like kPa (CoreMotion's unit).
        case looksLikeKilopascals(Double)
        /// Outside 100…1,100 hPa otherwise.
        case outOfRange(Double)

        /// The reason without its value (refusals are rate-limited per key, not per value).
        package var key: String {
            switch self {
            case .notFinite: "not_finite"
            case .notPositive: "not_positive"
            case .looksLikeKilopascals: "looks_like_kpa"
            case .outOfRange: "out_of_range"
            }
        }

        /// What is wrong and what to do.
        package var description: String {
            switch self {
            case .notFinite: "pressure is not a finite number"
            case .notPositive(let p): "pressure \(p) hPa is not positive"
            case .looksLikeKilopascals(let p):
                "pressure \(p) looks like kPa (CoreMotion's unit): pass hPa (multiply kPa by 10)"
            case .outOfRange(let p):
                "pressure \(p) hPa is outside \(Int(minimumPressureHectopascals))…\(Int(maximumPressureHectopascals)) hPa"
            }
        }
    }

    /// Checks a pressure reading, hPa: nil when usable, else the problem.
    package static func problem(pressureHectopascals p: Double) -> PressureProblem? {
        guard p.isFinite else { return .notFinite }
        guard p > 0 else { return .notPositive(p) }
        if p >= 10, p <= 110 { return .looksLikeKilopascals(p) }
        guard p >= minimumPressureHectopascals, p <= maximumPressureHectopascals else { return .outOfRange(p) }
        return nil
    }

    /// ISA pressure altitude, feet, of a static pressure in hPa (the altimeter at 1013.25 hPa; valid to 20 km).
    package static func pressureAltitudeFeet(pressureHectopascals p: Double) -> Double {
        StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: p)
    }

    /// Static pressure, hPa, at an ISA pressure altitude in feet (inverse of `pressureAltitudeFeet`).
    package static func pressureHectopascals(pressureAltitudeFeet feet: Double) -> Double {
        StandardAtmosphere.pressurePascals(altitudeMeters: feet * 0.3048) / 100
    }

    /// The altitude, feet, an altimeter set to `qnhHectopascals` shows at static pressure `p` (QNH altitude ≈ MSL
    /// altitude near the station; troposphere formula).
    package static func qnhAltitudeFeet(pressureHectopascals p: Double, qnhHectopascals qnh: Double) -> Double {
        pressureAltitudeFeet(pressureHectopascals: p) - pressureAltitudeFeet(pressureHectopascals: qnh)
    }

    /// Static pressure, hPa, that an altimeter set to `qnhHectopascals` reads as `altitudeFeet`.
    package static func pressureHectopascals(qnhAltitudeFeet feet: Double, qnhHectopascals qnh: Double) -> Double {
        pressureHectopascals(pressureAltitudeFeet: feet + pressureAltitudeFeet(pressureHectopascals: qnh))
    }

    /// Feet of pressure altitude per hPa at pressure `p` (hypsometric: dh/dp = R·T_ISA(h)/(g·p)); ≈ 27 ft at sea level.
    package static func feetPerHectopascal(pressureHectopascals p: Double) -> Double {
        let h = pressureAltitudeFeet(pressureHectopascals: p) * 0.3048
        let t = StandardAtmosphere.temperatureKelvin(altitudeMeters: max(0, h))
        return StandardAtmosphere.gasConstant * t / (StandardAtmosphere.gravity * p) / 0.3048
    }

    /// Geometric height, feet, between the standard pressure levels `fromFeet` and `toFeet` (pressure altitudes) in an
    /// atmosphere `isaDeviationCelsius` warmer than ISA at every pressure level: ∫ (T_ISA(h) + ΔT) / T_ISA(h) dh.
    package static func geometricThicknessFeet(fromPressureAltitudeFeet a: Double, toPressureAltitudeFeet b: Double, isaDeviationCelsius dt: Double) -> Double {
        // T_ISA is linear below the tropopause and constant above: integrate in closed form on each piece.
        let lapse = StandardAtmosphere.lapseRateKelvinPerMeter * 0.3048   // K per ft
        let tropopauseFeet = StandardAtmosphere.tropopauseMeters / 0.3048
        let t0 = StandardAtmosphere.seaLevelTemperatureKelvin
        func primitive(_ h: Double) -> Double {
            // ∫₀^h ΔT / T_ISA(x) dx
            if h <= tropopauseFeet { return -dt / lapse * log((t0 - lapse * h) / t0) }
            let below = -dt / lapse * log((t0 - lapse * tropopauseFeet) / t0)
            return below + dt / 216.65 * (h - tropopauseFeet)
        }
        return (b - a) + primitive(b) - primitive(a)
    }
}

/// Uncertainty bounds of a value with Gaussian error: the half-widths that hold the truth with 68 % and 90 %
/// probability (two-sided: 0.994 σ and 1.645 σ).
package struct Uncertainty: Sendable, Equatable {
    /// Half-width at 68 % confidence.
    package var u68: Double
    /// Half-width at 90 % confidence.
    package var u90: Double

    /// The 68 % and 90 % half-widths of a Gaussian error with standard deviation `sigma`.
    package init(gaussianSigma sigma: Double) {
        u68 = 0.994_457_883 * sigma
        u90 = 1.644_853_627 * sigma
    }

    /// Explicit half-widths.
    package init(u68: Double, u90: Double) { self.u68 = u68; self.u90 = u90 }

    /// The bounds of a uniform error of full width `quantum` (a quantised value) plus a Gaussian error `sigma`:
    /// quantiles of |U + N| found by bisection on the exact CDF (docs/altitude.md "Quantised sources").
    package init(quantum: Double, gaussianSigma sigma: Double) {
        let half = quantum / 2
        guard half > 0 else { self.init(gaussianSigma: sigma); return }
        guard sigma > 1e-9 * half else { self.init(u68: 0.68 * half, u90: 0.90 * half); return }
        // P(|U + N| ≤ u) = (1/q) ∫_{-q/2}^{q/2} [Φ((u − x)/σ) − Φ((−u − x)/σ)] dx, with ∫Φ(z)dz = zΦ(z) + φ(z).
        func integralPhi(_ z: Double) -> Double { z * Uncertainty.phi(z) + exp(-z * z / 2) / (2 * Double.pi).squareRoot() }
        func probability(_ u: Double) -> Double {
            let a = (integralPhi((u + half) / sigma) - integralPhi((u - half) / sigma))
            let b = (integralPhi((-u + half) / sigma) - integralPhi((-u - half) / sigma))
            return sigma * (a - b) / quantum
        }
        func quantile(_ level: Double) -> Double {
            var lo = 0.0, hi = half + 10 * sigma
            for _ in 0..<80 { let mid = (lo + hi) / 2; if probability(mid) < level { lo = mid } else { hi = mid } }
            return (lo + hi) / 2
        }
        self.init(u68: quantile(0.68), u90: quantile(0.90))
    }

    /// Standard normal CDF.
    package static func phi(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }
}
