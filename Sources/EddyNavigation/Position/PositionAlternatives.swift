package import EddyVocabulary
import Foundation

/// The two documented alternatives to the Kalman filter, over a window of the last N accepted fixes
/// (docs/position.md §5): a running average and a linear least-squares fit of position against time.
///
/// Both apply the same input checks and accuracy threshold as the Kalman filter, but no innovation gate or physical
/// limits (that is the point of comparing them). They work in the plane tangent at the newest fix, so the
/// antimeridian and the poles need no special case. The window is a ring buffer allocated once, at creation.
package struct WindowedPositionEstimator: HorizontalPositionEstimator {
    /// How the window becomes a position.
    package enum Kind: Sendable, Equatable {
        /// Mean of the window's positions (velocity from the least-squares slope).
        case runningAverage
        /// Least-squares line through the window's positions against time, evaluated at the newest fix.
        case leastSquares
    }

    private struct Record: Sendable {
        var t: Double
        var ecef: Vector3
        var accuracyMeters: Double
    }

    /// How the window is combined.
    package let kind: Kind
    /// The tuning in use (accuracy threshold, gap restart, window sizes).
    package let configuration: PositionFilterConfiguration
    private let capacity: Int
    private var records: ContiguousArray<Record>
    private var next = 0
    private var filled = 0
    /// Fit of the window at the last update: origin plane, position at `t`, velocity, uncertainty.
    private var fit: (plane: LocalTangentPlane, t: Double, east: Double, north: Double, vEast: Double,
                      vNorth: Double, accuracyMeters: Double)?

    /// Creates an estimator; the window holds `runningAverageCount` or `leastSquaresCount` fixes (at least 1).
    package init(kind: Kind, configuration: PositionFilterConfiguration = .init()) {
        self.kind = kind
        self.configuration = configuration
        let count = kind == .runningAverage ? configuration.runningAverageCount : configuration.leastSquaresCount
        capacity = max(1, count)
        records = ContiguousArray(repeating: Record(t: 0, ecef: Vector3(0, 0, 0), accuracyMeters: 0), count: capacity)
    }

    /// Takes the next fix.
    package mutating func update(_ fix: LocationSample) -> PositionFilterOutcome {
        let accuracy: Double
        switch FixValidation.accuracy(of: fix, lastTime: fit?.t, configuration: configuration) {
        case .success(let a): accuracy = a
        case .failure(let rejection): return .rejected(rejection)
        }
        var reason: PositionRestartReason?
        if let last = fit?.t, fix.t - last > configuration.restartAfterGapSeconds {
            reason = .gap(seconds: fix.t - last)
            filled = 0
            next = 0
        } else if filled == 0 {
            reason = .firstFix
        }
        records[next] = Record(
            t: fix.t, ecef: WGS84.ecef(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees),
            accuracyMeters: accuracy)
        next = (next + 1) % capacity
        filled = min(filled + 1, capacity)

        let plane = LocalTangentPlane(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees)
        var sumT = 0.0, sumE = 0.0, sumN = 0.0, sumAccuracy = 0.0
        for i in 0..<filled {
            let r = records[i]
            let p = plane.project(ecef: r.ecef)
            sumT += r.t - fix.t; sumE += p.eastMeters; sumN += p.northMeters; sumAccuracy += r.accuracyMeters
        }
        let n = Double(filled)
        let meanT = sumT / n, meanE = sumE / n, meanN = sumN / n
        var stt = 0.0, ste = 0.0, stn = 0.0
        for i in 0..<filled {
            let r = records[i]
            let p = plane.project(ecef: r.ecef)
            let dt = r.t - fix.t - meanT
            stt += dt * dt; ste += dt * (p.eastMeters - meanE); stn += dt * (p.northMeters - meanN)
        }
        let vEast = stt > 0 ? ste / stt : 0, vNorth = stt > 0 ? stn / stt : 0
        let east: Double, north: Double
        switch kind {
        case .runningAverage: (east, north) = (meanE, meanN)
        case .leastSquares: (east, north) = (meanE - vEast * meanT, meanN - vNorth * meanT)
        }
        fit = (plane, fix.t, east, north, vEast, vNorth, sumAccuracy / n)
        guard let position = predicted(at: fix.t) else { return .rejected(.invalidTime) }
        if let reason { return .restarted(position, reason: reason) }
        return .accepted(position)
    }

    /// The window's estimate moved along its fitted velocity to `t`, or nil before the first fix, for a non-finite
    /// `t`, before the last fix or beyond `maximumPredictionSeconds`.
    package func predicted(at t: Double) -> FilteredPosition? {
        guard let fit, t.isFinite, t >= fit.t, t - fit.t <= configuration.maximumPredictionSeconds else { return nil }
        let dt = t - fit.t
        let e = fit.east + fit.vEast * dt, n = fit.north + fit.vNorth * dt
        let position = fit.plane.geodetic(eastMeters: e, northMeters: n)
        let local = LocalTangentPlane(latitudeDegrees: position.latitudeDegrees,
                                      longitudeDegrees: position.longitudeDegrees)
        let r = fit.plane.horizontalRotation(to: local)
        // Not calibrated: the mean reported accuracy of the window (its correlated error does not average down).
        let u68 = fit.accuracyMeters
        return FilteredPosition(
            t: t, latitudeDegrees: position.latitudeDegrees, longitudeDegrees: position.longitudeDegrees,
            velocityNorthMetersPerSecond: -r.sin * fit.vEast + r.cos * fit.vNorth,
            velocityEastMetersPerSecond: r.cos * fit.vEast + r.sin * fit.vNorth,
            uncertainty68Meters: u68,
            uncertainty90Meters: u68 * CircularGaussian.radius90PerSigma / CircularGaussian.radius68PerSigma,
            velocityUncertainty68MetersPerSecond: .infinity)
    }
}

/// Which horizontal position estimator to run.
package enum PositionFilterMethod: String, Sendable, Equatable, CaseIterable {
    /// The Kalman filter (`HorizontalPositionFilter`), the default.
    case kalman
    /// Running average of the last `runningAverageCount` fixes.
    case runningAverage
    /// Linear least squares over the last `leastSquaresCount` fixes.
    case leastSquares
}

/// Any of the estimators behind one value, chosen by `PositionFilterMethod`.
package struct PositionEstimator: HorizontalPositionEstimator {
    /// The method in use.
    package let method: PositionFilterMethod
    private var kalman: HorizontalPositionFilter?
    private var window: WindowedPositionEstimator?

    /// Creates the estimator for `method`.
    package init(method: PositionFilterMethod = .kalman, configuration: PositionFilterConfiguration = .init()) {
        self.method = method
        switch method {
        case .kalman: kalman = HorizontalPositionFilter(configuration: configuration)
        case .runningAverage: window = WindowedPositionEstimator(kind: .runningAverage, configuration: configuration)
        case .leastSquares: window = WindowedPositionEstimator(kind: .leastSquares, configuration: configuration)
        }
    }

    /// Takes the next fix.
    package mutating func update(_ fix: LocationSample) -> PositionFilterOutcome {
        // Moved out and back so the window's buffer stays uniquely referenced (no copy on write).
        if var k = kalman {
            kalman = nil
            defer { kalman = k }
            return k.update(fix)
        }
        if var w = window {
            window = nil
            defer { window = w }
            return w.update(fix)
        }
        return .rejected(.invalidTime)
    }

    /// The estimate extrapolated to `t`, or nil.
    package func predicted(at t: Double) -> FilteredPosition? {
        kalman?.predicted(at: t) ?? window?.predicted(at: t)
    }
}
