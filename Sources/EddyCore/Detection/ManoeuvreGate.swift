import Foundation

/// The load-factor gate (docs/detection.md §5 "Manoeuvres"): a manoeuvre holds the load factor away from 1 g for
/// seconds (a 45° turn 1.41 g, a pull-up 2 g, a parabola 0 g, a stall's break and recovery 0.5 → 1.8 g), while
/// turbulence moves it about 1 g with little power below the band (the plunge response has a zero at DC).
///
/// Per tick: |f̄| (the magnitude of the tick-mean specific force, so it needs no mount, no gyro and no GPS) is
/// low-passed with τ = 2 s; its departure from the steady-flight reference (|f̄| low-passed with τ = 60 s while not
/// gated, which absorbs the accelerometer's scale error) is compared with max(`thresholdG`, `turbulenceFactor` × σ),
/// where σ is the recent RMS of the band-passed load factor (τ = 20 s, not updated while gated). The second term keeps
/// real turbulence, whose slow part grows with its in-band level, from gating itself.
///
/// A second test catches longitudinal surges (a glider's tow rope, a take-off or braking run): the specific force
/// across the apparent vertical fluctuating more than along it. Turbulence moves the aircraft mostly along its
/// vertical (lift changes; side and drag forces are a fraction of it), so an across/along RMS ratio above
/// `surgeRatio` (both low-passed with τ = 5 s), with the across RMS above `surgeFloorG`, is not turbulence.
package struct ManoeuvreGate: Sendable {
    /// Fixed part of the threshold, g.
    package let thresholdG: Double
    /// Multiple of the recent in-band RMS below which a departure is taken for turbulence.
    package let turbulenceFactor: Double
    private let fastAlpha: Double
    private let referenceAlpha: Double
    private let bandAlpha: Double
    private var started = false
    private var fast = 1.0
    private var reference = 1.0
    private var bandVariance = 0.0
    private let surgeAlpha: Double
    private let surgeRatioSquare: Double
    private let surgeFloorSquare: Double
    private var acrossVariance = 0.0
    private var alongVariance = 0.0
    /// Whether the last tick's surge test held.
    package private(set) var surging = false
    /// Whether the last tick was a manoeuvre.
    package private(set) var active = false
    /// The current departure |n_fast − n_ref|, g (n_fast low-passed with `timeConstantSeconds`).
    package private(set) var deviationG = 0.0
    /// The steady-flight level of |f̄| (≈ 1 g, the accelerometer's scale error included), g.
    package var referenceG: Double { reference }
    /// The current low-passed load factor relative to the reference (1 = steady flight), g.
    package var loadFactorG: Double { fast - reference + 1 }

    /// Creates a gate for a tick interval (seconds).
    package init(tickSeconds dt: Double, thresholdG: Double, turbulenceFactor: Double, timeConstantSeconds: Double = 2,
                 surgeRatio: Double = 1, surgeFloorG: Double = 0.02) {
        self.thresholdG = thresholdG
        self.turbulenceFactor = turbulenceFactor
        surgeAlpha = dt / (5 + dt)
        surgeRatioSquare = surgeRatio * surgeRatio
        surgeFloorSquare = surgeFloorG * surgeFloorG
        fastAlpha = dt / (max(dt, timeConstantSeconds) + dt)
        referenceAlpha = dt / (60 + dt)
        bandAlpha = dt / (20 + dt)
    }

    /// The current threshold, g.
    package var currentThresholdG: Double { max(thresholdG, turbulenceFactor * bandVariance.squareRoot()) }

    /// One tick: the magnitude of its mean specific force (nil without accelerometer data), the band-passed load factor
    /// of the previous tick (nil while not measured), and whether other gates hold (then the reference and σ stay).
    /// Returns whether the tick is a manoeuvre.
    /// `acrossG` is the tick mean's component across the apparent vertical (its departure from the τ = 5 s gravity
    /// estimate), `alongDeviationG` its component along it minus the steady level (nil: not known).
    package mutating func update(magnitudeG: Double?, bandOutputG: Double?, otherwiseGated: Bool,
                                 acrossG: Double? = nil, alongDeviationG: Double? = nil) -> Bool {
        guard let magnitude = magnitudeG, magnitude.isFinite else { return active }
        if !started { started = true; fast = magnitude; reference = magnitude }
        fast += (magnitude - fast) * fastAlpha
        deviationG = abs(fast - reference)
        if let across = acrossG, let along = alongDeviationG, across.isFinite, along.isFinite {
            acrossVariance += (across * across - acrossVariance) * surgeAlpha
            alongVariance += (along * along - alongVariance) * surgeAlpha
            surging = acrossVariance > surgeFloorSquare && acrossVariance > surgeRatioSquare * alongVariance
        }
        active = deviationG > currentThresholdG || surging
        if !active && !otherwiseGated {
            reference += (magnitude - reference) * referenceAlpha
            if let y = bandOutputG, y.isFinite { bandVariance += (y * y - bandVariance) * bandAlpha }
        }
        return active
    }
}
