/// Paces a replay against a clock the caller reads (`eddy replay --engine --speed FACTOR`): the sample at log time `t`
/// is due `(t − t₀) / speed` seconds after pacing started, where `t₀` is the first paced sample's time. Pure: the
/// caller passes the elapsed wall time and does the waiting (docs/reliability.md, "Soak").
package struct ReplayPacer: Sendable, Equatable {
    /// The longest single wait, seconds: a gap in the log (or a wild time in a damaged one) longer than this at the
    /// replay's speed is shortened to it and the schedule moves on from there, so a bad `t` cannot stall a replay.
    package static let maximumWaitSeconds = 60.0

    /// Log seconds per wall second (10 = ten times real time).
    package let speed: Double
    /// Log time that is due at `originElapsedSeconds` (nil before the first sample).
    package private(set) var originLogTime: Double?
    /// Elapsed wall time at which `originLogTime` is due, seconds.
    package private(set) var originElapsedSeconds = 0.0

    /// A pacer at `speed` (log seconds per wall second); nil unless `speed` is finite and positive.
    package init?(speed: Double) {
        guard speed.isFinite, speed > 0 else { return nil }
        self.speed = speed
    }

    /// Seconds to wait before pushing the sample at log time `t` when `elapsedSeconds` of wall time have passed since
    /// pacing started; 0 when it is due or late (a replay that fell behind catches up without waiting). The first
    /// call fixes the origin. A wait longer than `maximumWaitSeconds` is cut to it and the origin moves so that the
    /// samples after it keep their spacing.
    package mutating func waitSeconds(beforeLogTime t: Double, elapsedSeconds: Double) -> Double {
        guard t.isFinite, elapsedSeconds.isFinite else { return 0 }
        guard let origin = originLogTime else {
            originLogTime = t
            originElapsedSeconds = elapsedSeconds
            return 0
        }
        let due = originElapsedSeconds + (t - origin) / speed
        let wait = due - elapsedSeconds
        guard wait > 0 else { return 0 }
        guard wait > Self.maximumWaitSeconds else { return wait }
        originLogTime = t
        originElapsedSeconds = elapsedSeconds + Self.maximumWaitSeconds
        return Self.maximumWaitSeconds
    }
}
