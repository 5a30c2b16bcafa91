
/// Own reports the store refused (disk full, a failing volume), oldest first, waiting in memory to be stored.
///
/// The engine stores them, oldest first, before the next own report, before each sync step and with the 10-minute
/// purge, and announces each (`detectedTurbulence`) once it is stored; so a disk that fills up and is freed again
/// loses no report (docs/engine.md "Store failures"). They live in memory only: a report still waiting when the app
/// quits is lost, and at most `capacity` wait (the oldest goes first when a new one would exceed it, logged).
package struct UnstoredReports: Sendable {
    /// Most reports kept waiting: ~1,000 × ~0.3 KB; at one crossing a minute, 16 hours of a full disk.
    package static let capacity = 1000
    private var reports: [DetectedTurbulence] = []

    /// An empty list.
    package init() {}

    /// Removes and returns every waiting report, oldest first.
    mutating func takeAll() -> [DetectedTurbulence] {
        defer { reports.removeAll() }
        return reports
    }

    /// Puts `refused` (oldest first) back before anything added meanwhile; returns the oldest reports dropped to stay
    /// within `capacity`.
    mutating func putBack(_ refused: ArraySlice<DetectedTurbulence>) -> [DetectedTurbulence] {
        reports.insert(contentsOf: refused, at: 0)
        let excess = reports.count - Self.capacity
        guard excess > 0 else { return [] }
        defer { reports.removeFirst(excess) }
        return Array(reports.prefix(excess))
    }
}
