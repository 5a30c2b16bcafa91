import Foundation

/// The estimator's normalisation: the band-passed load-factor variance that ε = 1 produces.
///
/// I = gain² ∫ |B(f)|² |A(f)|² |H(f)|² S_w(f; ε = 1, V) df over 0…fs/2, where B is the detection
/// band-pass, A = sinc(f/fs) the tick averaging, H the plunge response at (V, ρ) and S_w the von Kármán
/// vertical spectrum (docs/detection.md §Estimator). Also gives the noise bandwidth ∫|B|²|A|² df.
package struct EDRModel: Sendable, Equatable {
    /// Band-passed load-factor variance at EDR = 1, g².
    package let unitVariance: Double
    /// Equivalent noise bandwidth of averaging + band-pass, Hz.
    package let noiseBandwidthHz: Double
    /// Equivalent degrees of freedom of one window variance, ν = 2T(∫P df)² / ∫P² df (Satterthwaite).
    package let degreesOfFreedom: Double
    /// Multiplier that removes the median bias of sqrt(window variance): 1 / sqrt((1 − 2/(9ν))³) (Wilson–Hilferty).
    package let medianBiasFactor: Double
    /// Airspeed the model was computed for, m/s.
    package let trueAirspeedMetersPerSecond: Double
    /// Air density the model was computed for, kg/m³.
    package let densityKilogramsPerCubicMeter: Double

    /// Integrates the model for a filter, aircraft parameters, airspeed and density.
    package init(
        filter: BandPassFilter, parameters: AircraftResponseParameters, responseGain: Double,
        trueAirspeedMetersPerSecond v: Double, densityKilogramsPerCubicMeter rho: Double, windowSeconds: Double = 10
    ) {
        let response = PlungeResponse(parameters: parameters, trueAirspeedMetersPerSecond: v, densityKilogramsPerCubicMeter: rho)
        let fs = filter.sampleRateHz
        let nyquist = fs / 2
        let unit = VonKarmanSpectrum.verticalVariance(edr: 1)
        // Log-spaced trapezoid from 1e-4 Hz to Nyquist: the band-pass kills everything below.
        let points = 4_000
        let logLow = log(1e-4), logHigh = log(nyquist)
        var signal = 0.0, bandwidth = 0.0, signalSquares = 0.0
        var previousF = 0.0, previousS = 0.0, previousB = 0.0
        for i in 0...points {
            let f = exp(logLow + (logHigh - logLow) * Double(i) / Double(points))
            let x = Double.pi * f / fs
            let averaging = x < 1e-9 ? 1 : pow(sin(x) / x, 2)
            let b = filter.magnitudeSquared(frequencyHz: f) * averaging
            let s = b * response.magnitudeSquared(frequencyHz: f)
                * VonKarmanSpectrum.verticalPSD(frequencyHz: f, trueAirspeedMetersPerSecond: v, variance: unit)
            if i > 0 {
                signal += 0.5 * (s + previousS) * (f - previousF)
                bandwidth += 0.5 * (b + previousB) * (f - previousF)
                signalSquares += 0.5 * (s * s + previousS * previousS) * (f - previousF)
            }
            previousF = f; previousS = s; previousB = b
        }
        unitVariance = signal * responseGain * responseGain
        noiseBandwidthHz = bandwidth
        let nu = signalSquares > 0 ? 2 * windowSeconds * signal * signal / signalSquares : .infinity
        degreesOfFreedom = nu
        let wilsonHilferty = 1 - 2 / (9 * max(nu, 1))
        medianBiasFactor = 1 / (wilsonHilferty * wilsonHilferty * wilsonHilferty).squareRoot()
        trueAirspeedMetersPerSecond = v
        densityKilogramsPerCubicMeter = rho
    }
}
