package import EddyVocabulary
import Foundation

/// A local east/north plane tangent to the WGS-84 ellipsoid at an origin (docs/position.md §2).
///
/// A geodetic position maps to the east and north components of its ECEF offset from the origin (its up component is
/// dropped); a plane point maps back through ECEF to the foot of the ellipsoid normal. Within a few kilometres of the
/// origin the two maps are inverse to within centimetres; filters move the origin (`recentred`) long before that
/// stops holding. Works at the poles and across the antimeridian (no latitude/longitude arithmetic).
package struct LocalTangentPlane: Sendable, Equatable {
    /// Origin latitude, degrees.
    package let originLatitudeDegrees: Double
    /// Origin longitude, degrees.
    package let originLongitudeDegrees: Double
    private let origin: Vector3
    private let east: Vector3
    private let north: Vector3

    /// Creates the plane tangent at a geodetic origin (height 0).
    package init(latitudeDegrees: Double, longitudeDegrees: Double) {
        originLatitudeDegrees = latitudeDegrees
        originLongitudeDegrees = longitudeDegrees
        origin = WGS84.ecef(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
        (east, north) = WGS84.eastNorth(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
    }

    /// East and north components in this plane of a vector given in ECEF (e.g. a velocity measured elsewhere).
    package func components(of v: Vector3) -> (east: Double, north: Double) {
        (v.dot(east), v.dot(north))
    }

    /// East and north metres of a geodetic position (height 0) in this plane.
    package func project(latitudeDegrees: Double, longitudeDegrees: Double) -> (eastMeters: Double, northMeters: Double) {
        project(ecef: WGS84.ecef(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees))
    }

    /// East and north metres of an ECEF point in this plane.
    package func project(ecef point: Vector3) -> (eastMeters: Double, northMeters: Double) {
        let d = point - origin
        return (d.dot(east), d.dot(north))
    }

    /// ECEF coordinates of a plane point (metres).
    package func ecef(eastMeters: Double, northMeters: Double) -> Vector3 {
        origin + eastMeters * east + northMeters * north
    }

    /// The geodetic position (latitude, longitude in −180…180, degrees) under a plane point.
    package func geodetic(eastMeters: Double, northMeters: Double) -> (latitudeDegrees: Double, longitudeDegrees: Double) {
        WGS84.geodetic(ecef(eastMeters: eastMeters, northMeters: northMeters))
    }

    /// Rotation (cosine, sine) taking horizontal vector components in this plane to those in `other`:
    /// `(e', n') = (c·e + s·n, −s·e + c·n)`. The two east axes differ by the meridian convergence, which is large near
    /// the poles, so velocities and error states must be turned when a filter moves its origin.
    package func horizontalRotation(to other: LocalTangentPlane) -> (cos: Double, sin: Double) {
        let c = east.dot(other.east) + north.dot(other.north)
        let s = north.dot(other.east) - east.dot(other.north)
        let norm = (c * c + s * s).squareRoot()
        guard norm > 1e-12, norm.isFinite else { return (1, 0) }
        return (c / norm, s / norm)
    }
}
