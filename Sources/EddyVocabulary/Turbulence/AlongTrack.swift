import EddyH3
import Foundation

/// Where a tile lies along the aircraft's track (docs/engine.md, "Along the track").
///
/// The track is the great circle through the aircraft's position in the direction of its course over ground. Every
/// vertex of the tile's hexagon is projected on it: along-track distance `a = atan2(sin d·cos Δθ, cos d)` and
/// cross-track distance `x = asin(sin d·sin Δθ)` (central angles, `d` from the aircraft to the vertex, `Δθ` the
/// bearing to the vertex minus the track). The near edge is the smallest `a`, the far edge the largest.
public struct AlongTrack: Sendable, Equatable, Hashable {
    /// Along-track distance from the aircraft to the hexagon's near edge, nautical miles (0 when inside it).
    public var distanceNM: Double
    /// Along-track distance from the aircraft to the hexagon's far edge, nautical miles.
    public var farEdgeNM: Double
    /// Seconds until the near edge at the current ground speed (nil when not moving or the speed is unknown).
    public var timeToReachSeconds: Double?
    /// Seconds until the far edge is passed at the current ground speed (nil when not moving or the speed is unknown).
    public var timeToPassSeconds: Double?

    /// Creates a relation.
    public init(distanceNM: Double, farEdgeNM: Double, timeToReachSeconds: Double?, timeToPassSeconds: Double?) {
        self.distanceNM = distanceNM; self.farEdgeNM = farEdgeNM
        self.timeToReachSeconds = timeToReachSeconds; self.timeToPassSeconds = timeToPassSeconds
    }
}

/// How a tile's latest report compares with the report cached before it for the same tile (cell × layer).
public enum TurbulenceTrend: String, Sendable, Hashable, Codable, CaseIterable {
    /// No earlier report of the tile is cached.
    case new
    /// The latest report is less severe than the one before it (for the viewer's class).
    case better
    /// The latest report is more severe than the one before it.
    case worse
    /// Same severity as the report before it.
    case same

    /// The trend of `latest` against `previous` (nil: no earlier report) for severities of one viewer class.
    public init(latest: Severity, previous: Severity?) {
        guard let previous else { self = .new; return }
        self = latest > previous ? .worse : latest < previous ? .better : .same
    }
}
