import EddyVocabulary
import Foundation

/// The ITU-R P.835-6 reference atmospheres (§2–4): temperature and pressure against geometric height for low
/// latitudes (|φ| < 22°, one profile) and mid (22–45°) and high (> 45°) latitudes in summer and winter.
///
/// The formulas are the Recommendation's, valid 0–100 km (Eddy uses 0–20 km); checked against PyPI `itur`'s
/// implementation of the same Recommendation by `ReferenceAtmosphereTests` (fixture from scripts/p835_fixture.py).
package enum ReferenceAtmosphere: Sendable, CaseIterable {
    /// Low latitudes (|φ| < 22°), annual.
    case lowLatitude
    /// Mid latitudes (22–45°), summer.
    case midLatitudeSummer
    /// Mid latitudes, winter.
    case midLatitudeWinter
    /// High latitudes (> 45°), summer.
    case highLatitudeSummer
    /// High latitudes, winter.
    case highLatitudeWinter

    /// The profile P.835 (and `itur`) uses at a latitude and season: |φ| < 22° low, < 45° mid, else high.
    package static func profile(latitudeDegrees: Double, summer: Bool) -> ReferenceAtmosphere {
        let absolute = abs(latitudeDegrees)
        if absolute < 22 { return .lowLatitude }
        if absolute < 45 { return summer ? .midLatitudeSummer : .midLatitudeWinter }
        return summer ? .highLatitudeSummer : .highLatitudeWinter
    }

    /// Temperature, kelvin, at geometric height `h` kilometres (0…20 km; clamped).
    package func temperatureKelvin(heightKilometers h: Double) -> Double {
        let h = min(20, max(0, h))
        switch self {
        case .lowLatitude: return h < 17 ? 300.4222 - 6.3533 * h + 0.005886 * h * h : 194 + (h - 17) * 2.533
        case .midLatitudeSummer: return h < 13 ? 294.9838 - 5.2159 * h - 0.07109 * h * h : (h < 17 ? 215.15 : 215.15 * exp((h - 17) * 0.008128))
        case .midLatitudeWinter: return h < 10 ? 272.7241 - 3.6217 * h - 0.1759 * h * h : 218
        case .highLatitudeSummer: return h < 10 ? 286.8374 - 4.7805 * h - 0.1402 * h * h : 225
        case .highLatitudeWinter:
            return h < 8.5 ? 257.4345 + 2.3474 * h - 1.5479 * h * h + 0.08473 * h * h * h : 217.5
        }
    }

    /// Pressure, hPa, at geometric height `h` kilometres by the hypsometric equation on this profile's temperature
    /// from its surface pressure: ln p(z) = ln p(0) − (g₀/R) ∫₀^z (g(z′)/g₀) / T(z′) dz′, g(z)/g₀ = (r/(r + z))²,
    /// r = 6,356.766 km (the ISA's radius). P.835's own pressure fit is not in hydrostatic balance with its
    /// temperatures (2–14 hPa off at 8–12 km, hundreds of feet of pressure altitude): docs/altitude.md "Climatology".
    /// The integral is tabulated once per profile on a 100-m grid (`cumulativeIntegrals`, 1-m trapezoid steps inside
    /// each cell) plus one trapezoid step from the grid point below `h` to `h`: two integrand evaluations a call instead
    /// of ~220 (it runs at every fix). Every profile's kink (8.5, 10, 13, 17 km) is a grid point, so that last step
    /// never straddles one; against a 0.1-m integration its pressure is within 3e-7 (relative) where the former
    /// ~100-m rule over the whole column was off by up to 3.6e-5, 0.7 ft at FL350 (docs/altitude.md "Climatology").
    package func hypsometricPressureHectopascals(heightKilometers h: Double) -> Double {
        let top = min(20, max(0, h)) * 1000
        let below = min(Self.gridSteps - 1, Int(top / Self.gridMeters))
        let from = Double(below) * Self.gridMeters
        let table = Self.cumulativeIntegrals[index]
        let sum = table[below] + (integrand(metres: from) + integrand(metres: top)) / 2 * (top - from)
        return pressureHectopascals(heightKilometers: 0) * exp(-StandardAtmosphere.gravity / StandardAtmosphere.gasConstant * sum)
    }

    /// The hypsometric integrand (g(z)/g₀)² / T(z) at `z` metres, K⁻¹.
    private func integrand(metres z: Double) -> Double {
        let radius = 6_356_766.0
        let gravity = radius / (radius + z)
        return gravity * gravity / temperatureKelvin(heightKilometers: z / 1000)
    }

    /// Grid of the cumulative integrals, metres, and its number of steps over 0…20 km.
    private static let gridMeters = 100.0
    private static let gridSteps = 200

    /// Per profile (in `allCases` order): ∫₀^(100 m · i) of the integrand, i = 0…200, by the trapezoid rule in 1-m
    /// steps (100,000 evaluations per profile, once).
    private static let cumulativeIntegrals: [[Double]] = allCases.map { profile in
        var sums = [0.0]
        sums.reserveCapacity(gridSteps + 1)
        let substeps = 100
        let dz = gridMeters / Double(substeps)
        for i in 0..<gridSteps {
            var cell = 0.0
            for j in 0..<substeps {
                let z = Double(i) * gridMeters + Double(j) * dz
                cell += (profile.integrand(metres: z) + profile.integrand(metres: z + dz)) / 2 * dz
            }
            sums.append(sums[i] + cell)
        }
        return sums
    }

    /// This profile's position in `allCases`.
    private var index: Int {
        switch self {
        case .lowLatitude: 0
        case .midLatitudeSummer: 1
        case .midLatitudeWinter: 2
        case .highLatitudeSummer: 3
        case .highLatitudeWinter: 4
        }
    }

    /// Pressure, hPa, at geometric height `h` kilometres by P.835's fit (0…20 km; clamped).
    package func pressureHectopascals(heightKilometers h: Double) -> Double {
        let h = min(20, max(0, h))
        // (a, b, c) of the quadratic up to 10 km, the pressure at 10 km it gives, and the scale above (per km).
        let (a, b, c, p10, k): (Double, Double, Double, Double, Double) = switch self {
        case .lowLatitude: (1012.0306, -109.0338, 3.6316, 284.8526, 0.147)
        case .midLatitudeSummer: (1012.8186, -111.5569, 3.8646, 283.7096, 0.147)
        case .midLatitudeWinter: (1018.8627, -124.2954, 4.8307, 258.9787, 0.147)
        case .highLatitudeSummer: (1008.0278, -113.2494, 3.9408, 269.6138, 0.140)
        case .highLatitudeWinter: (1010.8828, -122.2411, 4.554, 243.8718, 0.147)
        }
        return h <= 10 ? a + b * h + c * h * h : p10 * exp(-k * (h - 10))
    }
}

/// The expected GNSS − pressure altitude offset at a position, date and height, and its spread from day to day: the
/// prior for a GNSS-only pressure altitude (docs/altitude.md "Climatology"), in place of ISA ± 10 °C. Pressures come
/// from the profiles' temperatures by the hypsometric equation, from P.835's surface pressures.
///
/// The P.835 profiles are blended so the prior has no steps: across latitude linearly over 15–29° (low → mid) and
/// 38–52° (mid → high); across the year by w_summer = (1 + cos(2π(d − d₀)/365.25))/2, d₀ = day 196 (15 July) north
/// of the equator and day 13 south of it (the warmest month lags the solstice by about 25 days). Pressures blend
/// in log, temperatures linearly. Pure: the date comes from the caller's Unix time.
package enum AtmosphereClimatology {
    /// 1σ of the day-to-day column temperature anomaly, °C: 1.5 in the tropics (|φ| ≤ 15°), 4 from 35° on, linear
    /// between (upper-tropospheric temperature varies by 1–2 K a day in the tropics, 3–5 K at mid and high latitudes).
    package static func temperatureSigmaCelsius(latitudeDegrees: Double) -> Double {
        let w = min(1, max(0, (abs(latitudeDegrees) - 15) / 20))
        return 1.5 + w * 2.5
    }

    /// 1σ of the day-to-day surface pressure anomaly, hPa: 3 in the tropics, 10 from 35° on, linear between.
    package static func surfacePressureSigmaHectopascals(latitudeDegrees: Double) -> Double {
        let w = min(1, max(0, (abs(latitudeDegrees) - 15) / 20))
        return 3 + w * 7
    }

    /// The profiles and their weights at a latitude and Unix time.
    package static func weights(latitudeDegrees: Double, unixSeconds: Double) -> [(ReferenceAtmosphere, Double)] {
        let absolute = abs(latitudeDegrees)
        let low = 1 - min(1, max(0, (absolute - 15) / 14))
        let high = min(1, max(0, (absolute - 38) / 14))
        let mid = 1 - low - high
        let days = unixSeconds / 86_400
        let dayOfYear = days - (days / 365.2425).rounded(.down) * 365.2425
        let warmest = latitudeDegrees >= 0 ? 196.0 : 13.0
        let summer = (1 + cos(2 * Double.pi * (dayOfYear - warmest) / 365.25)) / 2
        let all: [(ReferenceAtmosphere, Double)] = [
            (.lowLatitude, low), (.midLatitudeSummer, mid * summer), (.midLatitudeWinter, mid * (1 - summer)),
            (.highLatitudeSummer, high * summer), (.highLatitudeWinter, high * (1 - summer))]
        return all.filter { $0.1 > 0 }
    }

    /// The blended reference atmosphere's pressure (hPa) and temperature (K) at a geometric height in feet.
    package static func state(latitudeDegrees: Double, unixSeconds: Double, heightFeet: Double) -> (pressureHectopascals: Double, temperatureKelvin: Double) {
        let km = heightFeet * 0.3048 / 1000
        var logPressure = 0.0, temperature = 0.0
        for (profile, weight) in weights(latitudeDegrees: latitudeDegrees, unixSeconds: unixSeconds) {
            logPressure += weight * log(profile.hypsometricPressureHectopascals(heightKilometers: km))
            temperature += weight * profile.temperatureKelvin(heightKilometers: km)
        }
        return (exp(logPressure), temperature)
    }

    /// Feet of GNSS − pressure altitude offset per °C of column ISA deviation at a pressure altitude (hypsometric).
    package static func offsetFeetPerCelsius(pressureAltitudeFeet: Double) -> Double {
        BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: 0, toPressureAltitudeFeet: pressureAltitudeFeet, isaDeviationCelsius: 1)
            - pressureAltitudeFeet
    }

    /// The climatological offset (GNSS MSL − pressure altitude, feet) at geometric height `mslFeet`: its mean, its 1σ
    /// (column temperature anomaly ⊕ surface pressure anomaly — or the host's QNH, σ 0.3 hPa), and the ISA deviation
    /// of the reference atmosphere at that height (°C).
    package static func offset(latitudeDegrees: Double, unixSeconds: Double, mslFeet: Double, qnhHectopascals: Double?)
        -> (meanFeet: Double, sigmaFeet: Double, isaDeviationCelsius: Double) {
        let height = max(0, mslFeet)
        let here = state(latitudeDegrees: latitudeDegrees, unixSeconds: unixSeconds, heightFeet: height)
        let pressureAltitude = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: here.pressureHectopascals)
        var mean = mslFeet - pressureAltitude
        var pressureSigma = surfacePressureSigmaHectopascals(latitudeDegrees: latitudeDegrees)
        if let qnhHectopascals {
            // A known surface pressure moves every pressure level by about as much as it moves the surface's.
            let surface = state(latitudeDegrees: latitudeDegrees, unixSeconds: unixSeconds, heightFeet: 0).pressureHectopascals
            mean += BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: surface)
                - BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: qnhHectopascals)
            pressureSigma = 0.3
        }
        let perDegree = offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, pressureAltitude))
        let temperature = perDegree * temperatureSigmaCelsius(latitudeDegrees: latitudeDegrees)
        let pressure = 27.3 * pressureSigma
        let isa = StandardAtmosphere.temperatureKelvin(altitudeMeters: max(0, pressureAltitude) * 0.3048)
        return (mean, (temperature * temperature + pressure * pressure).squareRoot(), here.temperatureKelvin - isa)
    }
}
