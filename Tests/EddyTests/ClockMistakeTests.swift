import EddyDetection
import EddySimulation
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Issue 27 deliverable 2: the sensor-glue mistakes an app makes, each heard as a `MeasurementNotice` within a minute
/// of flight time (docs/detection.md §9, "Clocks, epochs and values"), and barometer refusals at one a minute.
@Suite struct ClockMistakeTests {
    /// Four minutes of a medium jet in light turbulence, true time from `start`.
    private static func flight(start: Double) -> SyntheticFlight {
        SyntheticFlight(segments: [TurbulenceSegment(edr: 0.15, durationSeconds: 240)], startEpochSeconds: start,
                        startLatitude: 40.6, startLongitude: -73.7, courseDegrees: 50)
    }

    /// A notice the engine raised and the true flight time (of the sample being pushed) when it arrived.
    private struct Heard {
        var notice: MeasurementNotice
        var trueTime: Double
    }

    /// Pushes the flight in true-time order with `mistake` applied to each sample (nil: not pushed), `delayed` samples
    /// pushed that many seconds after their true time; returns every notice with the true time it was heard at.
    private func fly(
        _ engine: EddyEngine, start: Double, mistake: (SensorSample) -> SensorSample? = { $0 },
        delayed: (SensorSample) -> Double = { _ in 0 }
    ) -> [Heard] {
        let log = CallbackRecorder(engine)
        var heard: [Heard] = []
        var seen = 0
        let samples = Self.flight(start: start).samples()
        // Arrival order: each sample at its true time plus its delay (a stable sort keeps the order of equal arrivals).
        let arrivals = samples.enumerated().map { (arrival: $0.element.t + delayed($0.element), index: $0.offset) }
            .sorted { ($0.arrival, $0.index) < ($1.arrival, $1.index) }
        for arrival in arrivals {
            let sample = samples[arrival.index]
            guard let pushed = mistake(sample) else { continue }
            engine.push(pushed)
            let callbacks = log.callbacks
            for callback in callbacks.dropFirst(seen) {
                if case .didReceiveMeasurementNotice(let notice) = callback { heard.append(Heard(notice: notice, trueTime: sample.t)) }
            }
            seen = callbacks.count
        }
        return heard
    }

    private func offlineEngine(_ folder: EngineFolder, wallClock: Bool = false) throws -> EddyEngine {
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: wallClock ? .wallClock : .flightTime))
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        return engine
    }

    private static let start = 1_790_000_000.0

    private func isMotion(_ sample: SensorSample) -> Bool {
        switch sample {
        case .accelerometer, .gyroscope: true
        default: false
        }
    }

    /// The first `began` notice of `kindName` about `source`.
    private func first(_ heard: [Heard], _ kindName: String, _ source: SampleSource) -> Heard? {
        heard.first { $0.notice.phase == .began && $0.notice.kindName == kindName && $0.notice.reason.hasPrefix(source.rawValue) }
    }

    @Test func aCleanFlightHearsNoTimeNotice() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let heard = fly(try offlineEngine(folder), start: Self.start)
        let names = Set(heard.map(\.notice.kindName))
        #expect(names.isDisjoint(with: ["invalid_values", "late_samples", "time_before_2010", "time_ahead_of_host_clock",
                                        "time_offset_from_location"]), "\(names)")
    }

    @Test func motionOnTheBootClockWithFixesOnUnixTime() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let heard = fly(try offlineEngine(folder), start: Self.start) { sample in
            self.isMotion(sample) ? shifted(sample, by: 250_000 - Self.start) : sample
        }
        let notice = try #require(first(heard, "time_before_2010", .accelerometer))
        #expect(notice.notice.kind == .timeStampsWrong(source: .accelerometer, problem: .beforeYear2010(.secondsSinceBoot)))
        #expect(notice.trueTime - Self.start < 60)
        #expect(notice.notice.reason.contains("systemUptime"))
    }

    @Test func allSamplesStampedSince2001() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let heard = fly(try offlineEngine(folder), start: Self.start) { shifted($0, by: -SampleTimeChecks.referenceDateUnixSeconds) }
        for source in [SampleSource.accelerometer, .location] {
            let notice = try #require(first(heard, "time_before_2010", source))
            #expect(notice.notice.kind == .timeStampsWrong(source: source, problem: .beforeYear2010(.secondsSince2001)))
            #expect(notice.trueTime - Self.start < 60)
        }
    }

    @Test func allSamplesADayInTheFuture() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let start = Date().timeIntervalSince1970.rounded(.down) - 300
        let heard = fly(try offlineEngine(folder, wallClock: true), start: start) { shifted($0, by: 86_400 + 3_600) }
        let notice = try #require(first(heard, "time_ahead_of_host_clock", .accelerometer))
        #expect(notice.trueTime - start < 60)
        #expect(first(heard, "time_ahead_of_host_clock", .location) != nil)
    }

    @Test func theMotionClockStepping10SecondsBehindGPSAfter100Seconds() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let stepAt = Self.start + 100
        let heard = fly(try offlineEngine(folder), start: Self.start) { sample in
            self.isMotion(sample) && sample.t >= stepAt ? shifted(sample, by: -10) : sample
        }
        for source in [SampleSource.accelerometer, .gyroscope] {
            let notice = try #require(first(heard, "time_offset_from_location", source))
            #expect(notice.trueTime >= stepAt && notice.trueTime - stepAt < 60, "heard \(notice.trueTime - stepAt) s after the step")
            guard case .timeStampsWrong(_, .offsetFromLocation(let seconds)) = notice.notice.kind else { continue }
            #expect(seconds < -8 && seconds > -12)
        }
    }

    @Test func accelerometerStampsAloneJumpingBack10Seconds() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let stepAt = Self.start + 100
        let heard = fly(try offlineEngine(folder), start: Self.start) { sample in
            if case .accelerometer = sample, sample.t >= stepAt { return shifted(sample, by: -10) }
            return sample
        }
        let notice = try #require(first(heard, "time_offset_from_location", .accelerometer))
        #expect(notice.trueTime - stepAt < 60)
        #expect(first(heard, "time_offset_from_location", .gyroscope) == nil, "the gyroscope's clock is right")
    }

    @Test func nanAccelerometerValuesAndTimes() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let badAt = Self.start + 100
        let heard = fly(try offlineEngine(folder), start: Self.start) { sample in
            guard case .accelerometer(var a) = sample, sample.t >= badAt, sample.t < badAt + 1 else { return sample }
            if a.t < badAt + 0.5 { a.x = .nan } else { a.t = .nan }
            return .accelerometer(a)
        }
        let notice = try #require(first(heard, "invalid_values", .accelerometer))
        #expect(notice.trueTime - badAt < 1)
        let ended = try #require(heard.first { $0.notice.phase == .ended && $0.notice.kindName == "invalid_values" })
        #expect(ended.notice.count >= 40, "every NaN sample counted (\(ended.notice.count))")
        #expect(ended.trueTime - badAt < 65, "ends a minute after the last one")
    }

    /// Fixes pushed 5 or 8 s after their time (the engine waits 2 s for late samples, so they reach detection 3 or 6 s
    /// late).
    @Test(arguments: [5.0, 8.0])
    func fixesPushedSecondsAfterTheirTime(delaySeconds: Double) throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let heard = fly(try offlineEngine(folder), start: Self.start, delayed: { sample in
            if case .location = sample { delaySeconds } else { 0 }
        })
        let notice = try #require(first(heard, "late_samples", .location))
        #expect(notice.trueTime - Self.start < 60)
        guard case .lateSamples(_, let lag) = notice.notice.kind else { Issue.record("\(notice.notice.kind)"); return }
        #expect(lag > delaySeconds - 3.5 && lag < delaySeconds)
        #expect(first(heard, "late_samples", .accelerometer) == nil)
        // Late fixes still place every second in a tile: "no location" must not claim the flight was lost (with fixes
        // 8 s late it claimed 1,437 s of the 24-minute fixture flight before).
        let noLocation = heard.filter { $0.notice.kindName == "no_location" }
        #expect(noLocation.allSatisfy { $0.notice.secondsCost <= 10 }, "\(noLocation.map(\.notice))")
        #expect(noLocation.isEmpty, "\(noLocation.map(\.notice))")
    }

    /// A host that gives each sensor its own thread and pushes as fast as it can (no pacing): whole streams arrive
    /// minutes apart. Nothing can be measured in order, and the engine must say so (it said nothing before).
    @Test func fourUnpacedThreadsAreHeard() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try offlineEngine(folder)
        let log = CallbackRecorder(engine)
        let samples = Self.flight(start: Self.start).samples()
        let streams: [[SensorSample]] = [
            samples.filter { if case .accelerometer = $0 { true } else { false } },
            samples.filter { if case .gyroscope = $0 { true } else { false } },
            samples.filter { if case .barometer = $0 { true } else { false } },
            samples.filter { if case .location = $0 { true } else { false } },
        ]
        #expect(streams.allSatisfy { !$0.isEmpty })
        DispatchQueue.concurrentPerform(iterations: streams.count) { index in
            for sample in streams[index] { engine.push(sample) }
        }
        engine.finishDetection()
        let notices = log.callbacks.compactMap { if case .didReceiveMeasurementNotice(let n) = $0 { n } else { nil } }
        let reports = log.callbacks.filter { if case .detectedTurbulence = $0 { true } else { false } }
        let late = notices.filter { $0.kindName == "late_samples" && $0.phase == .began }
        #expect(!late.isEmpty || reports.count >= 3, "reports \(reports.count), notices \(notices.map(\.kindName))")
        for notice in late { #expect(notice.reason.contains("Push each sample as it arrives"), "\(notice.reason)") }
    }

    @Test(arguments: [Double.nan, 101.3])
    func barometerRefusalsWarnOnceAMinute(pressure: Double) throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try offlineEngine(folder)
        let log = CallbackRecorder(engine)
        for i in 0..<300 {
            let t = Self.start + Double(i)
            engine.push(.location(LocationSample(t: t, latitudeDegrees: 40.6, longitudeDegrees: -73.7 + Double(i) * 0.002,
                                                 altitudeMeters: 10_000, speedMetersPerSecond: 230, courseDegrees: 90)))
            // kPa from CoreMotion varies in every reading (a real cabin's pressure is not constant).
            engine.push(.barometer(BarometerSample(t: t + 0.5, pressureHectopascals: pressure + Double(i % 7) * 0.01)))
        }
        let refusals = log.callbacks.filter {
            if case .didDetectInconsistency(let warning) = $0, case .invalidInput = warning.kind { true } else { false }
        }
        #expect(refusals.count == 5, "one per minute over 5 minutes, got \(refusals.count)")
    }
}
