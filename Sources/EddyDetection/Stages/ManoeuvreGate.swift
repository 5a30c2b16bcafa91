import Foundation

/// The load-factor gate (docs/detection.md §5 "Manoeuvres"): a manoeuvre moves the load factor by a lot within
/// seconds (a 45° roll-in 1 → 1.41 g, a pull-up to 2 g, a parabola 1.8 → 0 → 1.8 g, a stall's break and recovery
/// 0.5 → 1.8 g), and the band-pass turns such a change into a transient that reads as turbulence; turbulence moves the
/// load factor about its level with little power below the band (the plunge response has a zero at DC).
///
/// Per tick: |f̄| (the magnitude of the tick-mean specific force, so it needs no mount, no gyro and no GPS) is
/// low-passed with τ = 2 s (n₂) and with τ = 10 s (the recent level n₁₀). A change is |n₂ − n₁₀| above
/// max(`thresholdG`, `turbulenceFactor` × σ), where σ is the recent RMS (τ = 10 s) of the load factor in the upper part
/// of the EDR band (5 × its bottom … its top: 0.5–2 Hz for jets, 1–4 Hz for light aircraft). The second term keeps
/// real turbulence, whose slow part grows with its level, from gating itself; the upper band carries turbulence's
/// level but hardly a manoeuvre's entry, so a manoeuvre cannot raise its own threshold. Nothing is frozen, so nothing
/// can stick: a load factor held steadily (a long turn) is measured again once the band-pass has forgotten the change.
///
/// A second test catches longitudinal surges (a glider's tow rope, a take-off or braking run): the specific force
/// across the apparent vertical fluctuating by more than `surgeFloorG` RMS (τ = 5 s) *and together with* the load
/// factor (correlation above `surgeCorrelation` with one device axis of it). A tow rope pulls along the glider's
/// axis, a few degrees off it, and the apparent vertical is tilted by the mean pull, so one surge moves both; in
/// turbulence the side force, drag and lift changes come from different gust components and hardly correlate
/// (`severeLateralMotionIsMeasured`: 0.1 g across the vertical in severe turbulence is measured). The floor is judged
/// on the across component low-passed (τ = 0.15 s): tow and braking surges live below ~1.5 Hz (gain ≥ 0.6), while a
/// rattling cradle's 20–40 Hz (aliased to ≥ 10 Hz by 50 Hz sampling) moves both components along one fixed axis,
/// perfectly correlated, and must not count as a surge (gain ≤ 0.1 there: 50 mg → ≤ 5 mg, below the floor). The
/// correlation itself is taken on the unfiltered components: band-limiting them removes the sensor noise that keeps
/// turbulence's chance correlations low, and gated real turbulence (the JSBSim 737 replay).
package struct ManoeuvreGate: Sendable {
    /// Fixed part of the threshold, g.
    package let thresholdG: Double
    /// Multiple of the recent in-band RMS below which a departure is taken for turbulence.
    package let turbulenceFactor: Double
    private let fastAlpha: Double
    private let referenceAlpha: Double
    private let bandAlpha: Double
    /// Ticks whose |f̄| is above this are ignored (values in m/s² or mg: the units notice's business), g.
    package static let largestMagnitudeG = 5.0
    private var started = false
    private var fast = 1.0
    private var reference = 1.0
    private var bandVariance = 0.0
    private var upperTicks = 0
    private let warmUpTicks: Int
    private let surgeAlpha: Double
    private let surgeCorrelationSquare: Double
    private let surgeFloorSquare: Double
    private let surgeSmoothingAlpha: Double
    private var acrossSmoothed: SIMD3<Double>?
    private var smoothedAcrossVariance = 0.0
    private var acrossVariance = 0.0
    private var alongVariance = 0.0
    private var acrossAxisVariance = SIMD3<Double>(0, 0, 0)
    private var acrossAlongCovariance = SIMD3<Double>(0, 0, 0)
    /// Whether the last tick's surge test held.
    package private(set) var surging = false
    /// Whether the last tick was a manoeuvre.
    package private(set) var active = false
    /// The current departure |n_fast − n_ref|, g (n_fast low-passed with `timeConstantSeconds`).
    package private(set) var deviationG = 0.0
    /// The recent level of |f̄| (τ = 10 s), g.
    package var referenceG: Double { reference }
    /// The current load factor |f̄| low-passed with τ = 2 s, g.
    package var loadFactorG: Double { fast }

    /// Creates a gate for a tick interval (seconds).
    package init(tickSeconds dt: Double, thresholdG: Double, turbulenceFactor: Double, timeConstantSeconds: Double = 2,
                 surgeCorrelation: Double = 0.7, surgeFloorG: Double = 0.02) {
        self.thresholdG = thresholdG
        self.turbulenceFactor = turbulenceFactor
        surgeAlpha = dt / (5 + dt)
        surgeSmoothingAlpha = dt / (0.15 + dt)
        surgeCorrelationSquare = surgeCorrelation * surgeCorrelation
        surgeFloorSquare = surgeFloorG * surgeFloorG
        fastAlpha = dt / (max(dt, timeConstantSeconds) + dt)
        referenceAlpha = dt / (10 + dt)
        bandAlpha = dt / (10 + dt)
        warmUpTicks = Int((5 / dt).rounded())
    }

    /// The current threshold, g.
    package var currentThresholdG: Double { max(thresholdG, turbulenceFactor * bandVariance.squareRoot()) }

    /// One tick: the magnitude of its mean specific force (nil without accelerometer data); the upper-band load factor
    /// of the tick (nil while the device gate holds: then no verdict; verdicts start 5 s after it ends, σ's warm-up,
    /// inside the 30-s mount settle); the tick mean's component across the apparent vertical and its component along it
    /// minus the recent level (nil: not known). Returns whether the tick is a manoeuvre.
    package mutating func update(magnitudeG: Double?, bandOutputG: Double?, acrossG: SIMD3<Double>? = nil, alongDeviationG: Double? = nil) -> Bool {
        guard let magnitude = magnitudeG, magnitude.isFinite, magnitude < Self.largestMagnitudeG else { return active }
        if !started { started = true; fast = magnitude; reference = magnitude }
        fast += (magnitude - fast) * fastAlpha
        deviationG = abs(fast - reference)
        // Out of position (no upper-band value) the device gate holds and σ is unknown: no verdict, and σ is learnt
        // afresh (a running mean for its first `warmUpTicks`, then τ = 10 s) before the next one.
        guard let y = bandOutputG, y.isFinite else {
            upperTicks = 0
            active = false; surging = false
            return false
        }
        upperTicks += 1
        bandVariance += (y * y - bandVariance) * max(bandAlpha, 1 / Double(upperTicks))
        // No surge test (an infinite correlation limit: medium and large classes, known powered types): skip its sums.
        if surgeCorrelationSquare.isFinite, let across = acrossG, let along = alongDeviationG, (across * across).sum().isFinite,
           along.isFinite {
            let previous = acrossSmoothed ?? across
            let smoothed = previous + (across - previous) * surgeSmoothingAlpha
            acrossSmoothed = smoothed
            smoothedAcrossVariance += ((smoothed * smoothed).sum() - smoothedAcrossVariance) * surgeAlpha
            acrossAxisVariance += (across * across - acrossAxisVariance) * surgeAlpha
            acrossAlongCovariance += (across * along - acrossAlongCovariance) * surgeAlpha
            acrossVariance = acrossAxisVariance.sum()
            alongVariance += (along * along - alongVariance) * surgeAlpha
            // The along-vertical fluctuation explained by one across-vertical axis: a surge moves both together.
            var correlationSquare = 0.0
            for i in 0..<3 where acrossAxisVariance[i] > 0 && alongVariance > 0 {
                let c = acrossAlongCovariance[i]
                correlationSquare = max(correlationSquare, c * c / (acrossAxisVariance[i] * alongVariance))
            }
            surging = min(acrossVariance, smoothedAcrossVariance) > surgeFloorSquare && correlationSquare > surgeCorrelationSquare
        }
        active = upperTicks >= warmUpTicks && (deviationG > currentThresholdG || surging)
        reference += (magnitude - reference) * referenceAlpha
        return active
    }
}
