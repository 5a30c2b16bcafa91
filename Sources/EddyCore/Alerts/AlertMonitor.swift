/// What the alert monitor tells the host after an evaluation (nothing when the alerted set did not change).
package enum AlertNotification: Sendable, Equatable {
    /// The alerted set changed and is not empty: the evaluation, and the tiles that are new or got worse.
    case alert(AlertEvaluation, newOrWorse: [TileID])
    /// The alerted set became empty.
    case cleared
}

/// Notify-on-change over successive alert evaluations, with per-tile "alerted" bookkeeping.
///
/// The alerted set of an evaluation is its tiles with their severities. A notification is due only when that
/// set differs from the previous one: A1 A1 A1 → one alert; A1 A2 A1 → three; A1 ∅ A1 → alert, cleared, alert.
/// Distance, bearing and mode changes alone never notify. See docs/alerts.md.
package struct AlertMonitor: Sendable {
    /// Tiles in the last notified alerted set, with the severity they were alerted at.
    package private(set) var alerted: [TileID: Severity] = [:]

    /// Creates a monitor with nothing alerted.
    package init() {}

    /// Takes the next evaluation; returns a notification when the alerted set changed, else nil.
    package mutating func process(_ evaluation: AlertEvaluation) -> AlertNotification? {
        var current: [TileID: Severity] = [:]
        for item in evaluation.items { current[item.tile] = max(current[item.tile] ?? .none, item.severity) }
        guard current != alerted else { return nil }
        let previous = alerted
        alerted = current
        if current.isEmpty { return .cleared }
        let newOrWorse = current.filter { tile, severity in
            guard let before = previous[tile] else { return true }
            return severity > before
        }.keys.sorted()
        return .alert(evaluation, newOrWorse: newOrWorse)
    }

    /// Whether `tile` is in the last notified alerted set.
    package func isAlerted(_ tile: TileID) -> Bool { alerted[tile] != nil }

    /// Forgets everything alerted (monitoring stopped or a new flight): the next non-empty set notifies again.
    package mutating func reset() { alerted = [:] }
}
