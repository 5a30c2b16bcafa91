import Foundation

/// A 3×3 rotation matrix (rows), mapping device-frame vectors into the aircraft frame.
public struct Rotation3: Sendable, Equatable {
    /// First row.
    public var r0: SIMD3<Double>
    /// Second row.
    public var r1: SIMD3<Double>
    /// Third row.
    public var r2: SIMD3<Double>

    /// Creates a matrix from its rows (the caller guarantees orthonormality).
    public init(r0: SIMD3<Double>, r1: SIMD3<Double>, r2: SIMD3<Double>) { self.r0 = r0; self.r1 = r1; self.r2 = r2 }

    /// The identity rotation.
    public static let identity = Rotation3(r0: [1, 0, 0], r1: [0, 1, 0], r2: [0, 0, 1])

    /// Rotation by `angle` radians about the unit `axis` (Rodrigues' formula).
    public init(axis: SIMD3<Double>, angleRadians angle: Double) {
        let length = (axis * axis).sum().squareRoot()
        let u = length > 0 ? axis / length : SIMD3<Double>(0, 0, 1)
        let c = cos(angle), s = sin(angle), t = 1 - c
        r0 = [t * u.x * u.x + c, t * u.x * u.y - s * u.z, t * u.x * u.z + s * u.y]
        r1 = [t * u.x * u.y + s * u.z, t * u.y * u.y + c, t * u.y * u.z - s * u.x]
        r2 = [t * u.x * u.z - s * u.y, t * u.y * u.z + s * u.x, t * u.z * u.z + c]
    }

    /// Rotation whose axis-angle vector is `v` (|v| radians about v/|v|).
    public init(rotationVector v: SIMD3<Double>) {
        self.init(axis: v, angleRadians: (v * v).sum().squareRoot())
    }

    /// The transpose (inverse) rotation.
    package var transposed: Rotation3 {
        Rotation3(r0: [r0.x, r1.x, r2.x], r1: [r0.y, r1.y, r2.y], r2: [r0.z, r1.z, r2.z])
    }

    /// Matrix × vector.
    @inline(__always) package func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((r0 * v).sum(), (r1 * v).sum(), (r2 * v).sum())
    }

    /// Matrix product self · other.
    package func multiplied(by other: Rotation3) -> Rotation3 {
        let t = other.transposed
        return Rotation3(
            r0: [(r0 * t.r0).sum(), (r0 * t.r1).sum(), (r0 * t.r2).sum()],
            r1: [(r1 * t.r0).sum(), (r1 * t.r1).sum(), (r1 * t.r2).sum()],
            r2: [(r2 * t.r0).sum(), (r2 * t.r1).sum(), (r2 * t.r2).sum()])
    }

    /// Axis-angle vector of this rotation (inverse of `init(rotationVector:)`, angle in [0, π]).
    package var rotationVector: SIMD3<Double> {
        let trace = r0.x + r1.y + r2.z
        let angle = acos(max(-1, min(1, (trace - 1) / 2)))
        let w = SIMD3<Double>(r2.y - r1.z, r0.z - r2.x, r1.x - r0.y)
        if angle < 1e-9 { return w / 2 }
        let sine = sin(angle)
        if sine > 1e-6 { return w * (angle / (2 * sine)) }
        // angle ≈ π: axis from the diagonal
        let xx = max(0, (r0.x + 1) / 2), yy = max(0, (r1.y + 1) / 2), zz = max(0, (r2.z + 1) / 2)
        var axis = SIMD3<Double>(xx.squareRoot(), yy.squareRoot(), zz.squareRoot())
        if axis.x > 0 { axis.y = copysign(axis.y, r0.y + r1.x); axis.z = copysign(axis.z, r0.z + r2.x) }
        else if axis.y > 0 { axis.z = copysign(axis.z, r1.z + r2.y) }
        return axis * angle
    }

    /// A uniformly distributed random rotation (Shoemake's unit-quaternion method).
    package static func random(using rng: inout Xoshiro256StarStar) -> Rotation3 {
        let u1 = rng.nextUniform(), u2 = rng.nextUniform(), u3 = rng.nextUniform()
        let a = (1 - u1).squareRoot(), b = u1.squareRoot()
        let q = (w: a * sin(2 * .pi * u2), x: a * cos(2 * .pi * u2), y: b * sin(2 * .pi * u3), z: b * cos(2 * .pi * u3))
        return Rotation3(
            r0: [1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y - q.z * q.w), 2 * (q.x * q.z + q.y * q.w)],
            r1: [2 * (q.x * q.y + q.z * q.w), 1 - 2 * (q.x * q.x + q.z * q.z), 2 * (q.y * q.z - q.x * q.w)],
            r2: [2 * (q.x * q.z - q.y * q.w), 2 * (q.y * q.z + q.x * q.w), 1 - 2 * (q.x * q.x + q.y * q.y)])
    }
}
