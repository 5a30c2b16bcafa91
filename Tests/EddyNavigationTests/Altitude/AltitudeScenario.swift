import Foundation
@testable import EddyNavigation
@testable import EddySupport
@testable import EddyVocabulary

/// A compact vertical-only flight for the altitude unit tests (the simulator's full model is tested in
/// EddySimulationTests): pressure altitude by time, a real atmosphere (ISA deviation, QNH), a barometer in or out of a
/// pressurised cabin, phone-like GNSS altitude (Gauss–Markov σ 12 m, τ 90 s, plus 2 m white) and optional ADS-B.
struct AltitudeScenario {
    var isaDeviationCelsius = 0.0
    var qnhHectopascals = 1013.25
    var pressurized = false
    var cabinAtCruiseFeet = 6_000.0
    var cruiseFeet = 35_000.0
    var fieldFeet = 0.0
    var adsb = false
    var barometer = true
    var barometerBiasHectopascals = 0.0
    var gnssSigmaMeters = 12.0
    var seed: UInt64 = 1
    var speedMetersPerSecond = 120.0
    /// Pressure altitude, feet, at t seconds.
    var profile: (Double) -> Double = { _ in 35_000 }

    /// Geometric altitude above MSL, feet, of a pressure altitude in this atmosphere.
    func geometricFeet(pressureAltitudeFeet pa: Double) -> Double {
        let qnhLevel = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: qnhHectopascals)
        return BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: qnhLevel, toPressureAltitudeFeet: pa, isaDeviationCelsius: isaDeviationCelsius)
    }

    /// Cabin pressure altitude for an aircraft pressure altitude (linear schedule from the field to the cruise cabin).
    func cabinFeet(pressureAltitudeFeet pa: Double) -> Double {
        guard pressurized else { return pa }
        let fraction = max(0, min(1, (pa - fieldFeet) / max(1, cruiseFeet - fieldFeet)))
        return fieldFeet + fraction * (cabinAtCruiseFeet - fieldFeet)
    }

    struct Second { var t: Double; var truePressureFeet: Double; var trueMSLFeet: Double; var samples: [SensorSample] }

    /// One second at a time: barometer then fix.
    func seconds(_ range: Range<Int>) -> [Second] {
        var rng = SplitMix64(seed: seed)
        func gaussian() -> Double {
            let u1 = max(1e-300, Double(rng.next() >> 11) / Double(1 << 53)), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        let tau = 90.0
        let phi = exp(-1 / tau)
        var gm = gnssSigmaMeters * gaussian()
        var out: [Second] = []
        for i in range {
            let t = Double(i)
            let pa = profile(t)
            let msl = geometricFeet(pressureAltitudeFeet: pa)
            gm = phi * gm + gnssSigmaMeters * (1 - phi * phi).squareRoot() * gaussian()
            var samples: [SensorSample] = []
            if barometer {
                let p = BarometricAltitude.pressureHectopascals(pressureAltitudeFeet: cabinFeet(pressureAltitudeFeet: pa))
                samples.append(.barometer(BarometerSample(t: t, pressureHectopascals: p + barometerBiasHectopascals + 0.02 * gaussian())))
            }
            let gnssMeters = msl * 0.3048 + gm + 2 * gaussian()
            samples.append(.location(LocationSample(
                t: t + 0.5, latitudeDegrees: 47, longitudeDegrees: 8 + t * 0.0005, altitudeMeters: gnssMeters,
                horizontalAccuracyMeters: 8, verticalAccuracyMeters: 10, speedMetersPerSecond: speedMetersPerSecond,
                courseDegrees: 90, pressureAltitudeFeet: adsb ? (pa / 25).rounded() * 25 : nil, source: adsb ? .adsb : .device)))
            out.append(Second(t: t + 0.5, truePressureFeet: pa, trueMSLFeet: msl, samples: samples))
        }
        return out
    }

    /// Runs the seconds through an estimator; returns (truth, estimate) per fix and the warnings.
    func run(_ range: Range<Int>, configuration: AltitudeConfiguration, fleet: [AltitudeOffsetCell] = [])
        -> (pairs: [(Second, AltitudeEstimate)], warnings: [ConsistencyWarning], estimator: AltitudeEstimator) {
        var estimator = AltitudeEstimator(configuration: configuration)
        estimator.fleetOffsets = fleet
        var pairs: [(Second, AltitudeEstimate)] = []
        var warnings: [ConsistencyWarning] = []
        for second in seconds(range) {
            for sample in second.samples {
                switch sample {
                case .barometer(let b):
                    if case .accepted(let w?) = estimator.addBarometer(b) { warnings.append(w) }
                case .location(let fix):
                    if let e = estimator.addFix(fix), e.t == fix.t { pairs.append((second, e)) }
                default: break
                }
            }
        }
        return (pairs, warnings, estimator)
    }
}

/// A climb from the field to cruise at `rate` ft/min starting at `start` s, level afterwards.
func climbProfile(from field: Double, to cruise: Double, feetPerMinute rate: Double, start: Double = 60) -> (Double) -> Double {
    { t in t <= start ? field : min(cruise, field + (t - start) * rate / 60) }
}
