package import EddyVocabulary

/// Checks on every sample's time and values before detection (docs/detection.md §9, "Clocks, epochs and values"):
/// NaN or infinite times and values (refused), times before 2010 or more than a day ahead of the host's clock where
/// Unix seconds are expected, a source stamped behind the latest location fix (another clock, or stamps that jumped
/// back), a day or more between the motion and location time bases, and, told by the engine's reorder buffer, samples
/// that arrived too late. Pure.
///
/// Each reason is an episode per source, like the pipeline's notices: `began` at the first offending sample, `ended`
/// once none was seen for 60 s of location time, or at `finish`. Only invalid values are refused; a sample on a
/// suspicious clock still goes on (Eddy cannot tell a clock offset from a delivery delay without arrival times, and
/// a wrong shift would misplace reports silently): the notice says what to fix.
///
/// Per motion sample the work is one finiteness test of the sum of time and values, two compares against bounds that
/// change only at a fix, and two stores; the rest runs only for an offending sample or a fix.
package struct SampleTimeChecks: Sendable {
    /// Unix seconds of 2010-01-01T00:00:00Z.
    package static let year2010UnixSeconds = 1_262_304_000.0
    /// Foundation's reference date, 2001-01-01T00:00:00Z, in Unix seconds.
    package static let referenceDateUnixSeconds = 978_307_200.0
    /// How far a sample may be stamped behind the latest fix, seconds: a fix is delivered after its time, so a sample
    /// that arrives later and is stamped more than this before it is on another clock (or its stamps jumped).
    package static let behindLocationToleranceSeconds = 3.0
    /// How far a sample may be ahead of the host's clock, or (without Unix time) apart from the other time base, seconds.
    package static let aheadToleranceSeconds = 86_400.0
    /// Seconds of location time without an offence after which an episode ends.
    package static let releaseSeconds = 60.0

    private struct Episode: Sendable {
        var source: SampleSource
        var category: UInt8
        var kind: MeasurementNotice.Kind
        var start: Double
        var lastSeen: Double
        var count: Int
    }

    private let expectsUnixTime: Bool
    private var minimumTime: Double
    private var maximumTime = Double.infinity
    private var lowerBound: Double
    private var upperBound = Double.infinity
    private var latestFixTime = -Double.infinity
    private var latestMotionTime = -Double.infinity
    private var latestMotionSource = SampleSource.accelerometer
    private var episodes: [Episode] = []
    /// Notices raised and not yet taken (`takeNotices`), in order.
    package private(set) var notices: [MeasurementNotice] = []

    /// Checks for a stream whose times are Unix seconds (`expectsUnixTime`: the engine) or on any base (a replay's log
    /// time: then only the two sources' time bases are compared).
    package init(expectsUnixTime: Bool) {
        self.expectsUnixTime = expectsUnixTime
        minimumTime = expectsUnixTime ? Self.year2010UnixSeconds : -.infinity
        lowerBound = minimumTime
    }

    /// The host's wall clock, Unix seconds: samples more than a day ahead of it are flagged (the engine on the wall clock).
    package mutating func setHostClock(_ unixSeconds: Double) {
        guard unixSeconds.isFinite else { return }
        maximumTime = unixSeconds + Self.aheadToleranceSeconds
        updateBounds()
    }

    /// Checks one sample: false when it must be refused (a time or value that is NaN or infinite). A notice it raised is
    /// in `notices`.
    @inline(__always)
    package mutating func check(_ sample: SensorSample) -> Bool {
        switch sample {
        case .accelerometer(let a): return motion(.accelerometer, t: a.t, x: a.x, y: a.y, z: a.z)
        case .gyroscope(let g): return motion(.gyroscope, t: g.t, x: g.x, y: g.y, z: g.z)
        case .barometer(let b):
            // A NaN pressure is navigation's to refuse (its `invalid_input` warning); only the time is judged here.
            guard b.t >= lowerBound, b.t <= upperBound else { return offence(.barometer, b.t, valuesFinite: true) }
            return true
        case .location(let fix):
            return location(at: fix.t)
        }
    }

    /// The motion fast path for callers that switch on the sample themselves: true when a motion sample at `t` with these
    /// values passes every check (then `noteMotion` it); false sends it through `check(_:)`, which says why.
    @inline(__always)
    package func motionPasses(t: Double, x: Double, y: Double, z: Double) -> Bool {
        (t + x + y + z).isFinite && t >= lowerBound && t <= upperBound
    }

    /// Notes a motion sample that passed `motionPasses`.
    @inline(__always)
    package mutating func noteMotion(_ source: SampleSource, t: Double) {
        latestMotionTime = t
        latestMotionSource = source
    }

    /// A motion sample: the fast path is one finiteness test, two compares and two stores.
    @inline(__always)
    private mutating func motion(_ source: SampleSource, t: Double, x: Double, y: Double, z: Double) -> Bool {
        guard (t + x + y + z).isFinite, t >= lowerBound, t <= upperBound else { return offence(source, t, valuesFinite: (x + y + z).isFinite) }
        latestMotionTime = t
        latestMotionSource = source
        return true
    }

    /// A sample of `source` that arrived `lagSeconds` behind one already measured (the engine's reorder buffer).
    package mutating func late(_ source: SampleSource, lagSeconds: Double) {
        var worst = lagSeconds
        if let open = episodes.first(where: { $0.source == source && $0.category == 1 }), case .lateSamples(_, let lag) = open.kind {
            worst = max(lag, lagSeconds)
        }
        record(source, category: 1, .lateSamples(source: source, lagSeconds: worst))
    }

    /// Takes the notices raised so far.
    package mutating func takeNotices() -> [MeasurementNotice] {
        defer { notices.removeAll(keepingCapacity: true) }
        return notices
    }

    /// End of the stream: every open episode ends.
    package mutating func finish() {
        for episode in episodes { notices.append(ended(episode)) }
        episodes.removeAll()
    }

    // MARK: - Rare paths

    private mutating func location(at t: Double) -> Bool {
        guard t >= lowerBound, t <= upperBound else {
            let valid = offence(.location, t, valuesFinite: true)
            if valid, t.isFinite, t >= minimumTime, t <= maximumTime, t > latestFixTime { fixTimeMoved(to: t) }
            return valid
        }
        // Without Unix time, a fix a day or more after the latest motion sample means the two are on different bases.
        if !expectsUnixTime, latestMotionTime > -.infinity, t > latestMotionTime + Self.aheadToleranceSeconds {
            record(latestMotionSource, category: 4, .timeStampsWrong(
                source: latestMotionSource, problem: .offsetFromLocation(seconds: latestMotionTime - t)), at: t)
        }
        if t > latestFixTime { fixTimeMoved(to: t) }
        return true
    }

    private mutating func fixTimeMoved(to t: Double) {
        latestFixTime = t
        updateBounds()
        guard !episodes.isEmpty, episodes.contains(where: { $0.lastSeen < t - Self.releaseSeconds }) else { return }
        for episode in episodes where episode.lastSeen < t - Self.releaseSeconds { notices.append(ended(episode)) }
        episodes.removeAll { $0.lastSeen < t - Self.releaseSeconds }
    }

    private mutating func updateBounds() {
        lowerBound = max(minimumTime, latestFixTime - Self.behindLocationToleranceSeconds)
        let relativeUpper = latestFixTime > -.infinity ? latestFixTime + Self.aheadToleranceSeconds : .infinity
        upperBound = expectsUnixTime ? maximumTime : min(maximumTime, relativeUpper)
    }

    /// A sample outside the bounds or not finite: which reason, recorded; false when it must be refused. Never inlined:
    /// it builds notices, and the per-sample fast path that calls it must stay small.
    @inline(never)
    private mutating func offence(_ source: SampleSource, _ t: Double, valuesFinite: Bool) -> Bool {
        guard t.isFinite, valuesFinite else {
            record(source, category: 0, .invalidValues(source: source))
            return false
        }
        if t < minimumTime {
            let guess: TimeStampProblem.Guess = t >= 0 && t < 1e8 ? .secondsSinceBoot
                : t + Self.referenceDateUnixSeconds >= Self.year2010UnixSeconds ? .secondsSince2001 : .unknown
            record(source, category: 2, .timeStampsWrong(source: source, problem: .beforeYear2010(guess)))
        } else if t > maximumTime {
            let ahead = t - (maximumTime - Self.aheadToleranceSeconds)
            record(source, category: 3, .timeStampsWrong(source: source, problem: .aheadOfHostClock(seconds: ahead)))
        } else if t < lowerBound || t > upperBound {
            record(source, category: 4, .timeStampsWrong(source: source, problem: .offsetFromLocation(seconds: t - latestFixTime)))
        }
        if source != .location, source != .barometer, t.isFinite {
            latestMotionTime = t
            latestMotionSource = source
        }
        return true
    }

    /// The time notices are placed at: the latest fix's (the reference clock), else the latest motion sample's.
    private var referenceTime: Double {
        latestFixTime > -.infinity ? latestFixTime : latestMotionTime > -.infinity ? latestMotionTime : 0
    }

    private mutating func record(_ source: SampleSource, category: UInt8, _ kind: MeasurementNotice.Kind, at time: Double? = nil) {
        let t = time ?? referenceTime
        if let index = episodes.firstIndex(where: { $0.source == source && $0.category == category }) {
            episodes[index].count += 1
            episodes[index].lastSeen = max(episodes[index].lastSeen, t)
            episodes[index].kind = kind
            return
        }
        episodes.append(Episode(source: source, category: category, kind: kind, start: t, lastSeen: t, count: 1))
        notices.append(MeasurementNotice(phase: .began, kind: kind, start: t, end: nil, count: 1, secondsCost: 0))
    }

    private func ended(_ episode: Episode) -> MeasurementNotice {
        MeasurementNotice(phase: .ended, kind: episode.kind, start: episode.start, end: episode.lastSeen, count: episode.count,
                          secondsCost: 0)
    }
}
