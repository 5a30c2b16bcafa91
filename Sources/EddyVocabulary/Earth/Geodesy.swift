import Foundation

/// Spherical-Earth navigation formulas (great-circle distance, initial bearing, cross-track distance).
///
/// Mean Earth radius 6371.0088 km (IUGG R1); 1 NM = 1852 m. Formulas: haversine distance, forward azimuth,
/// and the cross-track / along-track distances of the "Aviation Formulary" (Ed Williams). See docs/alerts.md.
package enum Geodesy {
    /// Mean Earth radius in nautical miles.
    package static let earthRadiusNM = 6_371_008.8 / 1852

    /// A position as (latitude, longitude) in degrees.
    package typealias Point = (latitude: Double, longitude: Double)

    /// Great-circle distance between two positions, nautical miles.
    package static func distanceNM(from a: Point, to b: Point) -> Double {
        centralAngle(a, b) * earthRadiusNM
    }

    /// Central angle between two positions, radians (haversine, stable for short distances).
    package static func centralAngle(_ a: Point, _ b: Point) -> Double {
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * asin(Swift.min(1, sqrt(Swift.max(0, h))))
    }

    /// Initial bearing (forward azimuth) from `a` towards `b`, degrees true in [0, 360).
    package static func initialBearingDegrees(from a: Point, to b: Point) -> Double {
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dLon) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
        return normalizedDegrees(atan2(y, x) * 180 / .pi)
    }

    /// The point reached from `a` after `distanceNM` on initial bearing `bearingDegrees` (for tests and tools).
    package static func destination(from a: Point, bearingDegrees: Double, distanceNM: Double) -> Point {
        let lat1 = a.latitude * .pi / 180, lon1 = a.longitude * .pi / 180
        let delta = distanceNM / earthRadiusNM
        let theta = bearingDegrees * .pi / 180
        let lat2 = asin(sin(lat1) * cos(delta) + cos(lat1) * sin(delta) * cos(theta))
        let lon2 = lon1 + atan2(sin(theta) * sin(delta) * cos(lat1), cos(delta) - sin(lat1) * sin(lat2))
        var lonDeg = lon2 * 180 / .pi
        lonDeg = (lonDeg + 540).truncatingRemainder(dividingBy: 360) - 180
        return (lat2 * 180 / .pi, lonDeg)
    }

    /// Angle in degrees normalised to [0, 360).
    package static func normalizedDegrees(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }

    /// Smallest absolute difference between two angles, degrees in [0, 180].
    package static func angleDifferenceDegrees(_ a: Double, _ b: Double) -> Double {
        let d = normalizedDegrees(a - b)
        return d > 180 ? 360 - d : d
    }

    /// Projection of `p` on the great-circle segment `a`–`b`: distance to the segment (perpendicular when the foot
    /// lies on it, else the nearer end) and the along-segment distance of the nearest point from `a`, both NM.
    package static func segmentProjectionNM(_ p: Point, _ a: Point, _ b: Point) -> (distanceNM: Double, alongNM: Double) {
        let d13 = centralAngle(a, p)
        let d12 = centralAngle(a, b)
        if d12 < 1e-12 { return (d13 * earthRadiusNM, 0) }
        let theta13 = initialBearingDegrees(from: a, to: p) * .pi / 180
        let theta12 = initialBearingDegrees(from: a, to: b) * .pi / 180
        let xt = asin(Swift.max(-1, Swift.min(1, sin(d13) * sin(theta13 - theta12))))
        let cosXt = cos(xt)
        var along = cosXt > 1e-15 ? acos(Swift.max(-1, Swift.min(1, cos(d13) / cosXt))) : 0
        if cos(theta13 - theta12) < 0 { along = -along }
        if along <= 0 { return (d13 * earthRadiusNM, 0) }
        if along >= d12 { return (centralAngle(b, p) * earthRadiusNM, d12 * earthRadiusNM) }
        return (abs(xt) * earthRadiusNM, along * earthRadiusNM)
    }

    /// Distance from `p` to the great-circle segment `a`–`b`, nautical miles.
    package static func distanceToSegmentNM(_ p: Point, _ a: Point, _ b: Point) -> Double {
        segmentProjectionNM(p, a, b).distanceNM
    }

    /// Projection of `p` on a polyline: distance to its nearest segment and the distance along the polyline from
    /// its first point to the nearest point, both NM; nil when the polyline has < 2 points.
    package static func polylineProjectionNM(_ p: Point, _ polyline: [Point]) -> (distanceNM: Double, alongNM: Double)? {
        guard polyline.count >= 2 else { return nil }
        var best = (distanceNM: Double.infinity, alongNM: 0.0)
        var start = 0.0
        for i in 0..<(polyline.count - 1) {
            let proj = segmentProjectionNM(p, polyline[i], polyline[i + 1])
            if proj.distanceNM < best.distanceNM { best = (proj.distanceNM, start + proj.alongNM) }
            start += distanceNM(from: polyline[i], to: polyline[i + 1])
        }
        return best
    }

    /// Distance from `p` to a polyline (the nearest of its segments), nautical miles; nil when the polyline has < 2 points.
    package static func distanceToPolylineNM(_ p: Point, _ polyline: [Point]) -> Double? {
        polylineProjectionNM(p, polyline)?.distanceNM
    }
}
