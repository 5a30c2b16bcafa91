// Derived from uber/h3 v4.5.0 src/h3lib/include/vec3d.h and src/h3lib/lib/vec2d.c (algorithm), Apache-2.0.
// Operation order follows the reference exactly so results are bit-identical; never fused.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A point or direction in 3-D Cartesian space (unit sphere for geographic points).
struct Vec3: Sendable, Equatable {
    /// Towards 0° lat, 0° lng.
    var x: Double
    /// Towards 0° lat, 90° lng.
    var y: Double
    /// Towards the north pole.
    var z: Double

    /// Unit vector for a latitude/longitude in radians.
    @inline(__always)
    init(latRads: Double, lngRads: Double) {
        let lat = sinCos(latRads)
        let lng = sinCos(lngRads)
        let r = lat.cos
        x = lng.cos * r
        y = lng.sin * r
        z = lat.sin
    }

    /// Plain component initialiser.
    @inline(__always)
    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Latitude (asin z) and longitude (atan2 y, x) in radians.
    @inline(__always)
    var latLngRads: (lat: Double, lng: Double) {
        (asin(z), atan2(y, x))
    }

    /// `a·v1 + b·v2` per component, as the reference's `vec3LinComb`.
    @inline(__always)
    static func linComb(_ a: Double, _ v1: Vec3, _ b: Double, _ v2: Vec3) -> Vec3 {
        let px = a * v1.x
        let py = a * v1.y
        let pz = a * v1.z
        let qx = b * v2.x
        let qy = b * v2.y
        let qz = b * v2.z
        return Vec3(x: px + qx, y: py + qy, z: pz + qz)
    }

    /// Cross product.
    @inline(__always)
    static func cross(_ v1: Vec3, _ v2: Vec3) -> Vec3 {
        Vec3(x: v1.y * v2.z - v1.z * v2.y,
             y: v1.z * v2.x - v1.x * v2.z,
             z: v1.x * v2.y - v1.y * v2.x)
    }

    /// Dot product, summed left to right.
    @inline(__always)
    static func dot(_ v1: Vec3, _ v2: Vec3) -> Double {
        let a = v1.x * v2.x
        let b = v1.y * v2.y
        let c = v1.z * v2.z
        return a + b + c
    }

    /// Normalises in place; a zero-norm vector becomes exactly zero.
    @inline(__always)
    mutating func normalize() {
        let norm = Vec3.dot(self, self).squareRoot()
        var s = 0.0
        if norm > 0.0 { s = 1.0 / norm }
        x *= s
        y *= s
        z *= s
    }

    /// Squared Euclidean distance, computed as the reference does (difference, then dot).
    @inline(__always)
    static func distSq(_ v1: Vec3, _ v2: Vec3) -> Double {
        let d = linComb(1.0, v1, -1.0, v2)
        return dot(d, d)
    }
}

/// A 2-D point in a face's hex2d plane.
struct Vec2: Sendable, Equatable {
    /// x component.
    var x: Double
    /// y component.
    var y: Double

    /// Magnitude, `sqrt(x*x + y*y)`.
    @inline(__always)
    var magnitude: Double {
        let a = x * x
        let b = y * y
        return (a + b).squareRoot()
    }

    /// Intersection of the line p0–p1 with the line p2–p3 (reference `_v2dIntersect`).
    static func intersect(_ p0: Vec2, _ p1: Vec2, _ p2: Vec2, _ p3: Vec2) -> Vec2 {
        let s1 = Vec2(x: p1.x - p0.x, y: p1.y - p0.y)
        let s2 = Vec2(x: p3.x - p2.x, y: p3.y - p2.y)
        let num1 = s2.x * (p0.y - p2.y)
        let num2 = s2.y * (p0.x - p2.x)
        let den1 = -s2.x * s1.y
        let den2 = s1.x * s2.y
        let t = (num1 - num2) / (den1 + den2)
        return Vec2(x: p0.x + (t * s1.x), y: p0.y + (t * s1.y))
    }

    /// Whether both components differ by less than `FLT_EPSILON`.
    static func almostEqual(_ a: Vec2, _ b: Vec2) -> Bool {
        abs(a.x - b.x) < kFltEpsilon && abs(a.y - b.y) < kFltEpsilon
    }
}

/// Wraps an angle into [0, 2π) with one add or subtract, as the reference's `_posAngleRads`.
@inline(__always)
func posAngleRads(_ rads: Double) -> Double {
    var tmp = rads < 0.0 ? rads + k2Pi : rads
    if rads >= k2Pi { tmp -= k2Pi }
    return tmp
}

#if canImport(Glibc)
/// glibc `sincos`: the same sine and cosine bits as separate `sin`/`cos` calls (glibc computes both with the
/// same kernels; verified bit-equal on 20 M arguments), in one call.
@_silgen_name("sincos")
private func glibcSinCos(_ x: Double, _ sinOut: UnsafeMutablePointer<Double>, _ cosOut: UnsafeMutablePointer<Double>)

/// (sin x, cos x).
@inline(__always)
func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
    var s = 0.0
    var c = 0.0
    glibcSinCos(x, &s, &c)
    return (s, c)
}
#else
/// (sin x, cos x).
@inline(__always)
func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
    (sin(x), cos(x))
}
#endif
