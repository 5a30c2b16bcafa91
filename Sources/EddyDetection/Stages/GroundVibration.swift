import EddyVocabulary

/// Ground vibration stage, without location (docs/detection.md §5 "Ground rolls without location"): true when no fresh
/// speed is known, the band holds at least `groundVibrationMinimumLightFraction` of the light threshold (as EDR,
/// τ = 2 s), and less than `groundVibrationLowShare` of its power (τ = `groundVibrationTimeConstantSeconds`, after a
/// running mean over the first τ) has lain below the split for `groundVibrationHoldSeconds`. On the ground the gear
/// transmits the runway's profile, whose acceleration grows with frequency up to and beyond the heave resonance
/// (1.5–2 Hz); in the air the plunge response puts most of the gust load below 1 Hz.
package struct GroundVibration: Sendable {
    /// Low-pass at the split of the band's output: the part of the band below the split (4th-order Butterworth).
    private var splitFilter: (Biquad, Biquad)
    /// The split in use, Hz (the configuration's, bounded to 0.01 Hz … 0.45 × the tick rate).
    package let splitHz: Double
    private let lowShareLimit: Double
    private let minimumEDR: Double
    private let alpha: Double
    private let recentAlpha: Double
    private let holdTicks: Int
    private var bandPower = 0.0
    private var lowPower = 0.0
    /// The band's power over the last seconds (τ = 2 s): the floor is judged on it, so the cue ends within seconds of the
    /// vibration (a taxi stopping), not after the τ = 10 s estimate has decayed.
    private var recentPower = 0.0
    private var ticks = 0
    /// 1 / `ticks` has fallen to both smoothing factors (it only falls), so they are used as they are.
    private var warm = false
    private var lowTicks = 0
    /// The band's share of power below the split (τ = `groundVibrationTimeConstantSeconds`), while it is judged; nil
    /// otherwise (for tests and diagnostics).
    package private(set) var share: Double?

    /// The cue of the configuration at `ticksPerSecond`.
    package init(configuration: DetectionConfiguration, ticksPerSecond: Int) {
        let rate = Double(ticksPerSecond)
        let split = configuration.groundVibrationSplitHz.isFinite
            ? min(0.45 * max(5, configuration.internalRateHz), max(0.01, configuration.groundVibrationSplitHz)) : 1
        splitHz = split
        let (qa, qb) = BandPassFilter.butterworthQ
        splitFilter = (.lowPass(cutoffHz: split, sampleRateHz: rate, q: qa), .lowPass(cutoffHz: split, sampleRateHz: rate, q: qb))
        let tau = configuration.groundVibrationTimeConstantSeconds.isFinite ? max(0.1, configuration.groundVibrationTimeConstantSeconds) : 10
        alpha = (1 / rate) / (tau + 1 / rate)
        recentAlpha = (1 / rate) / (2 + 1 / rate)
        let hold = configuration.groundVibrationHoldSeconds.isFinite ? min(3_600, max(0, configuration.groundVibrationHoldSeconds)) : 5
        holdTicks = max(1, Int((hold * rate).rounded()))
        lowShareLimit = configuration.groundVibrationLowShare
        minimumEDR = configuration.groundVibrationMinimumLightFraction
            * SeverityScale.minimumEDR(for: .light, viewer: configuration.aircraftClass)
    }

    /// One measured tick: the detection band's output, whether a fresh speed is known, and the EDR scale in force.
    /// Returns whether the cue holds.
    package mutating func tick(bandOutput y: Double, speedKnown: Bool, scale: EDRScale) -> Bool {
        let low = splitFilter.1.process(splitFilter.0.process(y))
        ticks += 1
        // A running mean (1/n) until it falls to the filter's α, then α: the division is paid only while warming up.
        let alpha = warm ? self.alpha : max(self.alpha, 1 / Double(ticks))
        let recentAlpha = warm ? self.recentAlpha : max(self.recentAlpha, 1 / Double(ticks))
        if !warm, 1 / Double(ticks) <= min(self.alpha, self.recentAlpha) { warm = true }
        bandPower += (y * y - bandPower) * alpha
        lowPower += (low * low - lowPower) * alpha
        recentPower += (y * y - recentPower) * recentAlpha
        share = nil
        guard lowShareLimit > 0, !speedKnown, Double(ticks) * self.alpha >= 1,
              bandPower > 0, scale.unitVariance > 0 else { lowTicks = 0; return false }
        guard scale.edr(variance: recentPower) >= minimumEDR else { lowTicks = 0; return false }
        let share = lowPower / bandPower
        self.share = share
        lowTicks = share < lowShareLimit ? lowTicks + 1 : 0
        return lowTicks >= holdTicks
    }

    /// Forgets the estimates (the band restarts after device trouble).
    package mutating func reset() {
        guard ticks > 0 else { return }
        splitFilter.0.reset(); splitFilter.1.reset()
        bandPower = 0; lowPower = 0; recentPower = 0; ticks = 0; lowTicks = 0; warm = false
        share = nil
    }
}
