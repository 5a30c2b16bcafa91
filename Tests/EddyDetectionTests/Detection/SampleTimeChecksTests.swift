import Testing
@testable import EddyDetection
import EddyVocabulary

/// `SampleTimeChecks` (docs/detection.md §9, "Clocks, epochs and values"): each mistake raises its notice once, at the
/// first offending sample, and the episode ends after 60 s of location time without one.
@Suite struct SampleTimeChecksTests {
    private static let start = 1_790_000_000.0

    private func accel(_ t: Double, x: Double = 0) -> SensorSample { .accelerometer(AccelerometerSample(t: t, x: x, y: 0, z: 1)) }
    private func gyro(_ t: Double) -> SensorSample { .gyroscope(GyroscopeSample(t: t, x: 0, y: 0, z: 0)) }
    private func fix(_ t: Double) -> SensorSample {
        .location(LocationSample(t: t, latitudeDegrees: 47, longitudeDegrees: 8, altitudeMeters: 10_000, speedMetersPerSecond: 230,
                                 courseDegrees: 90))
    }

    /// `seconds` of 50 Hz motion and 1 Hz fixes from `start`; `motionTime` stamps each motion sample from its true time.
    private func stream(seconds: Int, from start: Double = start, motionTime: (Double) -> Double = { $0 }) -> [SensorSample] {
        var samples: [SensorSample] = []
        for step in 0..<(seconds * 50) {
            let t = start + Double(step) * 0.02
            if step % 50 == 0 { samples.append(fix(t)) }
            samples.append(accel(motionTime(t)))
            samples.append(gyro(motionTime(t)))
        }
        return samples
    }

    private func run(_ samples: [SensorSample], _ checks: inout SampleTimeChecks) -> (notices: [MeasurementNotice], refused: Int) {
        var refused = 0
        var notices: [MeasurementNotice] = []
        for sample in samples {
            if !checks.check(sample) { refused += 1 }
            notices += checks.takeNotices()
        }
        checks.finish()
        return (notices + checks.takeNotices(), refused)
    }

    @Test func aCleanStreamRaisesNothing() {
        var checks = SampleTimeChecks(expectsUnixTime: true)
        checks.setHostClock(Self.start + 600)
        let result = run(stream(seconds: 120), &checks)
        #expect(result.notices.isEmpty)
        #expect(result.refused == 0)
    }

    @Test func nanValuesAndTimesAreRefusedWithOneEpisode() throws {
        var checks = SampleTimeChecks(expectsUnixTime: true)
        var samples = stream(seconds: 30)
        samples.insert(accel(Self.start + 10, x: .nan), at: 1000)
        samples.insert(accel(.nan), at: 1200)
        samples.insert(.gyroscope(GyroscopeSample(t: Self.start + 12, x: .infinity, y: 0, z: 0)), at: 1300)
        let result = run(samples, &checks)
        #expect(result.refused == 3)
        let accelerometer = result.notices.filter { $0.kind == .invalidValues(source: .accelerometer) }
        #expect(accelerometer.map(\.phase) == [.began, .ended])
        #expect(accelerometer.last?.count == 2)
        #expect(result.notices.filter { $0.kind == .invalidValues(source: .gyroscope) }.count == 2)
        let began = try #require(accelerometer.first)
        #expect(abs(began.start - (Self.start + 10)) <= 1, "placed at the latest fix's time")
        #expect(began.reason.contains("NaN"))
    }

    @Test(arguments: [
        (250_000.0, TimeStampProblem.Guess.secondsSinceBoot),
        (-SampleTimeChecks.referenceDateUnixSeconds, .secondsSince2001),
    ])
    func motionOnAnotherEpochIsNamed(offset: Double, guess: TimeStampProblem.Guess) throws {
        var checks = SampleTimeChecks(expectsUnixTime: true)
        let shift = guess == .secondsSinceBoot ? offset - Self.start : offset
        let result = run(stream(seconds: 90, motionTime: { $0 + shift }), &checks)
        #expect(result.refused == 0, "not refused: only said")
        let notice = try #require(result.notices.first { $0.kind == .timeStampsWrong(source: .accelerometer, problem: .beforeYear2010(guess)) })
        #expect(notice.phase == .began)
        #expect(notice.start == Self.start, "at the first sample")
        #expect(result.notices.contains { $0.kind == .timeStampsWrong(source: .gyroscope, problem: .beforeYear2010(guess)) })
        #expect(!result.notices.contains { if case .timeStampsWrong(.location, _) = $0.kind { true } else { false } })
    }

    @Test func aDayAheadOfTheHostClockIsNamed() throws {
        var checks = SampleTimeChecks(expectsUnixTime: true)
        checks.setHostClock(Self.start)
        let result = run(stream(seconds: 20, from: Self.start + 86_400 + 120), &checks)
        let notice = try #require(result.notices.first { $0.kindName == "time_ahead_of_host_clock" })
        guard case .timeStampsWrong(_, .aheadOfHostClock(let seconds)) = notice.kind else { Issue.record("\(notice.kind)"); return }
        #expect(abs(seconds - (86_400 + 120)) < 1)
        // Twelve hours ahead is not flagged (a long flight between two host-clock readings).
        var lenient = SampleTimeChecks(expectsUnixTime: true)
        lenient.setHostClock(Self.start)
        #expect(run(stream(seconds: 20, from: Self.start + 43_200), &lenient).notices.isEmpty)
    }

    @Test func aMotionClockStepping10SecondsBehindTheFixesIsHeardAndEndsWhenTheyAgreeAgain() throws {
        var checks = SampleTimeChecks(expectsUnixTime: true)
        let stepAt = Self.start + 100, stepBackAt = Self.start + 200
        let result = run(stream(seconds: 400, motionTime: { $0 >= stepAt && $0 < stepBackAt ? $0 - 10 : $0 }), &checks)
        let accelerometer = result.notices.filter { $0.kindName == "time_offset_from_location" && $0.reason.hasPrefix("accelerometer") }
        #expect(accelerometer.map(\.phase) == [.began, .ended])
        let began = try #require(accelerometer.first)
        #expect(began.start >= stepAt && began.start <= stepAt + 5, "heard within seconds: \(began.start - stepAt) s")
        guard case .timeStampsWrong(_, .offsetFromLocation(let seconds)) = began.kind else { Issue.record("\(began.kind)"); return }
        #expect(seconds < -3 && seconds > -11)
        let ended = try #require(accelerometer.last)
        #expect(try #require(ended.end) <= stepBackAt + 1)
    }

    @Test func aReplayWithBootClockMotionAndUnixFixesIsHeardAtTheFirstFix() throws {
        // A log is merged by time: every boot-clock motion sample comes before the first Unix fix.
        var checks = SampleTimeChecks(expectsUnixTime: false)
        let motion = stream(seconds: 60, motionTime: { $0 - Self.start + 250_000 }).filter {
            if case .location = $0 { false } else { true }
        }
        let fixes = (0..<60).map { fix(Self.start + Double($0)) }
        let result = run(motion.sorted { $0.t < $1.t } + fixes, &checks)
        let notice = try #require(result.notices.first { $0.kindName == "time_offset_from_location" })
        #expect(notice.start == Self.start, "at the first fix")
        #expect(notice.reason.contains("another time base"))
        // A log on its own time base (t from 0) raises nothing.
        var zeroBased = SampleTimeChecks(expectsUnixTime: false)
        #expect(run(stream(seconds: 60, from: 0), &zeroBased).notices.isEmpty)
    }
}
