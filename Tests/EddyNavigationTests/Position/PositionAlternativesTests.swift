import EddySimulation
import Foundation
import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

/// The documented alternatives: running average and windowed least squares (docs/position.md §5).
@Suite struct PositionAlternativesTests {
    private func fix(_ t: Double, _ lat: Double, _ lon: Double, accuracy: Double? = 5) -> LocationSample {
        LocationSample(t: t, latitudeDegrees: lat, longitudeDegrees: lon, horizontalAccuracyMeters: accuracy)
    }

    /// With white noise only and a still receiver, the running average of N fixes has σ/√N of error per axis.
    @Test func runningAverageReducesWhiteNoiseBySquareRootOfN() {
        var configuration = PositionFilterConfiguration()
        configuration.runningAverageCount = 16
        var estimator = WindowedPositionEstimator(kind: .runningAverage, configuration: configuration)
        var random = Xoshiro256StarStar(seed: 21)
        let origin = TruthPoint(t: 0, latitudeDegrees: 47, longitudeDegrees: 8, velocityEast: 0, velocityNorth: 0)
        var sumSq = 0.0, n = 0.0
        for i in 0..<20_000 {
            let p = TruthPoint.offset(latitudeDegrees: 47, longitudeDegrees: 8, eastMeters: 4 * random.nextGaussian(),
                                      northMeters: 4 * random.nextGaussian())
            guard let out = estimator.update(fix(Double(i), p.latitudeDegrees, p.longitudeDegrees)).position,
                  i >= 16 else { continue }
            let e = origin.offsetMeters(toLatitude: out.latitudeDegrees, longitude: out.longitudeDegrees)
            sumSq += e.east * e.east
            n += 1
        }
        let sigma = (sumSq / n).squareRoot()
        #expect(abs(sigma - 4 / 4) < 0.05, "σ of the mean \(sigma) m")
    }

    /// The running average lags by (N − 1)/2 fix intervals on straight flight; least squares does not lag there.
    @Test func lagOnStraightFlight() {
        let average = PositionEvaluation.run(.runningAverage, trajectory: .straight, seeds: 1...5, skipSeconds: 20)
        #expect(abs(average.lagSeconds - 4.5) < 0.3, "\(average.lagSeconds)")
        let fit = PositionEvaluation.run(.leastSquares, trajectory: .straight, seeds: 1...5, skipSeconds: 20)
        #expect(abs(fit.lagSeconds) < 0.2, "\(fit.lagSeconds)")
        // Least squares on a straight line: the white part averages, the correlated part and multipath do not.
        #expect(fit.rmsMeters < fit.rawRMSMeters * 1.05)
    }

    /// Least squares bends in turns: over a 3 °/s turn a 10-fix line cuts inside the circle.
    @Test func leastSquaresBendsInTurns() {
        let fit = PositionEvaluation.run(.leastSquares, trajectory: .standardRateTurn, seeds: 1...5,
                                         lagWindow: 70...300)
        let raw = PositionEvaluation.raw(trajectory: .standardRateTurn, seeds: 1...5)
        #expect(fit.rmsMeters > raw.rmsMeters)
    }

    /// Fixes straddling the antimeridian average near ±180°, fixes around the pole near the pole.
    @Test func averagingAcrossTheAntimeridianAndThePole() {
        for kind in [WindowedPositionEstimator.Kind.runningAverage, .leastSquares] {
            var estimator = WindowedPositionEstimator(kind: kind)
            var last: FilteredPosition?
            for (i, lon) in [179.9999, -179.9999, 179.9999, -179.9999].enumerated() {
                last = estimator.update(fix(Double(i), 10, lon)).position
            }
            #expect(abs(abs(last?.longitudeDegrees ?? 0) - 180) < 0.001, "\(kind): \(String(describing: last))")

            var polar = WindowedPositionEstimator(kind: kind)
            for (i, lon) in [0.0, 90, 180, -90].enumerated() {
                last = polar.update(fix(Double(i), 89.9999, lon)).position
            }
            #expect(last?.longitudeDegrees.isFinite == true && last?.latitudeDegrees.isFinite == true)
            if kind == .runningAverage {
                // The mean of four points 11 m from the pole in four directions is the pole.
                #expect((last?.latitudeDegrees ?? 0) > 89.99999, "\(String(describing: last))")
            }
        }
    }

    /// Same input checks and accuracy threshold as the Kalman filter; a gap empties the window.
    @Test func inputChecksAndGaps() {
        var estimator = PositionEstimator(method: .leastSquares)
        do { let outcome = estimator.update(fix(0, 47, 8, accuracy: 60)); #expect(outcome == .rejected(.accuracyWorseThan(limitMeters: 50, reportedMeters: 60))) }
        do { let outcome = estimator.update(fix(0, 47, 8, accuracy: 0)); #expect(outcome == .rejected(.invalidAccuracy)) }
        do { let outcome = estimator.update(fix(.nan, 47, 8)); #expect(outcome == .rejected(.invalidTime)) }
        guard case .restarted(_, .firstFix) = estimator.update(fix(0, 47, 8)) else {
            Issue.record("first fix not taken")
            return
        }
        do { let outcome = estimator.update(fix(0, 47, 8)); #expect(outcome == .rejected(.notAfterPreviousFix(previousTime: 0))) }
        guard case .accepted = estimator.update(fix(1, 47, 8.0001)) else {
            Issue.record("second fix not taken")
            return
        }
        guard case .restarted(let p, .gap) = estimator.update(fix(100, 48, 9)) else {
            Issue.record("gap not detected")
            return
        }
        #expect(abs(p.latitudeDegrees - 48) < 1e-9)
        #expect(estimator.predicted(at: 99) == nil)
        #expect(estimator.predicted(at: 101) != nil)
    }

    /// The facade runs the method it was made for.
    @Test func facadeRunsTheChosenMethod() {
        for method in PositionFilterMethod.allCases {
            var estimator = PositionEstimator(method: method)
            #expect(estimator.method == method)
            var model = PhoneGNSSErrorModel(seed: 1)
            var outputs = 0
            for point in TruthTrajectory.straight.points(interval: 1) where point.t < 60 {
                if estimator.update(model.observe(point).fix).position != nil { outputs += 1 }
            }
            #expect(outputs > 50)
        }
    }
}
