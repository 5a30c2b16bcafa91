/// What the alert monitor tells the host after an evaluation (nothing when the alerted set did not change).
package import EddyVocabulary
package enum AlertNotification: Sendable, Equatable {
    /// The alerted set changed and is not empty: the evaluation, and the tiles that are new or got worse.
    case alert(AlertEvaluation, newOrWorse: [TileID])
    /// The alerted set became empty.
    case cleared
}

/// Notify-on-change over successive alert evaluations, with per-tile "alerted" bookkeeping and damping.
///
/// The alerted set of an evaluation is its tiles with their severities. A notification is due only when that
/// set differs from the previous notified one. Damping (docs/alerts.md "Damping"): a tile that joins or gets worse
/// is notified at once; a tile that leaves the evaluation or gets milder keeps its alerted severity until it has
/// stayed out (or milder) for `holdSeconds`, and only then is the change notified. So A1 A1 A1 → one alert; A1 ∅ A1
/// with the gap shorter than the hold → one alert; A1 ∅ (held past the hold) → alert, cleared. Distance, bearing and
/// mode changes alone never notify.
package struct AlertMonitor: Sendable {
    /// A leaving or milder tile stays alerted this long after it was last seen at its alerted severity, seconds: a
    /// circling aircraft (a glider circles in 20–30 s) sweeps its beam over a tile and would otherwise flap.
    package static let defaultHoldSeconds = 60.0

    /// How long a leaving or milder tile is held, seconds.
    package let holdSeconds: Double
    /// Tiles in the last notified alerted set, with the severity they were alerted at.
    package private(set) var alerted: [TileID: Severity] = [:]
    /// The worst turbulence polygon of the last notified polygon fallback (nil: none alerted).
    package private(set) var alertedPolygonSeverity: Severity?
    /// For each alerted tile, the last item that carried its alerted severity and when that was.
    private var lastSeen: [TileID: (item: AlertItem, time: Double)] = [:]

    /// Creates a monitor with nothing alerted.
    package init(holdSeconds: Double = AlertMonitor.defaultHoldSeconds) {
        self.holdSeconds = holdSeconds.isFinite ? max(0, holdSeconds) : 0
    }

    /// Takes the evaluation made at time `t` (seconds, the fixes' base); returns a notification when the damped
    /// alerted set changed, else nil.
    package mutating func process(_ evaluation: AlertEvaluation, at t: Double) -> AlertNotification? {
        var current: [TileID: Severity] = [:]
        var items: [TileID: AlertItem] = [:]
        for item in evaluation.items where item.severity >= current[item.tile] ?? .none {
            current[item.tile] = item.severity
            items[item.tile] = item
        }
        // Tiles seen at (or above) their alerted severity are fresh; the rest are held while within the hold.
        var effective = current
        var heldItems: [AlertItem] = []
        for (tile, severity) in alerted {
            if let now = current[tile], now >= severity { continue }
            guard let seen = lastSeen[tile], t.isFinite, t - seen.time < holdSeconds else { continue }
            effective[tile] = severity
            heldItems.append(seen.item)
        }
        for (tile, item) in items where item.severity >= effective[tile] ?? .none { lastSeen[tile] = (item, t) }
        // The polygon fallback notifies when its worst severity changes (it answers only where no report is).
        let polygonSeverity = evaluation.polygonItems.map(\.polygon.severity).max()
        guard effective != alerted || polygonSeverity != alertedPolygonSeverity else { return nil }
        let previous = alerted
        alerted = effective
        alertedPolygonSeverity = polygonSeverity
        lastSeen = lastSeen.filter { effective[$0.key] != nil }
        if effective.isEmpty && polygonSeverity == nil { return .cleared }
        let newOrWorse = effective.filter { tile, severity in
            guard let before = previous[tile] else { return true }
            return severity > before
        }.keys.sorted()
        var notified = evaluation
        if !heldItems.isEmpty {
            // A held tile is shown as last seen at its alerted severity (its milder item now, if any, is left out).
            let heldTiles = Set(heldItems.map(\.tile))
            notified.items = (evaluation.items.filter { !heldTiles.contains($0.tile) } + heldItems)
                .sorted { ($0.distanceNM, $0.tile) < ($1.distanceNM, $1.tile) }
        }
        return .alert(notified, newOrWorse: newOrWorse)
    }

    /// Whether `tile` is in the last notified alerted set.
    package func isAlerted(_ tile: TileID) -> Bool { alerted[tile] != nil }

    /// Forgets everything alerted (monitoring stopped or a new flight): the next non-empty set notifies again.
    package mutating func reset() {
        alerted = [:]
        alertedPolygonSeverity = nil
        lastSeen = [:]
    }
}
