/// What the location-derived motion says about one tick.
package struct MotionTick: Sendable {
    /// The last fix is fresh (within `groundSpeedMaxAgeSeconds`): its track rate counts.
    package var fixFresh: Bool
    /// GNSS track rate, degrees/s (0 when the fix is stale or has no course).
    package var trackRateDegreesPerSecond: Double
    /// The last fix had a course (so the track is known).
    package var hasCourse: Bool
    /// A fresh speed is known.
    package var speedKnown: Bool
    /// On the ground: below the ground-speed gate, or in a ground roll below the rotation speed.
    package var onGround: Bool
    /// In a ground roll at or above the ground-speed gate (the `ground_roll` notice).
    package var rollingAboveGate: Bool
}

/// Location-derived motion stage (docs/detection.md §5): ground speed, GNSS track rate, the ground roll (once on the
/// ground, until a fresh speed reaches the rotation speed) and braking (a landing roll), from fixes as navigation
/// placed them; per tick, the ground and turn facts at the tick's time.
package struct LocationMotion: Sendable {
    private let groundSpeedGateMetersPerSecond: Double
    private let rotationSpeedMetersPerSecond: Double
    private let brakingMetersPerSecondSquared: Double
    private let groundSpeedMaxAge: Double
    /// The latest usable ground speed, m/s (nil when the latest fix gave none).
    package private(set) var groundSpeedMetersPerSecond: Double?
    private var groundSpeedTime = -Double.infinity
    /// Time of the latest fix, seconds.
    package private(set) var lastFixTime = -Double.infinity
    /// When the latest fix reached the pipeline, on the motion stream's time: its own time, or the latest tick's when it
    /// came later than that (fixes pushed late). "No location" is about fixes that stopped coming, not late ones.
    private var lastFixArrival = -Double.infinity
    /// The latest tick's time.
    private var latestTickTime = -Double.infinity
    private var lastCourse: (t: Double, degrees: Double)?
    private var trackRateDegreesPerSecond = 0.0
    private var groundRoll = false
    /// The speed of the ground roll, m/s (the latest fresh one while rolling).
    package private(set) var groundRollSpeedMetersPerSecond = 0.0
    private var recentSpeeds: [(t: Double, speed: Double)] = []

    /// Motion with the configuration's gates (ground speed, rotation speed, braking) and fix age.
    package init(configuration: DetectionConfiguration) {
        groundSpeedGateMetersPerSecond = configuration.groundSpeedGateKnots * 1852 / 3600
        rotationSpeedMetersPerSecond = configuration.rotationSpeedKnots * 1852 / 3600
        brakingMetersPerSecondSquared = configuration.brakingMetersPerSecondSquared
        groundSpeedMaxAge = configuration.groundSpeedMaxAgeSeconds.isFinite ? max(0, configuration.groundSpeedMaxAgeSeconds) : 3
    }

    /// A fix at `t`: the fix's own speed, else the position filter's speed when it is known to ±10 m/s (68 %) — a fix
    /// without speed must not lift the ground gate, nor may the filter's first guess (0 ± 100 m/s) set it — and its course.
    package mutating func fix(at t: Double, receivedSpeed: Double?, filteredSpeed: Double?, velocityUncertainty68: Double?,
                              courseDegrees: Double?) {
        lastFixTime = t
        lastFixArrival = max(t, latestTickTime)
        if let speed = receivedSpeed, speed.isFinite, speed >= 0 {
            groundSpeedMetersPerSecond = speed; groundSpeedTime = t
        } else if let speed = filteredSpeed, speed.isFinite, speed >= 0, let uncertainty = velocityUncertainty68, uncertainty <= 10 {
            groundSpeedMetersPerSecond = speed; groundSpeedTime = t
        } else {
            groundSpeedMetersPerSecond = nil
        }
        noteBraking()
        if let course = courseDegrees, course.isFinite, course >= 0 {
            if let last = lastCourse, t > last.t, t - last.t <= 5 {
                var delta = course - last.degrees
                delta -= 360 * (delta / 360).rounded()
                trackRateDegreesPerSecond = abs(delta) / (t - last.t)
            } else {
                trackRateDegreesPerSecond = 0
            }
            lastCourse = (t, course)
        } else {
            trackRateDegreesPerSecond = 0
            lastCourse = nil
        }
    }

    /// Whether fixes still come at `t` (no `no_location` notice): one reached the pipeline within the fix age limit.
    /// Fixes that arrive late still place the seconds in a tile (the tracker's current one); their lateness is the
    /// `late_samples` notice's.
    package func isLocated(at t: Double) -> Bool { t - lastFixArrival <= groundSpeedMaxAge }

    /// The motion facts at a tick ending at `t`. A fix's speed and track rate are used only while the fix is fresh.
    package mutating func tick(at t: Double) -> MotionTick {
        latestTickTime = t
        let fixFresh = t - lastFixTime <= groundSpeedMaxAge
        let speedFresh = t - groundSpeedTime <= groundSpeedMaxAge
        var onGround = groundSpeedMetersPerSecond.map { $0 < groundSpeedGateMetersPerSecond && speedFresh } ?? false
        var rolling = false
        // Ground roll: once on the ground, the aircraft stays there until a fresh speed reaches the rotation speed (a
        // take-off roll between 50 kt and V_R is still on the runway); a landing roll is caught by its braking.
        if onGround { groundRoll = true }
        if groundRoll {
            if let speed = groundSpeedMetersPerSecond, speedFresh, speed < rotationSpeedMetersPerSecond {
                onGround = true
                groundRollSpeedMetersPerSecond = speed
                if speed >= groundSpeedGateMetersPerSecond { rolling = true }
            } else {
                groundRoll = false
            }
        }
        return MotionTick(
            fixFresh: fixFresh, trackRateDegreesPerSecond: fixFresh ? trackRateDegreesPerSecond : 0, hasCourse: lastCourse != nil,
            speedKnown: speedFresh && groundSpeedMetersPerSecond != nil, onGround: onGround, rollingAboveGate: rolling)
    }

    /// Landing roll: a fresh speed below 1.3 × the rotation speed falling by more than `brakingMetersPerSecondSquared`
    /// over the last 3 s (wheel brakes and reversers give 1.5–3 m/s²; in flight an aircraft slows at ≤ 1 m/s²) puts the
    /// aircraft on the ground until it is back at the rotation speed.
    private mutating func noteBraking() {
        guard let speed = groundSpeedMetersPerSecond, groundSpeedTime == lastFixTime else { recentSpeeds.removeAll(); return }
        recentSpeeds.append((lastFixTime, speed))
        recentSpeeds.removeAll { lastFixTime - $0.t > 3.5 || $0.t > lastFixTime }
        guard let first = recentSpeeds.first, lastFixTime - first.t >= 2.5 else { return }
        let deceleration = (first.speed - speed) / (lastFixTime - first.t)
        if speed < 1.3 * rotationSpeedMetersPerSecond, deceleration > brakingMetersPerSecondSquared { groundRoll = true }
    }
}
