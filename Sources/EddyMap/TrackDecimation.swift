/// Thins a track for the page (docs/maps.md, "Size"): the first point at or after each multiple of `step` seconds,
/// plus every layer change, the points on both sides of a gap, the first point with or without a fix, and the last point.
///
/// `step` is `max(minimumStepSeconds, duration / maximumPoints)`: a 12-hour flight at 1 Hz (43 200 fixes) keeps about
/// 8 000 points, ≈ 5.4 s apart; at 250 kt that is ≈ 700 m between points, below the map's 1:110m basemap detail and
/// far below an H3 resolution-5 hexagon (≈ 8.5 km edge).
package struct TrackDecimation: Sendable {
    /// Shortest time between kept points, seconds.
    package var minimumStepSeconds: Double
    /// Most points kept by the time rule (layer changes and gaps add a few).
    package var maximumPoints: Int

    /// Creates a decimation.
    package init(minimumStepSeconds: Double = 5, maximumPoints: Int = 8000) {
        self.minimumStepSeconds = minimumStepSeconds
        self.maximumPoints = max(2, maximumPoints)
    }

    /// The step in force for a track spanning `durationSeconds`.
    package func stepSeconds(durationSeconds: Double) -> Double {
        guard durationSeconds.isFinite, durationSeconds > 0 else { return minimumStepSeconds }
        return max(minimumStepSeconds, durationSeconds / Double(maximumPoints))
    }

    /// The kept points, in order, and the step used. Input must be in time order (out-of-order points are dropped).
    package func apply(_ points: [MapTrackPoint]) -> (points: [MapTrackPoint], stepSeconds: Double) {
        guard let first = points.first, let last = points.last else { return ([], minimumStepSeconds) }
        let step = stepSeconds(durationSeconds: last.t - first.t)
        var kept: [MapTrackPoint] = [first]
        kept.reserveCapacity(min(points.count, maximumPoints + 64))
        var previous = first
        // The time rule keeps the first point at or after each multiple of `step` from the start (a grid, so the
        // count is duration / step whatever the sample spacing).
        var nextMark = first.t + step
        for point in points.dropFirst() {
            guard point.t > previous.t else { continue }
            let lastKept = kept[kept.count - 1]
            let gap = point.t - previous.t > 3 * step
            let fixChanged = (point.latitudeDegrees == nil) != (lastKept.latitudeDegrees == nil)
            if gap, previous.t != lastKept.t { kept.append(previous) }
            let onGrid = point.t >= nextMark
            if onGrid || point.layer != lastKept.layer || gap || fixChanged {
                kept.append(point)
            }
            if onGrid { nextMark = first.t + (((point.t - first.t) / step).rounded(.down) + 1) * step }
            previous = point
        }
        if let tail = kept.last, tail.t != previous.t { kept.append(previous) }
        return (kept, step)
    }
}
