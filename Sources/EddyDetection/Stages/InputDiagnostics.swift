/// What the input's diagnostics say about one second (docs/detection.md §9).
package struct InputVerdict: Sendable {
    /// Accelerometer rate, Hz (1 / running-mean interval; ∞ before any interval).
    package var rateHz: Double
    /// The rate is below the configuration's minimum.
    package var lowRate: Bool
    /// The values look like m/s² or mg.
    package var unitsProblem: UnitsProblem?
    /// The time stamps look like milliseconds.
    package var millisecondTime: Bool
    /// The last long accelerometer step, "seconds" (the step a millisecond clock makes).
    package var lastLongIntervalSeconds: Double
    /// The second cannot be measured (rate, units or time stamps): it is gated like device trouble.
    package var unmeasurable: Bool { lowRate || unitsProblem != nil || millisecondTime }
}

/// Input diagnostics stage (docs/detection.md §9): the accelerometer's sample rate (running-mean interval), time gaps
/// and millisecond-like time stamps per sample, and the tick means' magnitude (units) per second.
package struct InputDiagnostics: Sendable {
    private let minimumSampleRateHz: Double
    private var lastAccTime = -Double.infinity
    private var meanIntervalSeconds = 0.0
    private var intervalsSeen = 0
    private var millisecondLikeRun = 0
    private var lastLongInterval = 0.0
    private var secondMagnitudeSum = 0.0
    private var secondMagnitudeTicks = 0

    /// Diagnostics against the configuration's minimum rate.
    package init(minimumSampleRateHz: Double) { self.minimumSampleRateHz = minimumSampleRateHz }

    /// One accelerometer sample's time: returns the interval that ended at `t` when it is a data gap (rare), else nil.
    @inline(__always) package mutating func accelerometer(at t: Double) -> Double? {
        let interval = t - lastAccTime
        lastAccTime = t
        if interval > 0.5 || intervalsSeen < 8 { return longInterval(interval) }
        if interval > 0 { meanIntervalSeconds += (interval - meanIntervalSeconds) * 0.02 }
        return nil
    }

    /// The rare path of an accelerometer interval (> 0.5 s, or one of the first few): rate estimate, gaps, `t` in ms.
    private mutating func longInterval(_ interval: Double) -> Double? {
        guard interval.isFinite, interval > 0 else { return nil }
        intervalsSeen += 1
        if intervalsSeen == 1 { meanIntervalSeconds = interval }
        // `t` in milliseconds: steps of 2.5–1100 "s" (200 Hz … 1 Hz in ms), ten in a row within ±50 % of each other.
        if interval > 2.5, interval < 1_100, lastLongInterval > 0, abs(interval / lastLongInterval - 1) < 0.5 {
            millisecondLikeRun += 1
        } else if interval > 2.5, interval < 1_100 {
            millisecondLikeRun = 1
        } else {
            millisecondLikeRun = 0
        }
        lastLongInterval = interval
        let gapLimit = max(1.0, 5 * meanIntervalSeconds)
        if interval > gapLimit, millisecondLikeRun < 10 { return interval }
        meanIntervalSeconds += (interval - meanIntervalSeconds) * (intervalsSeen <= 8 ? 1 / Double(intervalsSeen) : 0.02)
        return nil
    }

    /// One tick with accelerometer samples: the magnitude of its mean, g.
    @inline(__always) package mutating func tick(magnitudeG: Double) {
        secondMagnitudeSum += magnitudeG
        secondMagnitudeTicks += 1
    }

    /// Closes a second: what the input says about it.
    package mutating func closeSecond() -> InputVerdict {
        let rateHz = intervalsSeen > 0 && meanIntervalSeconds > 0 ? 1 / meanIntervalSeconds : Double.infinity
        let lowRate = intervalsSeen >= 2 && rateHz < minimumSampleRateHz && millisecondLikeRun < 10
        let magnitude = secondMagnitudeTicks > 0 ? secondMagnitudeSum / Double(secondMagnitudeTicks) : 1
        secondMagnitudeSum = 0; secondMagnitudeTicks = 0
        var unitsProblem: UnitsProblem?
        if magnitude > 6, magnitude < 14 { unitsProblem = .accelerationInMetersPerSecondSquared(magnitude: magnitude) }
        else if magnitude > 600, magnitude < 1_400 { unitsProblem = .accelerationInMilliG(magnitude: magnitude) }
        return InputVerdict(rateHz: rateHz, lowRate: lowRate, unitsProblem: unitsProblem, millisecondTime: millisecondLikeRun >= 10,
                            lastLongIntervalSeconds: lastLongInterval)
    }
}
