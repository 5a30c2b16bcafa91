import EddyVocabulary

/// A finished minute or tile crossing waiting to be released: its span and its event.
package struct HeldReport: Sendable {
    /// Start of the span the report covers, seconds.
    package var start: Double
    /// End of the span, seconds.
    package var end: Double
    /// The report (`.minute` or `.tile`).
    package var event: DetectionEvent
}

/// Minute stage (docs/detection.md §6): per-second EDRs into minute k = [60k, 60k + 60); a minute with at least
/// `minimumValidSecondsPerMinute` EDRs and no disturbed second becomes a `MinuteEvent` (median, peak, own-class severity).
package struct MinuteAggregator: Sendable {
    private let minimumValidSeconds: Int
    private let aircraftClass: AircraftClass
    /// The open minute's index (`Int.min` before the first).
    package private(set) var minuteIndex = Int.min
    private var values: [Double] = []
    private var peak = 0.0
    private var disturbed = false

    /// Minutes with the configuration's minimum and the reporting class.
    package init(configuration: DetectionConfiguration) {
        minimumValidSeconds = configuration.minimumValidSecondsPerMinute
        aircraftClass = configuration.aircraftClass
        values.reserveCapacity(64)
    }

    /// Opens `minute` (no report: the stream starts there).
    package mutating func start(at minute: Int) { minuteIndex = minute }

    /// Moves to `minute`: the open minute's report when the minute changes and it qualifies, else nil.
    @inline(__always) package mutating func move(to minute: Int) -> HeldReport? {
        guard minute != minuteIndex else { return nil }
        let report = close()
        minuteIndex = minute
        return report
    }

    /// One second of the open minute: its EDR (nil: none) and whether it was disturbed.
    @inline(__always) package mutating func add(edr: Double?, disturbed secondDisturbed: Bool) {
        if secondDisturbed { disturbed = true }
        if let edr {
            values.append(edr)
            peak = max(peak, edr)
        }
    }

    private mutating func close() -> HeldReport? {
        defer { values.removeAll(keepingCapacity: true); peak = 0; disturbed = false }
        guard minuteIndex != Int.min, !disturbed, values.count >= minimumValidSeconds else { return nil }
        let count = values.count
        let median = Statistics.median(&values)
        let end = Double(minuteIndex + 1) * 60
        return HeldReport(start: end - 60, end: end, event: .minute(MinuteEvent(
            t: end, edrMedian: median, edrPeak: peak,
            severity: SeverityScale.severity(edr: median, viewer: aircraftClass), validSeconds: count)))
    }
}

/// Hold-back stage (docs/detection.md §2, "Reports are held back"): minute and tile reports wait until
/// `handlingLookbackSeconds` after their end, because a gradual pick-up is recognised up to 2 s after it began; a
/// report that ended in between, or that overlaps the span in which recognised handling may have begun, is dropped.
package struct ReportHoldBack: Sendable {
    private let lookbackSeconds: Double
    private var held: [HeldReport] = []
    /// The last span [recognised − lookback, recognised] in which handling may have begun: a report closing later that
    /// overlaps it (a minute still open when the device went out of position) is dropped too.
    private var disturbanceSpan = (from: -Double.infinity, to: -Double.infinity)

    /// A hold-back of the configuration's lookback.
    package init(configuration: DetectionConfiguration) {
        lookbackSeconds = configuration.handlingLookbackSeconds.isFinite ? max(0, configuration.handlingLookbackSeconds) : 3
    }

    /// Whether no report is held.
    package var isEmpty: Bool { held.isEmpty }

    /// The device went out of position (or into noise), recognised at `recognised`: the disturbance may have begun up
    /// to the lookback before; reports that ended after that are dropped.
    package mutating func disturbance(recognisedAt recognised: Double) {
        disturbanceSpan = (recognised - lookbackSeconds, recognised)
        held.removeAll { $0.end > recognised - lookbackSeconds }
    }

    /// Holds a report back, or drops it when it overlaps the span in which recognised handling may have begun.
    package mutating func hold(_ report: HeldReport) {
        if report.end > disturbanceSpan.from, report.start < disturbanceSpan.to { return }
        held.append(report)
    }

    /// Holds the tile reports among `closed` back; passes anything else on.
    package mutating func hold(_ closed: [DetectionEvent], into events: inout [DetectionEvent]) {
        for event in closed {
            if case .tile(let report) = event { hold(HeldReport(start: report.enterTime, end: report.exitTime, event: event)) } else { events.append(event) }
        }
    }

    /// Releases the held reports that ended at least the lookback before `t`, in order.
    package mutating func release(before t: Double, into events: inout [DetectionEvent]) {
        var released = 0
        while released < held.count, held[released].end <= t - lookbackSeconds {
            events.append(held[released].event)
            released += 1
        }
        if released > 0 { held.removeFirst(released) }
    }

    /// Releases everything held (end of stream).
    package mutating func flush(into events: inout [DetectionEvent]) {
        for report in held { events.append(report.event) }
        held.removeAll()
    }
}
