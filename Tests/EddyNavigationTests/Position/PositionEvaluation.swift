import EddySimulation
import EddyVocabulary
import Foundation
@testable import EddyNavigation

/// Accuracy figures of one estimator on one flight path over several seeds (docs/position.md §7).
struct PositionMetrics {
    /// Horizontal RMS error of the estimate at every fix time (a rejected fix counts with the prediction), metres.
    var rmsMeters = 0.0
    /// Horizontal RMS error of the raw fixes, metres.
    var rawRMSMeters = 0.0
    /// Mean of −(along-track error)/speed over the lag window, seconds behind the truth (positive = late).
    var lagSeconds = 0.0
    /// Share of fix times whose error is within the estimate's 68 % radius.
    var coverage68 = 0.0
    /// Share of fix times whose error is within the estimate's 90 % radius.
    var coverage90 = 0.0
    /// Largest horizontal error, metres.
    var maxErrorMeters = 0.0
    /// Fix times scored.
    var count = 0
    /// Any non-finite value in an output.
    var sawNonFinite = false

    /// RMS error relative to the raw fixes' (0.4 = 40 % lower).
    var reduction: Double { 1 - rmsMeters / rawRMSMeters }
}

enum PositionEvaluation {
    /// Runs `method` over `trajectory` for each seed with the phone error model and scores it against the truth.
    /// `lagWindow` limits the lag (and nothing else) to a time range; `skipSeconds` leaves out the start-up;
    /// `withoutVelocity` removes the fixes' speed and course.
    static func run(
        _ method: PositionFilterMethod, configuration: PositionFilterConfiguration = .matchingPhoneModel,
        trajectory: TruthTrajectory, seeds: some Sequence<UInt64>, interval: Double = 1,
        parameters: PhoneGNSSErrorModel.Parameters = .init(), lagWindow: ClosedRange<Double>? = nil,
        skipSeconds: Double = 0, withoutVelocity: Bool = false
    ) -> PositionMetrics {
        run(method, configuration: configuration, truth: trajectory.points(interval: interval), seeds: seeds,
            parameters: parameters, lagWindow: lagWindow, skipSeconds: skipSeconds, withoutVelocity: withoutVelocity)
    }

    /// `run` over given truth points.
    static func run(
        _ method: PositionFilterMethod, configuration: PositionFilterConfiguration = .matchingPhoneModel,
        truth: [TruthPoint], seeds: some Sequence<UInt64>,
        parameters: PhoneGNSSErrorModel.Parameters = .init(), lagWindow: ClosedRange<Double>? = nil,
        skipSeconds: Double = 0, withoutVelocity: Bool = false
    ) -> PositionMetrics {
        var m = PositionMetrics()
        var sumSq = 0.0, rawSumSq = 0.0, lagSum = 0.0, lagCount = 0, in68 = 0, in90 = 0
        for seed in seeds {
            var model = PhoneGNSSErrorModel(seed: seed, parameters: parameters)
            var estimator = PositionEstimator(method: method, configuration: configuration)
            for point in truth {
                var observation = model.observe(point)
                if withoutVelocity { observation.fix.speedMetersPerSecond = nil; observation.fix.courseDegrees = nil }
                let outcome = estimator.update(observation.fix)
                guard point.t >= skipSeconds else { continue }
                guard let estimate = outcome.position ?? estimator.predicted(at: point.t) else { continue }
                let values = [estimate.latitudeDegrees, estimate.longitudeDegrees, estimate.uncertainty68Meters,
                              estimate.uncertainty90Meters, estimate.velocityEastMetersPerSecond,
                              estimate.velocityNorthMetersPerSecond]
                if values.contains(where: { !$0.isFinite }) { m.sawNonFinite = true; continue }
                let e = point.offsetMeters(toLatitude: estimate.latitudeDegrees, longitude: estimate.longitudeDegrees)
                let error = (e.east * e.east + e.north * e.north).squareRoot()
                sumSq += error * error
                rawSumSq += observation.errorEastMeters * observation.errorEastMeters
                    + observation.errorNorthMeters * observation.errorNorthMeters
                m.maxErrorMeters = max(m.maxErrorMeters, error)
                if error <= estimate.uncertainty68Meters { in68 += 1 }
                if error <= estimate.uncertainty90Meters { in90 += 1 }
                m.count += 1
                if point.speed > 10, lagWindow.map({ $0.contains(point.t) }) ?? true {
                    let along = (e.east * point.velocityEast + e.north * point.velocityNorth) / point.speed
                    lagSum += -along / point.speed
                    lagCount += 1
                }
            }
        }
        guard m.count > 0 else { return m }
        let n = Double(m.count)
        m.rmsMeters = (sumSq / n).squareRoot()
        m.rawRMSMeters = (rawSumSq / n).squareRoot()
        m.coverage68 = Double(in68) / n
        m.coverage90 = Double(in90) / n
        m.lagSeconds = lagCount > 0 ? lagSum / Double(lagCount) : 0
        return m
    }

    /// Raw fixes scored like an estimator (lag from the fixes themselves; coverage against the reported accuracy as
    /// a 68 % radius and its 90 % equivalent).
    static func raw(
        trajectory: TruthTrajectory, seeds: some Sequence<UInt64>, interval: Double = 1,
        parameters: PhoneGNSSErrorModel.Parameters = .init(), lagWindow: ClosedRange<Double>? = nil
    ) -> PositionMetrics {
        var m = PositionMetrics()
        var sumSq = 0.0, lagSum = 0.0, lagCount = 0, in68 = 0, in90 = 0
        let truth = trajectory.points(interval: interval)
        for seed in seeds {
            var model = PhoneGNSSErrorModel(seed: seed, parameters: parameters)
            for point in truth {
                let o = model.observe(point)
                let error = (o.errorEastMeters * o.errorEastMeters + o.errorNorthMeters * o.errorNorthMeters)
                    .squareRoot()
                sumSq += error * error
                m.maxErrorMeters = max(m.maxErrorMeters, error)
                let u68 = o.fix.horizontalAccuracyMeters ?? 0
                if error <= u68 { in68 += 1 }
                if error <= u68 * CircularGaussian.radius90PerSigma / CircularGaussian.radius68PerSigma { in90 += 1 }
                m.count += 1
                if point.speed > 10, lagWindow.map({ $0.contains(point.t) }) ?? true {
                    lagSum += -(o.errorEastMeters * point.velocityEast + o.errorNorthMeters * point.velocityNorth)
                        / (point.speed * point.speed)
                    lagCount += 1
                }
            }
        }
        let n = Double(max(1, m.count))
        m.rmsMeters = (sumSq / n).squareRoot()
        m.rawRMSMeters = m.rmsMeters
        m.coverage68 = Double(in68) / n
        m.coverage90 = Double(in90) / n
        m.lagSeconds = lagCount > 0 ? lagSum / Double(lagCount) : 0
        return m
    }

    /// Runs the Kalman filter twice per seed on the same noise (random multipath off), once with an excursion of
    /// `amplitudeMeters` in a random direction from t = 200 s to 205 s, and returns the largest distance between the
    /// two filtered tracks and how many excursion fixes the filter used.
    static func excursion(
        amplitudeMeters: Double, trajectory: TruthTrajectory, interval: Double = 1, seeds: some Sequence<UInt64>
    ) -> (worstMeters: Double, usedFixes: Int) {
        var parameters = PhoneGNSSErrorModel.Parameters()
        parameters.multipathRatePerSecond = 0
        var worst = 0.0, used = 0
        let truth = trajectory.points(interval: interval)
        for seed in seeds {
            var directions = Xoshiro256StarStar(seed: seed &+ 1000)
            let angle = 2 * Double.pi * directions.nextUniform()
            var clean = PhoneGNSSErrorModel(seed: seed, parameters: parameters)
            var dirty = clean
            dirty.injectedExcursion = (from: 200, until: 205, east: amplitudeMeters * sin(angle),
                                       north: amplitudeMeters * cos(angle))
            var a = HorizontalPositionFilter(configuration: .matchingPhoneModel), b = HorizontalPositionFilter(configuration: .matchingPhoneModel)
            for point in truth {
                let outA = a.update(clean.observe(point).fix)
                let outB = b.update(dirty.observe(point).fix)
                if point.t >= 200, point.t < 205, outB.position != nil { used += 1 }
                guard let pa = outA.position ?? a.predicted(at: point.t),
                      let pb = outB.position ?? b.predicted(at: point.t) else { continue }
                let reference = TruthPoint(t: point.t, latitudeDegrees: pa.latitudeDegrees,
                                           longitudeDegrees: pa.longitudeDegrees, velocityEast: 0, velocityNorth: 0)
                let d = reference.offsetMeters(toLatitude: pb.latitudeDegrees, longitude: pb.longitudeDegrees)
                worst = max(worst, hypot(d.east, d.north))
            }
        }
        return (worst, used)
    }
}
