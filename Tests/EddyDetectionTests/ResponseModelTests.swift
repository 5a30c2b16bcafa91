import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

@Suite struct ResponseModelTests {
    /// σ_w for EDR 0.10 / 0.20 / 0.45 with L = 762 m is 1.02 / 2.04 / 4.60 m/s (research §4.2).
    @Test func edrToSigmaW() {
        for (edr, sigma) in [(0.10, 1.02), (0.20, 2.04), (0.45, 4.60)] {
            let s = VonKarmanSpectrum.verticalVariance(edr: edr).squareRoot()
            #expect(abs(s - sigma) < 0.01, "edr \(edr): σ \(s)")
        }
    }

    /// The one-sided PSD integrates to the variance (trapezoid over 0…50 Hz, tail beyond is tiny).
    @Test func spectrumIntegratesToVariance() {
        let variance = VonKarmanSpectrum.verticalVariance(edr: 0.2)
        var sum = 0.0
        let df = 0.0005
        var f = 0.0
        while f < 50 {
            sum += 0.5 * (VonKarmanSpectrum.verticalPSD(frequencyHz: f, trueAirspeedMetersPerSecond: 230, variance: variance)
                + VonKarmanSpectrum.verticalPSD(frequencyHz: f + df, trueAirspeedMetersPerSecond: 230, variance: variance)) * df
            f += df
        }
        #expect(abs(sum / variance - 1) < 0.01, "ratio \(sum / variance)")
    }

    /// 737-800 at FL350 / 230 m/s with the medium class's W/S and C_Lα, which are now the B738's own (0.85 × 79,010 kg
    /// on 124.6 m² = 5,286 N/m²; DATCOM C_Lα 6.25 /rad at M 0.78): τ = 2 W/S / (ρ V C_Lα g) ≈ 1.98 s and high-frequency
    /// gain 1/(gτ) ≈ 0.052 g per m/s (the research's 2.17 s / 0.047 used W/S 5,500 and C_Lα 5.9).
    @Test func plungeTimeConstant() {
        let p = AircraftResponseParameters.forClass(.medium)
        let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: 10_668)
        let h = PlungeResponse(parameters: p, trueAirspeedMetersPerSecond: 230, densityKilogramsPerCubicMeter: rho)
        #expect(abs(h.timeConstantSeconds - 1.98) < 0.03, "τ \(h.timeConstantSeconds)")
        let highGain = h.magnitudeSquared(frequencyHz: 100).squareRoot()
        #expect(abs(highGain - 0.0516) < 0.001, "gain \(highGain)")
        let c = h.response(frequencyHz: 0.7)
        #expect(abs((c.re * c.re + c.im * c.im) - h.magnitudeSquared(frequencyHz: 0.7)) < 1e-15)
    }

    /// ISA against ambiance (ICAO 1993, geopotential→geometric converted): FL350 238.42 hPa / 0.3796 kg/m³, FL450 147.48 hPa.
    @Test func standardAtmosphere() {
        #expect(abs(StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: 0) - 1.225) < 0.001)
        #expect(abs(StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: 10_668) - 0.3796) < 0.002)
        #expect(abs(StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: 1013.25)) < 0.5)
        #expect(abs(StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: 238.42) - 35_000) < 20)
        #expect(abs(StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: 147.476) - 45_000) < 5)
    }
}
