import EddyVocabulary

/// The per-second facts the notices are judged on, gathered by the pipeline from the stages that own them.
package struct SecondFacts: Sendable {
    /// What the input's diagnostics said about the second.
    package var input: InputVerdict
    /// The mount is calibrated flat.
    package var horizontal: Bool
    /// The gyroscope offset in use, rad/s per device axis.
    package var gyroOffset: SIMD3<Double>
    /// A fresh fix is known at the second's end.
    package var located: Bool
    /// The latest ground-roll speed, m/s.
    package var groundRollSpeedMetersPerSecond: Double
    /// The second has no EDR (what each reason's cost counts).
    package var lost: Bool
}

/// Notices stage (docs/detection.md §9): the ten reasons why nothing or less is measured, each one `NoticeEpisode`.
/// Fed per tick with the gates that held (manoeuvre, ground roll, ground vibration, a turn only the gyro saw), per
/// second with `SecondFacts`, and at once with data gaps.
///
/// One stage rather than an episode in each stage: a second's notices are judged after its EDR is known (their cost
/// counts seconds without one), their order in the event stream is fixed (rate, flat, gyro, location, units, time
/// units, gap, manoeuvre, ground roll, ground vibration) across the stages that own the facts, and the §9 table is
/// one place here too.
package struct MeasurementNotices: Sendable {
    private let minimumSampleRateHz: Double
    private let mount: DeviceMount
    private let rotationSpeedKnots: Double
    private let vibrationSplitHz: Double
    private var rateEpisode = NoticeEpisode(onsetSeconds: 3, releaseSeconds: 5)
    private var flatEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 1)
    private var gyroEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    private var locationEpisode = NoticeEpisode(onsetSeconds: 10, releaseSeconds: 10)
    private var unitsEpisode = NoticeEpisode(onsetSeconds: 2, releaseSeconds: 5)
    private var timeUnitsEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 5)
    private var gapEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 60)
    private var longestGap = 0.0
    private var manoeuvreEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    private var secondManoeuvre = false
    private var secondManoeuvrePeak = 1.0
    private var episodeManoeuvrePeak = 1.0
    private var groundRollEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    private var secondGroundRoll = false
    private var groundVibrationEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    private var secondGroundVibration = false
    private var secondVibrationShare = 1.0
    private var episodeVibrationShare = 1.0
    private var secondGyroOnlyTurn = false

    /// Notices for the configuration; `vibrationSplitHz` is the ground-vibration cue's split in use.
    package init(configuration: DetectionConfiguration, vibrationSplitHz: Double) {
        minimumSampleRateHz = configuration.minimumSampleRateHz
        mount = configuration.mount
        rotationSpeedKnots = configuration.rotationSpeedKnots
        self.vibrationSplitHz = vibrationSplitHz
    }

    /// A manoeuvre tick, at the gate's load factor (g): the notice carries the one furthest from 1 g.
    @inline(__always) package mutating func manoeuvre(loadFactorG n: Double) {
        secondManoeuvre = true
        if abs(n - 1) > abs(secondManoeuvrePeak - 1) { secondManoeuvrePeak = n }
    }

    /// A tick in a ground roll above the ground-speed gate.
    @inline(__always) package mutating func groundRoll() { secondGroundRoll = true }

    /// A ground-vibration tick, with the band's low share (nil: not judged).
    @inline(__always) package mutating func groundVibration(share: Double?) {
        secondGroundVibration = true
        secondVibrationShare = min(secondVibrationShare, share ?? 1)
    }

    /// A tick on which only the gyro said "turning" while a fresh fix said straight.
    @inline(__always) package mutating func gyroOnlyTurn() { secondGyroOnlyTurn = true }

    /// A data gap of `interval` seconds ending at `t` (an episode of its own, or merged into the open one).
    package mutating func gap(_ interval: Double, endingAt t: Double, into events: inout [DetectionEvent]) {
        longestGap = gapEpisode.active ? max(longestGap, interval) : interval
        gapEpisode.gap(from: t - interval, to: t, kind: .timeGap(longestSeconds: longestGap), into: &events)
    }

    /// One second starting at `secondStart`: every episode, in the fixed order.
    package mutating func second(_ facts: SecondFacts, at secondStart: Double, into events: inout [DetectionEvent]) {
        let lost = facts.lost, input = facts.input
        rateEpisode.second(
            held: input.lowRate, kind: .sampleRateBelowMinimum(rateHz: input.rateHz, minimumHz: minimumSampleRateHz),
            at: secondStart, cost: lost, into: &events)
        flatEpisode.second(held: facts.horizontal, kind: .deviceFlat(mount: mount), at: secondStart, cost: lost, into: &events)
        let biasDegrees = facts.gyroOffset * (180 / Double.pi)
        gyroEpisode.second(
            held: (biasDegrees * biasDegrees).sum() > 1, kind: .gyroOffset(offsetDegreesPerSecond: biasDegrees),
            at: secondStart, cost: lost && secondGyroOnlyTurn, into: &events)
        locationEpisode.second(held: !facts.located, kind: .noLocation, at: secondStart, cost: true, into: &events)
        unitsEpisode.second(
            held: input.unitsProblem != nil, kind: input.unitsProblem.map { MeasurementNotice.Kind.unitsLookWrong($0) },
            at: secondStart, cost: lost, into: &events)
        timeUnitsEpisode.second(
            held: input.millisecondTime, kind: .unitsLookWrong(.timeInMilliseconds(stepSeconds: input.lastLongIntervalSeconds)),
            at: secondStart, cost: lost, into: &events)
        if gapEpisode.active, secondStart - gapEpisode.lastHeld >= Double(gapEpisode.releaseSeconds) {
            gapEpisode.kind = .timeGap(longestSeconds: longestGap)
            gapEpisode.close(at: gapEpisode.lastHeld, into: &events)
        }
        // The notice carries the load factor furthest from 1 g in the episode.
        if secondManoeuvre {
            if abs(secondManoeuvrePeak - 1) > abs(episodeManoeuvrePeak - 1) { episodeManoeuvrePeak = secondManoeuvrePeak }
        } else if !manoeuvreEpisode.active {
            episodeManoeuvrePeak = 1
        }
        manoeuvreEpisode.second(
            held: secondManoeuvre, kind: .manoeuvre(loadFactorG: episodeManoeuvrePeak), at: secondStart, cost: lost, into: &events)
        if !manoeuvreEpisode.active && !secondManoeuvre { episodeManoeuvrePeak = 1 }
        groundRollEpisode.second(
            held: secondGroundRoll,
            kind: .groundRoll(speedKnots: facts.groundRollSpeedMetersPerSecond * 3600 / 1852, rotationKnots: rotationSpeedKnots),
            at: secondStart, cost: lost, into: &events)
        if secondGroundVibration {
            episodeVibrationShare = min(episodeVibrationShare, secondVibrationShare)
        } else if !groundVibrationEpisode.active {
            episodeVibrationShare = 1
        }
        groundVibrationEpisode.second(
            held: secondGroundVibration, kind: .groundVibration(lowShare: episodeVibrationShare, splitHz: vibrationSplitHz),
            at: secondStart, cost: lost, into: &events)
        if !groundVibrationEpisode.active && !secondGroundVibration { episodeVibrationShare = 1 }
        secondManoeuvre = false; secondManoeuvrePeak = 1; secondGroundRoll = false; secondGroundVibration = false
        secondVibrationShare = 1
        secondGyroOnlyTurn = false
    }

    /// End of stream at `t`: closes every open episode, in the fixed order.
    package mutating func finish(at t: Double, into events: inout [DetectionEvent]) {
        rateEpisode.close(at: t, into: &events)
        flatEpisode.close(at: t, into: &events)
        gyroEpisode.close(at: t, into: &events)
        locationEpisode.close(at: t, into: &events)
        unitsEpisode.close(at: t, into: &events)
        timeUnitsEpisode.close(at: t, into: &events)
        if gapEpisode.active { gapEpisode.kind = .timeGap(longestSeconds: longestGap) }
        gapEpisode.close(at: t, into: &events)
        manoeuvreEpisode.close(at: t, into: &events)
        groundRollEpisode.close(at: t, into: &events)
        groundVibrationEpisode.close(at: t, into: &events)
    }
}
