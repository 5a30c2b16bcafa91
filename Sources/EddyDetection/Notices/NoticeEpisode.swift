/// One reason's episodes for `MeasurementNotice`: begins after the condition held `onsetSeconds` in a row (the
/// notice's start is the first of them), ends once it has been absent `releaseSeconds` in a row (the end is the last
/// second it held, + 1 s). So a reason is raised once per episode, never per sample, and a flickering condition is one
/// episode.
struct NoticeEpisode: Sendable {
    let onsetSeconds: Int
    let releaseSeconds: Int
    /// Whether the episode was raised and has not ended.
    private(set) var active = false
    /// End of the last second the condition held.
    private(set) var lastHeld = -Double.infinity
    /// The kind reported (latest values).
    var kind: MeasurementNotice.Kind?
    private var start = 0.0
    private var heldRun = 0
    private var absentRun = 0
    private var count = 0
    private var cost = 0.0

    init(onsetSeconds: Int, releaseSeconds: Int) {
        self.onsetSeconds = max(1, onsetSeconds)
        self.releaseSeconds = max(1, releaseSeconds)
    }

    /// One second starting at `t`: whether the condition held, its kind, and whether the second counts as a cost.
    mutating func second(held: Bool, kind: @autoclosure () -> MeasurementNotice.Kind?, at t: Double, cost costs: Bool,
                         into events: inout [DetectionEvent]) {
        if held {
            if !active, heldRun == 0 { start = t; count = 0; cost = 0 }
            heldRun += 1
            absentRun = 0
            count += 1
            if costs { cost += 1 }
            lastHeld = t + 1
            if let k = kind() { self.kind = k }
            if !active, heldRun >= onsetSeconds, let k = self.kind {
                active = true
                events.append(.notice(MeasurementNotice(phase: .began, kind: k, start: start, end: nil, count: count, secondsCost: cost)))
            }
        } else {
            heldRun = 0
            guard active else { return }
            absentRun += 1
            if absentRun >= releaseSeconds { close(at: lastHeld, into: &events) }
        }
    }

    /// A gap in the data from `from` to `to` (an episode of its own, or merged into the open one).
    mutating func gap(from: Double, to: Double, kind: MeasurementNotice.Kind, into events: inout [DetectionEvent]) {
        self.kind = kind
        count += active ? 1 : 0
        cost += active ? to - from : 0
        lastHeld = to
        guard !active else { return }
        active = true
        start = from
        count = 1
        cost = to - from
        events.append(.notice(MeasurementNotice(phase: .began, kind: kind, start: from, end: nil, count: 1, secondsCost: 0)))
    }

    /// Ends the open episode (if any) at `end` (never before its start).
    mutating func close(at end: Double, into events: inout [DetectionEvent]) {
        defer { active = false; heldRun = 0; absentRun = 0 }
        guard active, let kind else { return }
        events.append(.notice(MeasurementNotice(
            phase: .ended, kind: kind, start: start, end: max(start, min(end, lastHeld)), count: count, secondsCost: cost)))
    }
}
