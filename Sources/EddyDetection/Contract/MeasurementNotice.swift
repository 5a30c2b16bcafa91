public import EddyVocabulary
import Foundation

/// What made accelerometer or time values look like the wrong unit.
public enum UnitsProblem: Sendable, Equatable {
    /// |a| at rest ≈ 9.8: the values are m/s², not g. `magnitude` is the mean |a| seen.
    case accelerationInMetersPerSecondSquared(magnitude: Double)
    /// |a| at rest ≈ 1000: the values are milli-g, not g.
    case accelerationInMilliG(magnitude: Double)
    /// `t` steps by ≈ 20 where ≈ 0.02 was expected: `t` is in milliseconds. `stepSeconds` is the typical step.
    case timeInMilliseconds(stepSeconds: Double)
}

/// Which stream a sample came from (a notice about time stamps or values names it).
public enum SampleSource: String, Sendable, Equatable, CaseIterable {
    /// Accelerometer samples.
    case accelerometer
    /// Gyroscope samples.
    case gyroscope
    /// Barometer readings.
    case barometer
    /// Location fixes.
    case location
}

/// What a source's time stamps look like when they cannot be Unix seconds of this flight (docs/detection.md §9).
public enum TimeStampProblem: Sendable, Equatable {
    /// What stamps before 2010 look like.
    public enum Guess: String, Sendable, Equatable {
        /// Below 10⁸ s (3 years): seconds since the device booted (CoreMotion's `timestamp`, `ProcessInfo.systemUptime`).
        case secondsSinceBoot = "since_boot"
        /// 2010 or later once 978,307,200 s are added: seconds since 2001 (`timeIntervalSinceReferenceDate`).
        case secondsSince2001 = "since_2001"
        /// Neither.
        case unknown
    }

    /// Before 2010-01-01 (Unix 1,262,304,000 s) where the engine takes Unix seconds; `guess` says what they look like.
    case beforeYear2010(Guess)
    /// More than a day ahead of the host's clock, by `seconds`.
    case aheadOfHostClock(seconds: Double)
    /// `seconds` away from the latest location fix (negative: behind it, so the fix was stamped in this source's
    /// future; positive: more than a day ahead of it): the sources run on different clocks, or this one's stamps jumped.
    case offsetFromLocation(seconds: Double)
}

/// One reason detection measured nothing or less, as an episode (docs/detection.md §9): raised once when it begins
/// and once when it ends, never per sample.
public struct MeasurementNotice: Sendable, Equatable {
    /// The reason.
    public enum Kind: Sendable, Equatable {
        /// The accelerometer arrives at `rateHz`, below `minimumHz` (2.5 × the top of the class's EDR band): the band
        /// cannot be resolved without aliasing, so nothing is reported as a severity, not even "light".
        case sampleRateBelowMinimum(rateHz: Double, minimumHz: Double)
        /// The device lies flat (|û_z| > cos 15°) in a `mount` where flat means "lying on a seat": nothing is measured.
        case deviceFlat(mount: DeviceMount)
        /// The gyroscope reads `offsetDegreesPerSecond` (per device axis) at zero rate; it is estimated and removed.
        case gyroOffset(offsetDegreesPerSecond: SIMD3<Double>)
        /// No fresh location fix (none yet, or the latest older than the age limit): ground speed is unknown, nothing
        /// can be placed in a tile.
        case noLocation
        /// Values look like the wrong unit: nothing is measured until they look right.
        case unitsLookWrong(UnitsProblem)
        /// The accelerometer stopped; `longestSeconds` is the longest gap of the episode.
        case timeGap(longestSeconds: Double)
        /// A manoeuvre (steep turn, pull-up, parabola, stall recovery, tow surges…): the load factor changed by a lot
        /// within seconds; `loadFactorG` is the one furthest from 1 g while gated (τ = 2 s). Not turbulence: not measured.
        case manoeuvre(loadFactorG: Double)
        /// A take-off or landing roll: on the ground at `speedKnots` (the latest), below the class's rotation speed
        /// `rotationKnots`. Runway bumps are not turbulence: not measured.
        case groundRoll(speedKnots: Double, rotationKnots: Double)
        /// No location, and the load factor has a rolling aircraft's spectrum: only `lowShare` (0…1, the lowest in the
        /// episode) of the EDR band's power lies below `splitHz`, where airborne turbulence puts most of it. Runway or
        /// taxiway bumps are not turbulence: not measured.
        case groundVibration(lowShare: Double, splitHz: Double)
        /// Samples of `source` with a time or value that is NaN or ±∞: refused.
        case invalidValues(source: SampleSource)
        /// Samples of `source` arrived after newer samples had gone to detection: up to `lagSeconds` behind, beyond the
        /// engine's 2 s reorder window, so detection took them out of order.
        case lateSamples(source: SampleSource, lagSeconds: Double)
        /// The time stamps of `source` cannot be this flight's Unix seconds.
        case timeStampsWrong(source: SampleSource, problem: TimeStampProblem)
    }

    /// Whether the episode begins or ends with this notice.
    public enum Phase: String, Sendable, Equatable {
        /// The reason started to hold (`end` is nil).
        case began
        /// The reason stopped holding, or the stream ended.
        case ended
    }

    /// Begins or ends.
    public var phase: Phase
    /// The reason, with its values (at the start for `began`; the episode's for `ended`).
    public var kind: Kind
    /// Start of the episode, seconds (log time base; Unix seconds on the host's side).
    public var start: Double
    /// End of the episode (nil while it lasts).
    public var end: Double?
    /// How often it was seen in the episode: seconds (rate, flat, location, units), gaps, or offset updates.
    public var count: Int
    /// Seconds of the episode that were not measured (no per-second EDR) while it held; for `noLocation`, the seconds
    /// that could not be placed in a tile.
    public var secondsCost: Double

    /// Creates a notice.
    public init(phase: Phase, kind: Kind, start: Double, end: Double?, count: Int, secondsCost: Double) {
        self.phase = phase; self.kind = kind; self.start = start; self.end = end; self.count = count
        self.secondsCost = secondsCost
    }

    /// A stable snake_case name of the kind (JSON, summaries).
    public var kindName: String { Self.name(of: kind) }

    /// The snake_case name of a kind.
    public static func name(of kind: Kind) -> String {
        switch kind {
        case .sampleRateBelowMinimum: "sample_rate_below_minimum"
        case .deviceFlat: "device_flat"
        case .gyroOffset: "gyro_offset"
        case .noLocation: "no_location"
        case .unitsLookWrong(.accelerationInMetersPerSecondSquared): "units_acceleration_m_s2"
        case .unitsLookWrong(.accelerationInMilliG): "units_acceleration_mg"
        case .unitsLookWrong(.timeInMilliseconds): "units_time_ms"
        case .timeGap: "time_gap"
        case .manoeuvre: "manoeuvre"
        case .groundRoll: "ground_roll"
        case .groundVibration: "ground_vibration"
        case .invalidValues: "invalid_values"
        case .lateSamples: "late_samples"
        case .timeStampsWrong(_, .beforeYear2010): "time_before_2010"
        case .timeStampsWrong(_, .aheadOfHostClock): "time_ahead_of_host_clock"
        case .timeStampsWrong(_, .offsetFromLocation): "time_offset_from_location"
        }
    }

    /// What happened and what to do, one sentence.
    public var reason: String {
        switch kind {
        case .sampleRateBelowMinimum(let rate, let minimum):
            return String(format: "accelerometer at %.2f Hz, below the minimum %.1f Hz (2.5 × the top of the EDR band): ", rate, minimum)
                + "nothing is reported as a severity. Record at 25 Hz or more"
        case .deviceFlat(let mount):
            return "device lies flat in a \(mount.rawValue) mount (taken as lying on a seat): nothing measured. "
                + "For an AHRS, logger or panel mount use the fixed mount (--mount fixed, meta.json device.mount)"
        case .gyroOffset(let b):
            let norm = (b * b).sum().squareRoot()
            return String(format: "gyroscope zero-rate offset %.1f °/s (x %.1f, y %.1f, z %.1f): estimated and removed before the turn gate",
                          norm, b.x, b.y, b.z)
        case .noLocation:
            return "no fresh location fix: ground speed unknown (the ground gate cannot act) and no tile can be placed"
        case .unitsLookWrong(.accelerationInMetersPerSecondSquared(let m)):
            return String(format: "|a| ≈ %.1f at rest: the accelerometer looks like m/s², not g: nothing measured. Divide by 9.80665", m)
        case .unitsLookWrong(.accelerationInMilliG(let m)):
            return String(format: "|a| ≈ %.0f at rest: the accelerometer looks like mg, not g: nothing measured. Divide by 1000", m)
        case .unitsLookWrong(.timeInMilliseconds(let step)):
            return String(format: "t steps by ≈ %.3g where ≈ 0.02 is expected: t looks like milliseconds: nothing measured. Divide t by 1000", step)
        case .timeGap(let longest):
            return String(format: "no accelerometer data (longest gap %.1f s)", longest)
        case .manoeuvre(let n):
            return String(format: "manoeuvre: load factor changing, reaching %.2f g (steep turn, pull-up, parabola, stall recovery or tow surges), ", n)
                + "not turbulence: not measured until 20 s after it settles"
        case .groundRoll(let speed, let rotation):
            return String(format: "on the runway at %.0f kt, below the rotation speed %.0f kt: runway bumps are not turbulence: ", speed, rotation)
                + "not measured until 20 s after lift-off"
        case .groundVibration(let share, let split):
            return String(format: "no location, and the load factor has a ground roll's spectrum (%.0f %% of the band's power below %.1f Hz, ", share * 100, split)
                + "where airborne turbulence has most of it): runway or taxiway bumps are not turbulence: not measured until 20 s after it ends"
        case .invalidValues(let source):
            return "\(source.rawValue) samples with a time or value that is NaN or infinite were refused: "
                + "check the sensor glue (an unset time stamp, a failed unit conversion)"
        case .lateSamples(let source, let lag):
            return String(format: "%@ samples arrived up to %.1f s after newer samples had gone to detection (the engine waits 2 s): ", source.rawValue, lag)
                + "they were measured out of order. Push each sample as it arrives, stamped with its measurement time on the same clock as the others"
        case .timeStampsWrong(let source, let problem):
            return Self.timeStampAdvice(source, problem)
        }
    }

    /// What a time-stamp problem means and what to do.
    private static func timeStampAdvice(_ source: SampleSource, _ problem: TimeStampProblem) -> String {
        let name = source.rawValue
        switch problem {
        case .beforeYear2010(.secondsSinceBoot):
            return "\(name) times are before 2010 and look like seconds since the device booted (CoreMotion's timestamp): "
                + "nothing is placed in this flight. Add the boot time in Unix seconds (the current timeIntervalSince1970 "
                + "minus ProcessInfo.processInfo.systemUptime, taken once)"
        case .beforeYear2010(.secondsSince2001):
            return "\(name) times are before 2010 and look like seconds since 2001 (timeIntervalSinceReferenceDate): "
                + "reports would land in the wrong year. Use timeIntervalSince1970"
        case .beforeYear2010(.unknown):
            return "\(name) times are before 2010: the engine takes Unix seconds. Stamp samples with timeIntervalSince1970"
        case .aheadOfHostClock(let seconds):
            return String(format: "%@ times are %.0f s ahead of the device's clock: reports would be dated in the future. ", name, seconds)
                + "Stamp samples with their measurement time in Unix seconds"
        case .offsetFromLocation(let seconds):
            let base = abs(abs(seconds) - 978_307_200) < 86_400 ? " (one of them is stamped since 2001)"
                : abs(seconds) > 1e8 ? " (one of them is on another time base, e.g. seconds since boot)" : ""
            return String(format: "%@ times are %.1f s %@ the location fixes'%@: the sources are on different clocks, or these stamps jumped. ",
                          name, abs(seconds), seconds < 0 ? "behind" : "ahead of", base)
                + "Tiles and gates use the wrong fix until they agree. Stamp every source on one clock (Unix seconds of the measurement)"
        }
    }
}
