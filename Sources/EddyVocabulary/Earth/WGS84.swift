import Foundation

/// WGS-84 ellipsoid constants and exact geodetic ↔ Earth-centred Earth-fixed (ECEF) conversions (docs/position.md §2).
///
/// ECEF has no seam at the antimeridian and no singularity at the poles, which is why the position filters work in a
/// plane tangent to it rather than in latitude/longitude.
package enum WGS84 {
    /// Semi-major axis, metres.
    package static let semiMajorAxisMeters = 6_378_137.0
    /// Flattening.
    package static let flattening = 1 / 298.257_223_563
    /// Semi-minor axis, metres.
    package static let semiMinorAxisMeters = semiMajorAxisMeters * (1 - flattening)
    /// First eccentricity squared.
    package static let eccentricitySquared = flattening * (2 - flattening)

    /// ECEF coordinates (metres) of a geodetic position at height `heightMeters` above the ellipsoid.
    package static func ecef(latitudeDegrees: Double, longitudeDegrees: Double, heightMeters: Double = 0) -> Vector3 {
        let lat = latitudeDegrees * .pi / 180, lon = longitudeDegrees * .pi / 180
        let sinLat = sin(lat), cosLat = cos(lat)
        let n = semiMajorAxisMeters / (1 - eccentricitySquared * sinLat * sinLat).squareRoot()
        return Vector3((n + heightMeters) * cosLat * cos(lon), (n + heightMeters) * cosLat * sin(lon),
                       (n * (1 - eccentricitySquared) + heightMeters) * sinLat)
    }

    /// Unit vectors (ECEF) pointing east and north at a geodetic position.
    package static func eastNorth(latitudeDegrees: Double, longitudeDegrees: Double) -> (east: Vector3, north: Vector3) {
        let lat = latitudeDegrees * .pi / 180, lon = longitudeDegrees * .pi / 180
        return (Vector3(-sin(lon), cos(lon), 0), Vector3(-sin(lat) * cos(lon), -sin(lat) * sin(lon), cos(lat)))
    }

    /// Geodetic latitude and longitude (degrees, longitude in −180…180) of an ECEF point: Heikkinen's closed form
    /// (Heikkinen 1982, as given by Zhu 1994), exact for points near the surface, with no iteration and no NaN at the
    /// poles (square-root arguments are clamped at zero against rounding).
    package static func geodetic(_ p: Vector3) -> (latitudeDegrees: Double, longitudeDegrees: Double) {
        let a = semiMajorAxisMeters, b = semiMinorAxisMeters, e2 = eccentricitySquared
        let ep2 = (a * a - b * b) / (b * b)
        let r = (p.x * p.x + p.y * p.y).squareRoot()
        let z = p.z
        let f = 54 * b * b * z * z
        let g = r * r + (1 - e2) * z * z - e2 * (a * a - b * b)
        guard g > 0 else {
            // Only within ~43 km of the Earth's centre; never for a position on or near the surface.
            return (0, atan2(p.y, p.x) * 180 / .pi)
        }
        let c = e2 * e2 * f * r * r / (g * g * g)
        let s = cbrt(1 + c + max(0, c * c + 2 * c).squareRoot())
        let k = s + 1 + 1 / s
        let pp = f / (3 * k * k * g * g)
        let q = (1 + 2 * e2 * e2 * pp).squareRoot()
        let r0 = -pp * e2 * r / (1 + q)
            + max(0, a * a / 2 * (1 + 1 / q) - pp * (1 - e2) * z * z / (q * (1 + q)) - pp * r * r / 2).squareRoot()
        let u = r - e2 * r0
        let v = (u * u + (1 - e2) * z * z).squareRoot()
        let z0 = b * b * z / (a * v)
        let lat = atan2(z + ep2 * z0, r)
        let lon = atan2(p.y, p.x)
        return (lat * 180 / .pi, lon * 180 / .pi)
    }
}

/// A plain 3-vector (ECEF metres or unit directions).
package struct Vector3: Sendable, Equatable {
    /// Components.
    package var x: Double, y: Double, z: Double
    /// Creates a vector.
    package init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    /// Dot product.
    package func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    /// Sum.
    package static func + (l: Vector3, r: Vector3) -> Vector3 { Vector3(l.x + r.x, l.y + r.y, l.z + r.z) }
    /// Difference.
    package static func - (l: Vector3, r: Vector3) -> Vector3 { Vector3(l.x - r.x, l.y - r.y, l.z - r.z) }
    /// Scaling.
    package static func * (s: Double, v: Vector3) -> Vector3 { Vector3(s * v.x, s * v.y, s * v.z) }
}
