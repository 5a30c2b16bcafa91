package import EddyH3
package import EddyVocabulary
import Foundation

/// The own aircraft's motion the along-track fields are computed from.
package struct OwnMotion: Sendable, Equatable {
    /// Latitude, degrees.
    package var latitudeDegrees: Double
    /// Longitude, degrees.
    package var longitudeDegrees: Double
    /// Course over ground, degrees true (nil: unknown; then nothing is along the track).
    package var trackDegrees: Double?
    /// Ground speed, knots (nil: unknown).
    package var groundSpeedKnots: Double?

    /// Creates a motion.
    package init(latitudeDegrees: Double, longitudeDegrees: Double, trackDegrees: Double?, groundSpeedKnots: Double?) {
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        self.trackDegrees = trackDegrees; self.groundSpeedKnots = groundSpeedKnots
    }

    /// The motion of a location fix (course and speed when finite and not negative).
    package init(fix: LocationSample) {
        self.init(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                  trackDegrees: fix.courseDegrees.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                  groundSpeedKnots: fix.speedMetersPerSecond.flatMap { $0.isFinite && $0 >= 0 ? $0 * 3600 / 1852 : nil })
    }
}

/// The along-track geometry (pure).
package enum AlongTrackGeometry {
    /// Below this ground speed the aircraft counts as not moving (no times), knots.
    package static let minimumMovingKnots = 5.0
    /// Default corridor half-width for data queries: the alert route corridor's 20 NM each side.
    package static let defaultCorridorHalfWidthNM = 20.0

    /// Along-track and cross-track distances of `point` from `own` on `trackDegrees`, nautical miles
    /// (cross-track positive to the right of the track).
    package static func project(_ point: Geodesy.Point, own: Geodesy.Point, trackDegrees: Double) -> (alongNM: Double, crossNM: Double) {
        let d = Geodesy.centralAngle(own, point)
        let dTheta = (Geodesy.initialBearingDegrees(from: own, to: point) - trackDegrees) * .pi / 180
        let along = atan2(sin(d) * cos(dTheta), cos(d))
        let cross = asin(max(-1, min(1, sin(d) * sin(dTheta))))
        return (along * Geodesy.earthRadiusNM, cross * Geodesy.earthRadiusNM)
    }

    /// The relation of a hexagon (its vertices) to the track: nil when the track is unknown, the hexagon is behind
    /// (far edge ≤ 0), or no part of it is within `corridorHalfWidthNM` of the track line (no vertex that close and
    /// the vertices all on one side).
    package static func relation(vertices: [LatLng], motion: OwnMotion, corridorHalfWidthNM: Double) -> AlongTrack? {
        guard let track = motion.trackDegrees, !vertices.isEmpty,
              motion.latitudeDegrees.isFinite, motion.longitudeDegrees.isFinite else { return nil }
        let own: Geodesy.Point = (motion.latitudeDegrees, motion.longitudeDegrees)
        var near = Double.infinity, far = -Double.infinity
        var minCross = Double.infinity, left = false, right = false
        for v in vertices {
            let p = project((v.latitude, v.longitude), own: own, trackDegrees: track)
            near = min(near, p.alongNM); far = max(far, p.alongNM)
            minCross = min(minCross, abs(p.crossNM))
            if p.crossNM < 0 { left = true } else { right = true }
        }
        guard far > 0, minCross <= corridorHalfWidthNM || (left && right) else { return nil }
        let distance = max(0, near)
        var reach: Double?, pass: Double?
        if let speed = motion.groundSpeedKnots, speed >= minimumMovingKnots {
            reach = distance / speed * 3600
            pass = far / speed * 3600
        }
        return AlongTrack(distanceNM: distance, farEdgeNM: far, timeToReachSeconds: reach, timeToPassSeconds: pass)
    }

    /// The relation of a tile's hexagon to the track (nil also when the cell is not valid).
    package static func relation(tile: TileID, motion: OwnMotion,
                                 corridorHalfWidthNM: Double = defaultCorridorHalfWidthNM) -> AlongTrack? {
        guard let vertices = try? H3.cellToBoundary(H3Index(rawValue: tile.h3)) else { return nil }
        return relation(vertices: vertices, motion: motion, corridorHalfWidthNM: corridorHalfWidthNM)
    }
}
