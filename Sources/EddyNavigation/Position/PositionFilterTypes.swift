import EddySupport
package import EddyVocabulary
import Foundation

/// A filtered horizontal position with ground velocity and honest uncertainty (docs/position.md).
package struct FilteredPosition: Sendable, Equatable {
    /// Time, seconds (the fixes' time base).
    package var t: Double
    /// Latitude, degrees WGS-84.
    package var latitudeDegrees: Double
    /// Longitude, degrees WGS-84, in −180…180.
    package var longitudeDegrees: Double
    /// Ground velocity towards true north, m/s.
    package var velocityNorthMetersPerSecond: Double
    /// Ground velocity towards east, m/s.
    package var velocityEastMetersPerSecond: Double
    /// Radius around the position that holds the true position with 68 % probability, metres.
    package var uncertainty68Meters: Double
    /// Radius around the position that holds the true position with 90 % probability, metres.
    package var uncertainty90Meters: Double
    /// Radius around the velocity that holds the true ground velocity with 68 % probability, m/s.
    package var velocityUncertainty68MetersPerSecond: Double

    /// Creates a filtered position.
    package init(
        t: Double, latitudeDegrees: Double, longitudeDegrees: Double, velocityNorthMetersPerSecond: Double,
        velocityEastMetersPerSecond: Double, uncertainty68Meters: Double, uncertainty90Meters: Double,
        velocityUncertainty68MetersPerSecond: Double
    ) {
        self.t = t
        self.latitudeDegrees = latitudeDegrees
        self.longitudeDegrees = longitudeDegrees
        self.velocityNorthMetersPerSecond = velocityNorthMetersPerSecond
        self.velocityEastMetersPerSecond = velocityEastMetersPerSecond
        self.uncertainty68Meters = uncertainty68Meters
        self.uncertainty90Meters = uncertainty90Meters
        self.velocityUncertainty68MetersPerSecond = velocityUncertainty68MetersPerSecond
    }

    /// Ground speed, m/s.
    package var groundSpeedMetersPerSecond: Double {
        (velocityNorthMetersPerSecond * velocityNorthMetersPerSecond
            + velocityEastMetersPerSecond * velocityEastMetersPerSecond).squareRoot()
    }

    /// Track over the ground, degrees true in [0, 360); nil below 0.5 m/s, where the direction means nothing.
    package var trackDegrees: Double? {
        guard groundSpeedMetersPerSecond >= 0.5 else { return nil }
        let degrees = atan2(velocityEastMetersPerSecond, velocityNorthMetersPerSecond) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }
}

/// Why a fix was not used.
package enum PositionRejection: Error, Sendable, Equatable {
    /// The fix time is NaN or infinite.
    case invalidTime
    /// The fix is not later than the last fix taken (duplicate or out of order).
    case notAfterPreviousFix(previousTime: Double)
    /// Latitude or longitude is not finite or outside ±90° / ±180°.
    case invalidCoordinates
    /// The reported horizontal accuracy is zero, negative, NaN or infinite.
    case invalidAccuracy
    /// The reported horizontal accuracy is worse than the configured limit.
    case accuracyWorseThan(limitMeters: Double, reportedMeters: Double)
    /// Reaching the fix needs a ground speed no aircraft flies (beyond the position uncertainty).
    case impossibleSpeed(metersPerSecond: Double, limitMetersPerSecond: Double)
    /// Reaching the fix needs an acceleration no aircraft flies (beyond the position uncertainty).
    case impossibleAcceleration(metersPerSecondSquared: Double, limitMetersPerSecondSquared: Double)
    /// The fix lies outside the innovation gate (squared Mahalanobis distance above the chi-square limit).
    case outsideInnovationGate(mahalanobisSquared: Double, limit: Double)
}

/// Why an estimator started afresh from a fix.
package enum PositionRestartReason: Sendable, Equatable {
    /// The first usable fix.
    case firstFix
    /// The fix came this long after the last one taken, seconds.
    case gap(seconds: Double)
    /// This many fixes in a row were rejected for at least the configured time (a real relocation).
    case consecutiveRejections(count: Int)
}

/// What became of one fix.
package enum PositionFilterOutcome: Sendable, Equatable {
    /// The fix was used; the estimate after it.
    case accepted(FilteredPosition)
    /// The estimator started afresh at this fix.
    case restarted(FilteredPosition, reason: PositionRestartReason)
    /// The fix was not used.
    case rejected(PositionRejection)

    /// The estimate after the fix, nil when it was rejected.
    package var position: FilteredPosition? {
        switch self {
        case .accepted(let p), .restarted(let p, _): p
        case .rejected: nil
        }
    }
}

/// Tuning of the horizontal position estimators; every default is justified in docs/position.md §4.
package struct PositionFilterConfiguration: Sendable, Equatable {
    /// Fixes reporting a horizontal accuracy (68 % radius) worse than this are rejected, metres.
    package var maximumAccuracyMeters: Double = 50
    /// Accuracy assumed for a fix that reports none (external receivers), metres (68 % radius).
    package var accuracyWhenUnknownMeters: Double = 15
    /// Fastest ground speed any aircraft this engine serves can fly, m/s (≈ 780 kt).
    package var maximumGroundSpeedMetersPerSecond: Double = 400
    /// Largest horizontal acceleration any such aircraft sustains, m/s² (≈ 2 g: a 63° banked level turn).
    package var maximumAccelerationMetersPerSecondSquared: Double = 20
    /// Multiple of the combined 1-σ position spread allowed on top of the physical limits before they reject.
    package var physicalLimitSigmas: Double = 4
    /// Squared Mahalanobis distance beyond which a fix is outside the innovation gate (χ² with 2 degrees of freedom;
    /// 13.82 is the 99.9 % point).
    package var gateChiSquare: Double = 13.82
    /// Sustained manoeuvre acceleration the gate tolerates beyond the filter's prediction, m/s² (a standard-rate turn
    /// at 180 kt is 4.9 m/s²); only matters after gaps of several seconds.
    package var gateManoeuvreAccelerationMetersPerSecondSquared: Double = 5
    /// Consecutive rejections that restart the filter, together with `restartAfterRejectedSeconds`.
    package var restartAfterRejections: Int = 5
    /// The consecutive rejections must also span at least this long, seconds (longer than a multipath excursion).
    package var restartAfterRejectedSeconds: Double = 20
    /// How long the state from before a run of rejections is kept to fall back on when an excursion got through the
    /// gate, seconds (longer than a multipath excursion).
    package var fallbackSeconds: Double = 30
    /// A fix arriving more than this long after the last one taken restarts the filter, seconds.
    package var restartAfterGapSeconds: Double = 60
    /// `predicted(at:)` answers nil beyond this age of the last fix, seconds.
    package var maximumPredictionSeconds: Double = 60
    /// White-noise acceleration spectral density of the constant-velocity model, m²/s³ (aircraft manoeuvres).
    package var accelerationNoiseDensity: Double = 1.0
    /// Share of the fix's error variance that is time-correlated (the rest is white).
    package var correlatedErrorFraction: Double = 0.85
    /// Correlation time of the time-correlated GNSS error (first-order Gauss–Markov), seconds.
    package var correlationTimeSeconds: Double = 60
    /// Log-spread of the true error σ around the σ the reported accuracy implies (1-σ of ln(true/reported)): phone
    /// accuracy reports do not track the true error, so the output radii are those of the resulting scale mixture.
    package var reportedAccuracyLogSigma: Double = 0.2
    /// Share of fixes whose true position lies within the reported accuracy radius: Android defines 0.68; the
    /// simulator's phone profile measures 0.75 (docs/position.md §4).
    package var reportedAccuracyCoverage: Double = 0.75
    /// 1-σ noise of one axis of a velocity derived from the fix's speed and course, m/s.
    package var velocityNoiseMetersPerSecond: Double = 0.3
    /// Fixes closer together than this are not independent (phone chipsets filter their output): the white noise of
    /// the position and velocity measurements is multiplied by this time over the interval, seconds.
    package var measurementDecorrelationSeconds: Double = 1
    /// Below this speed the fix's course is not used, m/s.
    package var minimumSpeedForCourseMetersPerSecond: Double = 1
    /// 1-σ of one velocity axis when a filter starts without a velocity measurement, m/s.
    package var initialVelocitySigmaMetersPerSecond: Double = 100
    /// The local tangent plane is moved to the current position beyond this distance from its origin, metres.
    package var recentreDistanceMeters: Double = 2000
    /// Number of fixes the running average keeps.
    package var runningAverageCount: Int = 10
    /// Number of fixes the windowed least-squares fit keeps.
    package var leastSquaresCount: Int = 10

    /// Creates the default configuration.
    package init() {}
}

/// Radius factors of a circular 2-D Gaussian: P(r ≤ kσ) = 1 − exp(−k²/2), so k = √(−2 ln(1 − p)) (docs/position.md §3).
package enum CircularGaussian {
    /// Radius of the 68 % circle in units of the per-axis σ: √(−2 ln 0.32) ≈ 1.5096.
    package static let radius68PerSigma = (-2 * log(0.32)).squareRoot()
    /// Radius of the 90 % circle in units of the per-axis σ: √(−2 ln 0.10) ≈ 2.1460.
    package static let radius90PerSigma = (-2 * log(0.10)).squareRoot()

    /// Radius (in units of the nominal per-axis σ) holding `probability` of a circular Gaussian whose true σ is the
    /// nominal one times e^(s·Z), Z standard normal: the scale mixture that results when the reported accuracy
    /// misstates the true σ by a log-normal factor with log-spread `logSigma`. Equals √(−2 ln(1 − p)) for s = 0.
    /// Solved by bisection over a trapezoid integral on Z ∈ [−6, 6] (called once per configuration, not per fix). The
    /// integral's weights and scales do not depend on the radius: they are computed once, not once per bisection step, and
    /// the bisection stops when its midpoint no longer moves (the remaining steps could not change it).
    package static func mixtureRadius(probability: Double, logSigma: Double) -> Double {
        let p = min(max(probability, 1e-9), 1 - 1e-9)
        guard logSigma.isFinite, logSigma > 0 else { return (-2 * log(1 - p)).squareRoot() }
        // Keyed by bit pattern: the result of exactly these arguments, whatever == says of ±0.
        return solvedMixtureRadii.value(for: [p.bitPattern, logSigma.bitPattern]) { solveMixtureRadius(p: p, logSigma: logSigma) }
    }

    /// Radii already solved: each filter set-up asks for the same three (≈ 0.7 M instructions each).
    private static let solvedMixtureRadii = MemoTable<[UInt64], Double>(capacity: 16)

    /// `mixtureRadius` for a clamped probability and a positive, finite log-spread, solved.
    private static func solveMixtureRadius(p: Double, logSigma: Double) -> Double {
        let steps = 240, zMax = 6.0
        var weights = [Double](repeating: 0, count: steps + 1)
        var doubledScaleSquares = [Double](repeating: 0, count: steps + 1)
        var weightSum = 0.0
        for i in 0...steps {
            let z = -zMax + 2 * zMax * Double(i) / Double(steps)
            weights[i] = exp(-z * z / 2) * (i == 0 || i == steps ? 0.5 : 1)
            let scale = exp(logSigma * z)
            doubledScaleSquares[i] = 2 * scale * scale
            weightSum += weights[i]
        }
        func coverage(_ k: Double) -> Double {
            var sum = 0.0
            for i in 0...steps { sum += weights[i] * (1 - exp(-k * k / doubledScaleSquares[i])) }
            return sum / weightSum
        }
        // Invariant: coverage(low) < p (coverage(0) = 0), and coverage(high) ≥ p once `high` moved from its start.
        let start = 100.0
        var low = 0.0, high = start
        for _ in 0..<80 {
            let mid = (low + high) / 2
            // Adjacent doubles: by the invariant every further step would leave both ends as they are.
            if mid == low || (mid == high && high < start) { break }
            if coverage(mid) < p { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }
}

/// A horizontal position estimator fed with fixes one by one (Kalman filter or one of its documented alternatives).
package protocol HorizontalPositionEstimator: Sendable {
    /// Takes the next fix.
    mutating func update(_ fix: LocationSample) -> PositionFilterOutcome
    /// The estimate extrapolated to time `t` (at or after the last fix taken, within the prediction limit), or nil.
    func predicted(at t: Double) -> FilteredPosition?
}

/// The checks every estimator applies before using a fix (docs/position.md §4).
package enum FixValidation {
    /// The fix's reported accuracy (68 % radius, metres), or why the fix cannot be used.
    package static func accuracy(
        of fix: LocationSample, lastTime: Double?, configuration: PositionFilterConfiguration
    ) -> Result<Double, PositionRejection> {
        guard fix.t.isFinite else { return .failure(.invalidTime) }
        if let lastTime, !(fix.t > lastTime) { return .failure(.notAfterPreviousFix(previousTime: lastTime)) }
        guard fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite,
              abs(fix.latitudeDegrees) <= 90, abs(fix.longitudeDegrees) <= 180
        else { return .failure(.invalidCoordinates) }
        let accuracy = fix.horizontalAccuracyMeters ?? configuration.accuracyWhenUnknownMeters
        guard accuracy.isFinite, accuracy > 0 else { return .failure(.invalidAccuracy) }
        guard accuracy <= configuration.maximumAccuracyMeters else {
            return .failure(.accuracyWorseThan(limitMeters: configuration.maximumAccuracyMeters, reportedMeters: accuracy))
        }
        return .success(accuracy)
    }

    /// The fix's ground velocity as a measurement (east, north m/s, and variance per axis to add to the configured
    /// velocity noise, m²/s²), or nil when the speed is missing, not finite or beyond the ground-speed limit, or the
    /// course is needed but missing or out of range. Below `minimumSpeedForCourseMetersPerSecond` the course means
    /// nothing, but the speed still says "almost still": the measurement is zero velocity with the speed as its spread.
    package static func velocity(
        of fix: LocationSample, configuration: PositionFilterConfiguration
    ) -> (east: Double, north: Double, extraVariance: Double)? {
        guard let speed = fix.speedMetersPerSecond, speed.isFinite, speed >= 0,
              speed <= configuration.maximumGroundSpeedMetersPerSecond
        else { return nil }
        if speed < configuration.minimumSpeedForCourseMetersPerSecond { return (0, 0, speed * speed) }
        guard let course = fix.courseDegrees, course.isFinite, course >= 0, course <= 360 else { return nil }
        let c = course * .pi / 180
        return (speed * sin(c), speed * cos(c), 0)
    }
}
