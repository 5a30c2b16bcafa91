package import EddyNavigation
package import EddyVocabulary

/// Detection over one time-ordered stream of raw sensor samples, with its own `Navigation`: what a replay of a
/// flight log runs (`eddy replay`, the benchmarks, the detection tests).
///
/// Each barometer reading and location fix goes through navigation first and reaches the pipeline with what navigation
/// made of it, so a replay places its reports exactly as the engine does with its one navigation (docs/architecture.md).
package struct NavigatedDetection: Sendable {
    /// Where the aircraft is: the replay's one position filter and altitude estimator.
    package private(set) var navigation: Navigation
    /// The detection pipeline.
    package private(set) var pipeline: DetectionPipeline
    /// Time and value checks on every sample (on the log's time base: only the sources' bases are compared).
    private var timeChecks = SampleTimeChecks(expectsUnixTime: false)

    /// Detection with `configuration` and navigation with `navigation` (default: the aircraft class's).
    package init(configuration: DetectionConfiguration, navigation: NavigationConfiguration? = nil) {
        pipeline = DetectionPipeline(configuration: configuration)
        self.navigation = Navigation(configuration: navigation ?? NavigationConfiguration(aircraftClass: configuration.aircraftClass))
    }

    /// Sets the host's flight-level hints (times in the samples' base) and Unix time − sample time (the climatology's
    /// date and fleet offsets' ages).
    package mutating func setFlightLevelHints(_ hints: FlightLevelHints, clockOffsetSeconds: Double) {
        navigation.flightLevelHints = hints
        navigation.setClockOffset(seconds: clockOffsetSeconds)
    }

    /// Feeds one sample (time-ordered); events are appended to `events`.
    @inline(__always)
    package mutating func process(_ sample: SensorSample, into events: inout [DetectionEvent]) {
        var recorder = NoStageRecorder()
        process(sample, into: &events, recorder: &recorder)
    }

    /// `process(_:into:)`, telling `recorder` every stage call of the pipeline (the stage-cost meter).
    @inline(__always)
    package mutating func process<R: StageRecorder>(_ sample: SensorSample, into events: inout [DetectionEvent], recorder: inout R) {
        // Motion samples take the time checks' fast path (a few compares); anything it does not pass, and every barometer
        // reading and fix, goes through the full check, which raises the notices.
        switch sample {
        case .accelerometer(let a):
            if timeChecks.motionPasses(t: a.t, x: a.x, y: a.y, z: a.z) { timeChecks.noteMotion(.accelerometer, t: a.t) }
            else if !checked(sample, into: &events) { return }
            pipeline.process(.accelerometer(a), into: &events, recorder: &recorder)
        case .gyroscope(let g):
            if timeChecks.motionPasses(t: g.t, x: g.x, y: g.y, z: g.z) { timeChecks.noteMotion(.gyroscope, t: g.t) }
            else if !checked(sample, into: &events) { return }
            pipeline.process(.gyroscope(g), into: &events, recorder: &recorder)
        case .barometer(let b):
            guard checked(sample, into: &events) else { return }
            pipeline.process(.barometer(b, navigation.addBarometer(b)), into: &events, recorder: &recorder)
        case .location(let fix):
            guard checked(sample, into: &events) else { return }
            // A time navigation refuses (not finite, beyond ±10¹¹ s) is one the pipeline ignores too.
            guard let navigated = navigation.addFix(fix) else { return }
            pipeline.process(.location(navigated), into: &events, recorder: &recorder)
        }
    }

    /// Gives navigation the fleet's altitude offsets (their times are Unix; `clockOffsetSeconds` maps this stream's
    /// time to Unix).
    package mutating func setFleetOffsets(_ cells: [AltitudeOffsetCell], clockOffsetSeconds: Double = 0) {
        navigation.setFleetOffsets(cells, clockOffsetSeconds: clockOffsetSeconds)
    }

    /// Flush at end of stream (closes the open tile crossing and notice episodes).
    package mutating func finish(into events: inout [DetectionEvent]) {
        var recorder = NoStageRecorder()
        finish(into: &events, recorder: &recorder)
    }

    /// `finish(into:)`, telling `recorder` every stage call.
    package mutating func finish<R: StageRecorder>(into events: inout [DetectionEvent], recorder: inout R) {
        pipeline.finish(into: &events, recorder: &recorder)
        timeChecks.finish()
        takeTimeNotices(into: &events)
    }

    /// The full time and value check of one sample, its notices appended; false when the sample must be refused.
    @inline(never)
    private mutating func checked(_ sample: SensorSample, into events: inout [DetectionEvent]) -> Bool {
        let valid = timeChecks.check(sample)
        if !timeChecks.notices.isEmpty { takeTimeNotices(into: &events) }
        return valid
    }

    private mutating func takeTimeNotices(into events: inout [DetectionEvent]) {
        for notice in timeChecks.takeNotices() { events.append(.notice(notice)) }
    }
}
