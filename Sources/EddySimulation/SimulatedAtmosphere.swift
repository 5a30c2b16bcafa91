import EddyVocabulary
import Foundation

/// A non-standard day: the ISA temperature profile shifted by a constant deviation, and a sea-level pressure (QNH).
///
/// The aircraft flies pressure altitude h_p (the altimeter at 1013.25 hPa); its static pressure is the ISA
/// pressure at h_p whatever the day. Its altitude above mean sea level follows the hypsometric equation with
/// T = T_ISA(h_p) + ΔT and the sea-level pressure QNH (docs/simulation.md §Atmosphere):
///
///     z(h_p) = ∫ from h_p(QNH) to h_p of (T_ISA(h) + ΔT) / T_ISA(h) dh
///
/// where h_p(QNH) is the ISA pressure altitude of the pressure QNH. Altitudes are geopotential (as ISA's); the
/// geopotential/geometric difference (0.17 % at FL350) is neglected, like the rest of the simulator.
package struct SimulatedAtmosphere: Sendable, Equatable {
    /// Temperature deviation from ISA, °C (= K), the same at every level.
    package var isaDeviationCelsius: Double
    /// Mean-sea-level pressure (QNH), hPa.
    package var qnhHectopascals: Double

    /// The standard day: ISA+0, QNH 1013.25 hPa.
    package static let standard = SimulatedAtmosphere(isaDeviationCelsius: 0, qnhHectopascals: 1013.25)

    /// Creates an atmosphere.
    package init(isaDeviationCelsius: Double, qnhHectopascals: Double) {
        self.isaDeviationCelsius = isaDeviationCelsius
        self.qnhHectopascals = qnhHectopascals
    }

    /// Whether this is exactly the standard day (then MSL altitude = pressure altitude, bit for bit).
    package var isStandard: Bool { isaDeviationCelsius == 0 && qnhHectopascals == 1013.25 }

    /// ISA pressure altitude of mean sea level on this day, feet (≈ −27 ft per hPa above 1013.25).
    package var seaLevelPressureAltitudeFeet: Double {
        qnhHectopascals == 1013.25 ? 0 : StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: qnhHectopascals)
    }

    /// Altitude above mean sea level, metres, of a pressure altitude in feet (the hypsometric integral above).
    package func mslAltitudeMeters(pressureAltitudeFeet: Double) -> Double {
        if isStandard { return pressureAltitudeFeet * 0.3048 }
        let h = pressureAltitudeFeet * 0.3048
        let h0 = seaLevelPressureAltitudeFeet * 0.3048
        return h - h0 + isaDeviationCelsius * Self.inverseTemperatureIntegral(from: h0, to: h)
    }

    /// Pressure altitude, feet, of an altitude above mean sea level in metres (inverse of `mslAltitudeMeters`).
    package func pressureAltitudeFeet(mslAltitudeMeters z: Double) -> Double {
        if isStandard { return z / 0.3048 }
        // dz/dh_p = (T + ΔT)/T > 0 on every level we simulate: Newton's method converges in a few steps.
        var hFeet = z / 0.3048 + seaLevelPressureAltitudeFeet
        for _ in 0..<20 {
            let error = mslAltitudeMeters(pressureAltitudeFeet: hFeet) - z
            let slope = thicknessRatio(pressureAltitudeFeet: hFeet) * 0.3048
            let step = error / slope
            hFeet -= step
            if abs(step) < 1e-9 { break }
        }
        return hFeet
    }

    /// True (outside air) temperature at a pressure altitude, K: T_ISA(h_p) + ΔT.
    package func temperatureKelvin(pressureAltitudeFeet: Double) -> Double {
        StandardAtmosphere.temperatureKelvin(altitudeMeters: pressureAltitudeFeet * 0.3048) + isaDeviationCelsius
    }

    /// Static pressure at a pressure altitude, hPa (the ISA pressure: that is what pressure altitude means).
    package func staticPressureHectopascals(pressureAltitudeFeet: Double) -> Double {
        StandardAtmosphere.pressurePascals(altitudeMeters: pressureAltitudeFeet * 0.3048) / 100
    }

    /// Air density at a pressure altitude with the true temperature, kg/m³: ρ = p / (R (T_ISA + ΔT)).
    package func densityKilogramsPerCubicMeter(pressureAltitudeFeet: Double) -> Double {
        let meters = pressureAltitudeFeet * 0.3048
        if isaDeviationCelsius == 0 { return StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: meters) }
        return StandardAtmosphere.pressurePascals(altitudeMeters: meters)
            / (StandardAtmosphere.gasConstant * temperatureKelvin(pressureAltitudeFeet: pressureAltitudeFeet))
    }

    /// dz/dh_p = (T_ISA + ΔT) / T_ISA: metres of MSL altitude per metre of pressure altitude at that level.
    package func thicknessRatio(pressureAltitudeFeet: Double) -> Double {
        let isa = StandardAtmosphere.temperatureKelvin(altitudeMeters: pressureAltitudeFeet * 0.3048)
        return (isa + isaDeviationCelsius) / isa
    }

    /// ∫ dh / T_ISA(h) from `a` to `b` (metres, geopotential), in m/K: closed form in the troposphere
    /// (T = T0 − L h: (1/L) ln(T(a)/T(b))) and in the isothermal layer above 11 km (Δh / 216.65 K).
    static func inverseTemperatureIntegral(from a: Double, to b: Double) -> Double {
        if a > b { return -inverseTemperatureIntegral(from: b, to: a) }
        let tropopause = StandardAtmosphere.tropopauseMeters
        let lapse = StandardAtmosphere.lapseRateKelvinPerMeter
        var total = 0.0
        let lowTop = min(b, tropopause)
        if a < lowTop {
            total += log(StandardAtmosphere.temperatureKelvin(altitudeMeters: a) / StandardAtmosphere.temperatureKelvin(altitudeMeters: lowTop)) / lapse
        }
        let highBottom = max(a, tropopause)
        if b > highBottom { total += (b - highBottom) / 216.65 }
        return total
    }
}

/// How a pressurised cabin's altitude follows the aircraft's (docs/simulation.md §Cabin).
///
/// On the ground the cabin is at field pressure. Between the field's pressure altitude g and the cruise
/// altitude H the cabin's pressure altitude rises linearly with the aircraft's, reaching the selected cabin
/// altitude C at H (the 737's controller does the same in a "proportional" climb and descent); it is never
/// above the aircraft, and the differential (cabin − outside) never exceeds `maximumDifferentialPSI`.
package struct CabinSchedule: Sendable, Equatable {
    /// Maximum cabin differential pressure, psi: 8.75, the 737NG controller's excessive-differential limit
    /// (its normal schedule holds at most 8.35 psid above FL370). Above the 8.6 psid that a 6,000-ft cabin at
    /// FL370 (the large class's default cruise) needs, so a profile flight reaches the selected cabin altitude
    /// there as a constant-altitude flight does.
    package static let maximumDifferentialPSI = 8.75
    /// Hectopascals per psi.
    package static let hectopascalsPerPSI = 68.947_572_9

    /// Pressure altitude of the ground (field) the schedule starts and ends at, feet.
    package var groundPressureAltitudeFeet: Double
    /// Cruise pressure altitude, feet: at or above it the cabin is at `cabinAltitudeFeet`.
    package var cruisePressureAltitudeFeet: Double
    /// Selected cabin (pressure) altitude at cruise, feet.
    package var cabinAltitudeFeet: Double

    /// Creates a schedule.
    package init(groundPressureAltitudeFeet: Double, cruisePressureAltitudeFeet: Double, cabinAltitudeFeet: Double) {
        self.groundPressureAltitudeFeet = groundPressureAltitudeFeet
        self.cruisePressureAltitudeFeet = cruisePressureAltitudeFeet
        self.cabinAltitudeFeet = cabinAltitudeFeet
    }

    /// Cabin pressure, hPa, with the aircraft at `pressureAltitudeFeet`.
    package func cabinPressureHectopascals(aircraftPressureAltitudeFeet h: Double) -> Double {
        let outside = StandardAtmosphere.pressurePascals(altitudeMeters: h * 0.3048) / 100
        let scheduled = StandardAtmosphere.pressurePascals(altitudeMeters: scheduledCabinAltitudeFeet(h) * 0.3048) / 100
        let limit = outside + Self.maximumDifferentialPSI * Self.hectopascalsPerPSI
        return scheduled <= limit ? scheduled : limit
    }

    /// Cabin pressure altitude, feet, with the aircraft at `pressureAltitudeFeet`.
    package func cabinPressureAltitudeFeet(aircraftPressureAltitudeFeet h: Double) -> Double {
        StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: cabinPressureHectopascals(aircraftPressureAltitudeFeet: h))
    }

    /// The linear schedule before the differential limit: C at and above cruise, the aircraft's own altitude
    /// at and below the ground, linear in between, never above the aircraft.
    func scheduledCabinAltitudeFeet(_ h: Double) -> Double {
        let g = groundPressureAltitudeFeet, top = cruisePressureAltitudeFeet, c = cabinAltitudeFeet
        if h >= top { return min(c, h) }
        if h <= g || top <= g { return h }
        return min(h, g + (h - g) * (c - g) / (top - g))
    }
}
