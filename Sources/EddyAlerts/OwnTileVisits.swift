/// The tiles the aircraft has been in and when it last was (docs/alerts.md "Own reports").
///
/// An own report is the crew's own experience. It does not alert for `AlertQuery.excludeOwnSeconds` after the report,
/// or after the aircraft was last in the report's tile, whichever is later: a glider circling in, or back into, the
/// tile it reported is not alerted to it.
package import EddyVocabulary
package struct OwnTileVisits: Sendable {
    /// Visits older than this are forgotten (the longest history window), seconds.
    package static let keepSeconds = 6 * 3600.0
    /// Old visits are swept at most this often, seconds.
    static let sweepSeconds = 600.0

    private var lastVisit: [TileID: Double] = [:]
    private var lastSweep = -Double.infinity

    /// No visits.
    package init() {}

    /// Records that the aircraft was in `tile` at `t` (seconds, the fixes' base); non-finite times are ignored.
    package mutating func record(_ tile: TileID, at t: Double) {
        guard t.isFinite else { return }
        lastVisit[tile] = max(lastVisit[tile] ?? t, t)
        if t - lastSweep >= Self.sweepSeconds {
            lastSweep = t
            lastVisit = lastVisit.filter { t - $0.value <= Self.keepSeconds }
        }
    }

    /// When the aircraft was last in `tile`, nil if not within `keepSeconds`.
    package func lastVisit(of tile: TileID) -> Double? { lastVisit[tile] }

    /// The candidates with each own report's time moved to the last visit of its tile when that is later.
    package func felt(_ candidates: [AlertCandidate]) -> [AlertCandidate] {
        guard !lastVisit.isEmpty else { return candidates }
        return candidates.map { candidate in
            guard candidate.origin == .own, let visit = lastVisit[candidate.report.tile], visit > candidate.time else { return candidate }
            var felt = candidate
            felt.time = visit
            return felt
        }
    }

    /// Forgets every visit (a new flight).
    package mutating func reset() { lastVisit = [:] }
}
