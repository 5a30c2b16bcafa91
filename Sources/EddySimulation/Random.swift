import EddySupport
import Foundation

/// xoshiro256** (Blackman & Vigna 2018): the simulator's deterministic random source.
///
/// Seeded through SplitMix64 as its authors recommend; Gaussian draws use Box–Muller.
package struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64
    private var spareGaussian: Double?

    /// Creates a generator whose whole output is fixed by `seed`.
    package init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next(); s1 = mixer.next(); s2 = mixer.next(); s3 = mixer.next()
        spareGaussian = nil
    }

    @inline(__always) private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// Next 64-bit output.
    package mutating func next() -> UInt64 {
        let result = Self.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = Self.rotl(s3, 45)
        return result
    }

    /// Uniform double in [0, 1) with 53 random bits.
    package mutating func nextUniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Standard normal draw (Box–Muller; the second value of each pair is kept for the next call).
    package mutating func nextGaussian() -> Double {
        if let spare = spareGaussian { spareGaussian = nil; return spare }
        var u1 = nextUniform()
        while u1 <= 0 { u1 = nextUniform() }
        let u2 = nextUniform()
        let radius = (-2 * log(u1)).squareRoot()
        let angle = 2 * Double.pi * u2
        spareGaussian = radius * sin(angle)
        return radius * cos(angle)
    }
}
