import Foundation
import Testing
@testable import EddyNavigation
@testable import EddySupport
@testable import EddyVocabulary

@Suite struct BarometricAltitudeTests {
    /// ICAO standard atmosphere (Doc 7488/3) pressures at flight levels, hPa.
    @Test(arguments: [(0.0, 1013.25), (10_000.0, 696.82), (18_000.0, 505.98), (35_000.0, 238.42), (39_000.0, 196.79)])
    func pressureAltitudeMatchesTheICAOTable(feet: Double, hectopascals: Double) {
        #expect(abs(BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: hectopascals) - feet) < 3)
        #expect(abs(BarometricAltitude.pressureHectopascals(pressureAltitudeFeet: feet) - hectopascals) < 0.05)
    }

    @Test func qnhAltitudeIsZeroAtTheQNHAndAbout27FeetPerHectopascalNearTheGround() {
        #expect(abs(BarometricAltitude.qnhAltitudeFeet(pressureHectopascals: 1_030, qnhHectopascals: 1_030)) < 1e-9)
        let oneBelow = BarometricAltitude.qnhAltitudeFeet(pressureHectopascals: 1_029, qnhHectopascals: 1_030)
        #expect(oneBelow > 26 && oneBelow < 28.5)
        #expect(abs(BarometricAltitude.feetPerHectopascal(pressureHectopascals: 1013.25) - 27.3) < 0.3)
        let p = BarometricAltitude.pressureHectopascals(qnhAltitudeFeet: 1_500, qnhHectopascals: 995)
        #expect(abs(BarometricAltitude.qnhAltitudeFeet(pressureHectopascals: p, qnhHectopascals: 995) - 1_500) < 1e-6)
    }

    @Test func badPressuresAreNamed() {
        #expect(BarometricAltitude.problem(pressureHectopascals: .nan) == .notFinite)
        #expect(BarometricAltitude.problem(pressureHectopascals: .infinity) == .notFinite)
        #expect(BarometricAltitude.problem(pressureHectopascals: 0) == .notPositive(0))
        #expect(BarometricAltitude.problem(pressureHectopascals: -3) == .notPositive(-3))
        #expect(BarometricAltitude.problem(pressureHectopascals: 101.3) == .looksLikeKilopascals(101.3))
        #expect(BarometricAltitude.problem(pressureHectopascals: 5_000) == .outOfRange(5_000))
        #expect(BarometricAltitude.problem(pressureHectopascals: 1e300) == .outOfRange(1e300))
        #expect(BarometricAltitude.problem(pressureHectopascals: 850) == nil)
        #expect(BarometricAltitude.PressureProblem.looksLikeKilopascals(101.3).description.contains("multiply kPa by 10"))
    }

    /// Rule of thumb: ≈ 4 ft per 1,000 ft per °C; numerically integrated thickness must agree with the closed form.
    @Test func geometricThicknessFollowsTheHypsometricIntegral() {
        for (top, dt) in [(35_000.0, 10.0), (5_000.0, -15.0), (41_000.0, 20.0), (12_000.0, 0.0)] {
            var numeric = 0.0
            let steps = 20_000
            for i in 0..<steps {
                let h = (Double(i) + 0.5) / Double(steps) * top
                let t = StandardAtmosphere.temperatureKelvin(altitudeMeters: h * 0.3048)
                numeric += (t + dt) / t * top / Double(steps)
            }
            let closed = BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: 0, toPressureAltitudeFeet: top, isaDeviationCelsius: dt)
            #expect(abs(numeric - closed) < 0.05, "top \(top) ΔT \(dt): \(numeric) vs \(closed)")
        }
        let fl350 = BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: 0, toPressureAltitudeFeet: 35_000, isaDeviationCelsius: 10) - 35_000
        #expect(fl350 > 35 * 4 * 10 * 0.85 && fl350 < 35 * 4 * 10 * 1.15)   // ≈ 1,400 ft
    }
}

@Suite struct UncertaintyTests {
    @Test func gaussianBoundsAreTheTwoSidedQuantiles() {
        let u = Uncertainty(gaussianSigma: 10)
        #expect(abs(u.u68 - 9.945) < 0.01)
        #expect(abs(u.u90 - 16.449) < 0.01)
    }

    @Test func quantisedPlusGaussianMatchesMonteCarlo() {
        var rng = SplitMix64(seed: 42)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        for (quantum, sigma) in [(25.0, 0.0), (25.0, 3.0), (25.0, 10.0), (100.0, 20.0)] {
            let u = Uncertainty(quantum: quantum, gaussianSigma: sigma)
            var errors: [Double] = []
            for _ in 0..<200_000 {
                let gaussian = (-2 * log(max(1e-300, uniform()))).squareRoot() * cos(2 * .pi * uniform())
                errors.append(abs((uniform() - 0.5) * quantum + sigma * gaussian))
            }
            errors.sort()
            let q68 = errors[Int(0.68 * Double(errors.count))], q90 = errors[Int(0.90 * Double(errors.count))]
            #expect(abs(u.u68 - q68) < 0.01 * quantum, "q \(quantum) σ \(sigma): u68 \(u.u68) vs \(q68)")
            #expect(abs(u.u90 - q90) < 0.01 * quantum, "q \(quantum) σ \(sigma): u90 \(u.u90) vs \(q90)")
        }
    }
}
