import EddySupport
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

    /// What a model is integrated from: equal inputs give the same model (the scalars compared bit for bit).
    private struct Inputs: Equatable, Sendable {
        let filter: BandPassFilter, parameters: AircraftResponseParameters
        let responseGain: Double, trueAirspeedMetersPerSecond: Double, densityKilogramsPerCubicMeter: Double, windowSeconds: Double

        static func == (a: Inputs, b: Inputs) -> Bool {
            a.responseGain.bitPattern == b.responseGain.bitPattern
                && a.trueAirspeedMetersPerSecond.bitPattern == b.trueAirspeedMetersPerSecond.bitPattern
                && a.densityKilogramsPerCubicMeter.bitPattern == b.densityKilogramsPerCubicMeter.bitPattern
                && a.windowSeconds.bitPattern == b.windowSeconds.bitPattern
                && a.filter == b.filter && a.parameters == b.parameters
        }
    }

    /// Models already integrated. Every pipeline set-up integrates the model of its class's nominal airspeed and
    /// density (≈ 3 M instructions, most of a set-up's cost), so set-ups after the first with the same configuration
    /// take it from here; models recomputed in flight for other speeds and densities fill the rest.
    private static let integrated = MemoTable<Inputs, EDRModel>(capacity: 32)

    /// The model for a filter, aircraft parameters, airspeed and density (integrated once per distinct set of inputs).
    package init(
        filter: BandPassFilter, parameters: AircraftResponseParameters, responseGain: Double,
        trueAirspeedMetersPerSecond v: Double, densityKilogramsPerCubicMeter rho: Double, windowSeconds: Double = 10
    ) {
        let inputs = Inputs(filter: filter, parameters: parameters, responseGain: responseGain, trueAirspeedMetersPerSecond: v,
                            densityKilogramsPerCubicMeter: rho, windowSeconds: windowSeconds)
        self = Self.integrated.value(for: inputs) {
            EDRModel(integrating: filter, parameters: parameters, responseGain: responseGain, trueAirspeedMetersPerSecond: v,
                     densityKilogramsPerCubicMeter: rho, windowSeconds: windowSeconds)
        }
    }

    /// Integrates the model (see the type's comment).
    private init(
        integrating filter: BandPassFilter, parameters: AircraftResponseParameters, responseGain: Double,
        trueAirspeedMetersPerSecond v: Double, densityKilogramsPerCubicMeter rho: Double, windowSeconds: Double
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
