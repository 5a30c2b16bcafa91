import EddySimulation
import Foundation
import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

/// Acceptance tests of the horizontal position filter against the phone GNSS error model (docs/position.md §7).
@Suite struct HorizontalPositionFilterTests {
    static let seeds: ClosedRange<UInt64> = 1...20
    /// The turn's lag is measured while turning, from 10 s after roll-in to the roll-out.
    static let turnWindow = 70.0...300.0

    // MARK: - Accuracy, lag, honesty

    /// Horizontal RMS error at least 40 % below the raw fixes' on straight, turning and accelerating flight.
    @Test(arguments: [("straight", TruthTrajectory.straight), ("turn", .standardRateTurn), ("accelerating", .accelerating)])
    func rmsErrorWellBelowRawFixes(_ name: String, _ trajectory: TruthTrajectory) {
        let m = PositionEvaluation.run(.kalman, trajectory: trajectory, seeds: Self.seeds)
        #expect(!m.sawNonFinite)
        #expect(m.count > 0)
        #expect(m.reduction >= 0.40, "\(name): RMS \(m.rmsMeters) m vs raw \(m.rawRMSMeters) m")
    }

    /// At most 1 s of lag in a standard-rate turn at 120 kt (and the raw fixes have none, so the measure is sound).
    @Test func lagInStandardRateTurn() {
        let m = PositionEvaluation.run(.kalman, trajectory: .standardRateTurn, seeds: Self.seeds, lagWindow: Self.turnWindow)
        #expect(abs(m.lagSeconds) <= 1, "lag \(m.lagSeconds) s")
        let raw = PositionEvaluation.raw(trajectory: .standardRateTurn, seeds: Self.seeds, lagWindow: Self.turnWindow)
        #expect(abs(raw.lagSeconds) < 0.1)
        // The measure can see lag: a 10-fix running average lags by ≈ 4.5 s.
        let average = PositionEvaluation.run(.runningAverage, trajectory: .standardRateTurn, seeds: Self.seeds,
                                             lagWindow: Self.turnWindow)
        #expect(average.lagSeconds > 3)
    }

    /// The true error lies within u68 for 68 ± 5 % and within u90 for 90 ± 4 % of the fixes, over 50 seeds each of
    /// straight, turning and accelerating flight, and over the poles and the antimeridian.
    @Test func uncertaintyIsHonest() {
        var in68 = 0.0, in90 = 0.0, n = 0.0
        let paths: [[TruthPoint]] = [
            TruthTrajectory.straight.points(interval: 1), TruthTrajectory.standardRateTurn.points(interval: 1),
            TruthTrajectory.accelerating.points(interval: 1),
        ]
        for truth in paths {
            let m = PositionEvaluation.run(.kalman, truth: truth, seeds: 1...50)
            #expect(!m.sawNonFinite)
            #expect(abs(m.coverage68 - 0.68) <= 0.05, "68 %: \(m.coverage68)")
            #expect(abs(m.coverage90 - 0.90) <= 0.04, "90 %: \(m.coverage90)")
            in68 += m.coverage68 * Double(m.count); in90 += m.coverage90 * Double(m.count); n += Double(m.count)
        }
        #expect(abs(in68 / n - 0.68) <= 0.05)
        #expect(abs(in90 / n - 0.90) <= 0.04)
    }

    /// The same with 10 Hz fixes (oversampled: their white noise is weighed per decorrelation time).
    @Test func uncertaintyIsHonestAtTenHertz() {
        let m = PositionEvaluation.run(.kalman, trajectory: .standardRateTurn, seeds: 1...10, interval: 0.1)
        #expect(abs(m.coverage68 - 0.68) <= 0.05, "68 %: \(m.coverage68)")
        #expect(abs(m.coverage90 - 0.90) <= 0.04, "90 %: \(m.coverage90)")
        #expect(m.reduction >= 0.40)
    }

    // MARK: - Multipath, relocation, gaps

    /// A 50 m (or 80 m) excursion lasting 5 s that the reported accuracy does not show is rejected fix by fix, and
    /// the filtered track never moves more than 5 m from the track of the same flight without the excursion.
    @Test(arguments: [50.0, 80.0])
    func multipathExcursionIsRejected(_ amplitudeMeters: Double) {
        for trajectory in [TruthTrajectory.straight, .standardRateTurn] {
            for seed in Self.seeds {
                let r = PositionEvaluation.excursion(amplitudeMeters: amplitudeMeters, trajectory: trajectory,
                                                     seeds: seed...seed)
                #expect(r.usedFixes == 0, "seed \(seed)")
                #expect(r.worstMeters <= 5, "seed \(seed): followed the excursion by \(r.worstMeters) m")
            }
        }
    }

    /// A real relocation (every fix from t = 120 s on is 5 km away, consistently) is rejected at first, then the
    /// filter restarts after the configured run of rejections and tracks the new place.
    @Test func relocationRestartsAfterConsecutiveRejections() {
        let configuration = PositionFilterConfiguration.matchingPhoneModel
        var filter = HorizontalPositionFilter(configuration: configuration)
        var model = PhoneGNSSErrorModel(seed: 5)
        var restartedAt: Double?
        var lastError = Double.infinity
        for point in TruthTrajectory.straight.points(interval: 1) where point.t <= 240 {
            var truth = point
            if point.t >= 120 {
                let moved = TruthPoint.offset(latitudeDegrees: point.latitudeDegrees,
                                              longitudeDegrees: point.longitudeDegrees, eastMeters: 5000, northMeters: 0)
                truth.latitudeDegrees = moved.latitudeDegrees
                truth.longitudeDegrees = moved.longitudeDegrees
            }
            let outcome = filter.update(model.observe(truth).fix)
            if point.t >= 120, restartedAt == nil {
                if case .restarted(_, reason: .consecutiveRejections) = outcome {
                    restartedAt = point.t
                } else {
                    #expect(outcome.position == nil, "t = \(point.t): the jump must not be followed at once")
                }
            }
            if let p = outcome.position {
                let d = truth.offsetMeters(toLatitude: p.latitudeDegrees, longitude: p.longitudeDegrees)
                lastError = hypot(d.east, d.north)
            }
        }
        #expect(restartedAt != nil)
        let restart = restartedAt ?? .infinity
        #expect(restart - 120 >= configuration.restartAfterRejectedSeconds)
        #expect(restart - 120 <= configuration.restartAfterRejectedSeconds + 2)
        #expect(lastError < 20)
    }

    /// A fix after a long gap restarts the filter wherever it is; a fix after a short gap is gated as usual.
    @Test func gapRestarts() {
        var filter = HorizontalPositionFilter()
        _ = filter.update(LocationSample(t: 0, latitudeDegrees: 47, longitudeDegrees: 8, horizontalAccuracyMeters: 5))
        _ = filter.update(LocationSample(t: 1, latitudeDegrees: 47, longitudeDegrees: 8, horizontalAccuracyMeters: 5))
        let far = LocationSample(t: 200, latitudeDegrees: 48, longitudeDegrees: 9, horizontalAccuracyMeters: 5)
        guard case .restarted(let restarted, reason: .gap(let seconds)) = filter.update(far) else {
            Issue.record("a fix 199 s later must restart the filter")
            return
        }
        #expect(seconds == 199)
        #expect(abs(restarted.latitudeDegrees - 48) < 1e-9 && abs(restarted.longitudeDegrees - 9) < 1e-9)
        // 1° of latitude in 1 s is impossible.
        let jump = filter.update(LocationSample(t: 201, latitudeDegrees: 49, longitudeDegrees: 9, horizontalAccuracyMeters: 5))
        guard case .rejected(.impossibleSpeed(let speed, _)) = jump else {
            Issue.record("expected an impossible speed, got \(jump)")
            return
        }
        #expect(speed > 100_000)
        // The antipode projects onto the plane's origin; it is still 12 700 km away.
        let antipode = filter.update(LocationSample(t: 202, latitudeDegrees: -48, longitudeDegrees: -171,
                                                    horizontalAccuracyMeters: 5))
        guard case .rejected(.impossibleSpeed(let antipodeSpeed, _)) = antipode else {
            Issue.record("expected an impossible speed for the antipode, got \(antipode)")
            return
        }
        #expect(antipodeSpeed > 1_000_000)
    }

    // MARK: - Prediction

    /// Between 1 Hz fixes in the turn, the prediction half a second on is as good as the filtered fixes; it answers
    /// nil before the first fix, before the last fix, for NaN and beyond the prediction limit, and grows its radius.
    @Test func predictionBetweenFixes() {
        var filter = HorizontalPositionFilter(configuration: .matchingPhoneModel)
        #expect(filter.predicted(at: 0) == nil)
        var model = PhoneGNSSErrorModel(seed: 3)
        let truth = TruthTrajectory.standardRateTurn.points(interval: 0.5)
        var sumSq = 0.0, n = 0.0
        for (i, point) in truth.enumerated() {
            if i % 2 == 0 {
                _ = filter.update(model.observe(point).fix)
            } else if point.t > 70, point.t < 300, let p = filter.predicted(at: point.t) {
                let d = point.offsetMeters(toLatitude: p.latitudeDegrees, longitude: p.longitudeDegrees)
                sumSq += d.east * d.east + d.north * d.north
                n += 1
            }
        }
        #expect(n > 200)
        #expect((sumSq / n).squareRoot() < 8)
        let last = truth[truth.count - 1].t
        #expect(filter.predicted(at: last - 1) == nil)
        #expect(filter.predicted(at: .nan) == nil)
        #expect(filter.predicted(at: last + 61) == nil)
        let soon = filter.predicted(at: last), later = filter.predicted(at: last + 30)
        #expect((later?.uncertainty68Meters ?? 0) > (soon?.uncertainty68Meters ?? .infinity))
    }

    // MARK: - Bad input

    /// Typed rejections for every kind of bad fix; none of them disturbs the state or produces NaN.
    @Test func badInputIsRejectedWithAReason() {
        var filter = HorizontalPositionFilter()
        func fix(_ t: Double, _ lat: Double = 47, _ lon: Double = 8, accuracy: Double? = 5,
                 speed: Double? = nil, course: Double? = nil) -> LocationSample {
            LocationSample(t: t, latitudeDegrees: lat, longitudeDegrees: lon, horizontalAccuracyMeters: accuracy,
                           speedMetersPerSecond: speed, courseDegrees: course)
        }
        do { let outcome = filter.update(fix(0, accuracy: 0)); #expect(outcome == .rejected(.invalidAccuracy)) }
        do { let outcome = filter.update(fix(0, accuracy: -3)); #expect(outcome == .rejected(.invalidAccuracy)) }
        do { let outcome = filter.update(fix(0, accuracy: .nan)); #expect(outcome == .rejected(.invalidAccuracy)) }
        do { let outcome = filter.update(fix(0, accuracy: .infinity)); #expect(outcome == .rejected(.invalidAccuracy)) }
        do { let outcome = filter.update(fix(0, accuracy: 80)); #expect(outcome == .rejected(.accuracyWorseThan(limitMeters: 50, reportedMeters: 80))) }
        do { let outcome = filter.update(fix(.nan)); #expect(outcome == .rejected(.invalidTime)) }
        do { let outcome = filter.update(fix(.infinity)); #expect(outcome == .rejected(.invalidTime)) }
        do { let outcome = filter.update(fix(0, .nan)); #expect(outcome == .rejected(.invalidCoordinates)) }
        do { let outcome = filter.update(fix(0, 91)); #expect(outcome == .rejected(.invalidCoordinates)) }
        do { let outcome = filter.update(fix(0, 47, 180.5)); #expect(outcome == .rejected(.invalidCoordinates)) }
        do { let outcome = filter.update(fix(0, 47, -.infinity)); #expect(outcome == .rejected(.invalidCoordinates)) }
        #expect(filter.predicted(at: 0) == nil)

        // A fix without accuracy uses the assumed one; bad speed/course is ignored, the position still used.
        guard case .restarted(let first, .firstFix) = filter.update(fix(0, accuracy: nil, speed: .nan, course: 400)) else {
            Issue.record("first fix not taken")
            return
        }
        #expect(first.groundSpeedMetersPerSecond == 0)
        #expect(abs(first.uncertainty68Meters - 15 * filter.radius68Scale) < 1e-6)
        do { let outcome = filter.update(fix(0)); #expect(outcome == .rejected(.notAfterPreviousFix(previousTime: 0))) }
        do { let outcome = filter.update(fix(-1)); #expect(outcome == .rejected(.notAfterPreviousFix(previousTime: 0))) }
        let next = filter.update(fix(1, speed: -5, course: .nan))
        #expect(next.position != nil)
        for value in [next.position?.latitudeDegrees, next.position?.longitudeDegrees, next.position?.uncertainty90Meters] {
            #expect(value?.isFinite == true)
        }
    }

    /// Fixes at exactly ±90° latitude, at ±180° longitude and jumping across the antimeridian never produce NaN.
    @Test func polesAndAntimeridianNeverProduceNaN() {
        let sequences: [[(Double, Double)]] = [
            [(90, 0), (90, 45), (89.99999, 180), (90, -180), (89.99995, -90)],
            [(-90, 0), (-89.99999, 10), (-90, 170)],
            [(10, 179.99999), (10, -179.99999), (10, 180), (10, -180), (10.00001, 179.99999)],
        ]
        // Without speed/course every fix is consistent (at most 6 m apart) and must be taken; with a speed and
        // course they contradict, so some are rejected — either way nothing is NaN.
        for (fixes, speed) in sequences.flatMap({ [($0, nil), ($0, 60.0)] }) {
            var filter = HorizontalPositionFilter()
            for (i, (lat, lon)) in fixes.enumerated() {
                let outcome = filter.update(LocationSample(
                    t: Double(i), latitudeDegrees: lat, longitudeDegrees: lon, horizontalAccuracyMeters: 5,
                    speedMetersPerSecond: speed, courseDegrees: speed.map { _ in 90 }))
                if speed == nil { #expect(outcome.position != nil, "\(lat), \(lon)") }
                for p in [outcome.position, filter.predicted(at: Double(i) + 0.5)].compactMap({ $0 }) {
                    for value in [p.latitudeDegrees, p.longitudeDegrees, p.velocityEastMetersPerSecond,
                                  p.velocityNorthMetersPerSecond, p.uncertainty68Meters, p.uncertainty90Meters] {
                        #expect(value.isFinite)
                    }
                    #expect(abs(p.latitudeDegrees) <= 90 && abs(p.longitudeDegrees) <= 180)
                }
            }
        }
    }

    /// Flights over the North and South Poles and across the antimeridian are filtered as well as anywhere else.
    @Test func flightsOverThePolesAndAcrossTheAntimeridian() {
        let paths: [(String, [TruthPoint])] = [
            ("north pole, 100 m abeam", TruthPoint.greatCircle(latitudeDegrees: 89.9, longitudeDegrees: 10,
                                                              bearingDegrees: 0.5, speedMetersPerSecond: 61.7, seconds: 600)),
            ("north pole, overhead", TruthPoint.greatCircle(latitudeDegrees: 89.95, longitudeDegrees: 10,
                                                           bearingDegrees: 0, speedMetersPerSecond: 61.7, seconds: 300)),
            ("south pole", TruthPoint.greatCircle(latitudeDegrees: -89.9, longitudeDegrees: -170, bearingDegrees: 180,
                                                  speedMetersPerSecond: 230, seconds: 600)),
            ("antimeridian", TruthPoint.greatCircle(latitudeDegrees: 60, longitudeDegrees: 179.5, bearingDegrees: 80,
                                                    speedMetersPerSecond: 250, seconds: 600)),
        ]
        for (name, truth) in paths {
            let m = PositionEvaluation.run(.kalman, truth: truth, seeds: 1...10)
            #expect(!m.sawNonFinite, "\(name)")
            #expect(m.count == truth.count * 10, "\(name)")
            #expect(m.reduction >= 0.40, "\(name): RMS \(m.rmsMeters) vs raw \(m.rawRMSMeters)")
            #expect(m.maxErrorMeters < 30, "\(name): max \(m.maxErrorMeters)")
        }
    }
}

extension HorizontalPositionFilter {
    /// The 68 % radius per unit σ in use (for tests).
    var radius68Scale: Double {
        CircularGaussian.mixtureRadius(probability: 0.68, logSigma: configuration.reportedAccuracyLogSigma)
            / CircularGaussian.mixtureRadius(probability: configuration.reportedAccuracyCoverage, logSigma: 0)
    }
}
