// Derived from uber/h3 v4.5.0 src/h3lib/include/coordijk.h (algorithm; UNIT_VECS table), Apache-2.0.

/// IJK hexagon coordinates on a face (axes 120° apart).
struct CoordIJK: Sendable, Equatable {
    /// i component.
    var i: Int
    /// j component.
    var j: Int
    /// k component.
    var k: Int

    /// Component initialiser.
    @inline(__always)
    init(_ i: Int, _ j: Int, _ k: Int) {
        self.i = i
        self.j = j
        self.k = k
    }

    /// The unit vector of an H3 digit (0–6).
    @inline(__always)
    static func unitVector(_ digit: Int) -> CoordIJK {
        CoordIJK((digit >> 2) & 1, (digit >> 1) & 1, digit & 1)
    }

    /// Component-wise sum.
    @inline(__always)
    static func + (a: CoordIJK, b: CoordIJK) -> CoordIJK {
        CoordIJK(a.i &+ b.i, a.j &+ b.j, a.k &+ b.k)
    }

    /// Component-wise difference.
    @inline(__always)
    static func - (a: CoordIJK, b: CoordIJK) -> CoordIJK {
        CoordIJK(a.i &- b.i, a.j &- b.j, a.k &- b.k)
    }

    /// Uniform scale.
    @inline(__always)
    static func * (a: CoordIJK, f: Int) -> CoordIJK {
        CoordIJK(a.i &* f, a.j &* f, a.k &* f)
    }

    /// Removes negative components and the common minimum (reference `_ijkNormalize`). The reference's steps each
    /// add the same amount to all three components and end with the smallest at 0, so the result is the vector less
    /// its smallest component: computed that way, without the reference's unpredictable branches.
    @inline(__always)
    mutating func normalize() {
        let smallest = Swift.min(i, Swift.min(j, k))
        i &-= smallest
        j &-= smallest
        k &-= smallest
    }

    /// Normalised copy.
    @inline(__always)
    var normalized: CoordIJK {
        var c = self
        c.normalize()
        return c
    }

    /// Centre of this hex in hex2d coordinates (reference `_ijkToHex2d`).
    @inline(__always)
    var hex2d: Vec2 {
        let ii = i - k
        let jj = j - k
        let x = Double(ii) - 0.5 * Double(jj)
        let y = Double(jj) * kSqrt3_2
        return Vec2(x: x, y: y)
    }

    /// The containing hex of a hex2d point (reference `_hex2dToCoordIJK`, from DGGRID).
    @inline(__always)
    init(hex2d v: Vec2) {
        var hi: Int
        var hj: Int
        let a1 = abs(v.x)
        let a2 = abs(v.y)
        let x2 = a2 * kRSin60
        let x1 = a1 + x2 / 2.0
        let m1 = Int(x1)
        let m2 = Int(x2)
        let r1 = x1 - Double(m1)
        let r2 = x2 - Double(m2)

        if r1 < 0.5 {
            if r1 < 1.0 / 3.0 {
                if r2 < (1.0 + r1) / 2.0 {
                    hi = m1
                    hj = m2
                } else {
                    hi = m1
                    hj = m2 + 1
                }
            } else {
                if r2 < (1.0 - r1) {
                    hj = m2
                } else {
                    hj = m2 + 1
                }
                if (1.0 - r1) <= r2 && r2 < (2.0 * r1) {
                    hi = m1 + 1
                } else {
                    hi = m1
                }
            }
        } else {
            if r1 < 2.0 / 3.0 {
                if r2 < (1.0 - r1) {
                    hj = m2
                } else {
                    hj = m2 + 1
                }
                if (2.0 * r1 - 1.0) < r2 && r2 < (1.0 - r1) {
                    hi = m1
                } else {
                    hi = m1 + 1
                }
            } else {
                if r2 < (r1 / 2.0) {
                    hi = m1 + 1
                    hj = m2
                } else {
                    hi = m1 + 1
                    hj = m2 + 1
                }
            }
        }

        // fold across the axes if necessary
        if v.x < 0.0 {
            if hj % 2 == 0 {
                let axisi = hj / 2
                let diff = hi - axisi
                hi = Int(Double(hi) - 2.0 * Double(diff))
            } else {
                let axisi = (hj + 1) / 2
                let diff = hi - axisi
                hi = Int(Double(hi) - (2.0 * Double(diff) + 1))
            }
        }
        if v.y < 0.0 {
            hi = hi - (2 * hj + 1) / 2
            hj = -1 * hj
        }
        self.init(hi, hj, 0)
        normalize()
    }

    /// The digit (0–6) of a unit or zero vector, 7 if it is neither.
    @inline(__always)
    var unitDigit: Int {
        let c = normalized
        if c.i <= 1 && c.j <= 1 && c.k <= 1 && c.i >= 0 && c.j >= 0 && c.k >= 0 {
            return (c.i << 2) | (c.j << 1) | c.k
        }
        return 7
    }

    /// Parent in a counter-clockwise aperture 7 grid (reference `_upAp7`).
    @inline(__always)
    mutating func upAp7() {
        let ii = i - k
        let jj = j - k
        i = roundDiv7(3 &* ii &- jj)
        j = roundDiv7(ii &+ 2 &* jj)
        k = 0
        normalize()
    }

    /// Parent in a clockwise aperture 7 grid (reference `_upAp7r`).
    @inline(__always)
    mutating func upAp7r() {
        let ii = i - k
        let jj = j - k
        i = roundDiv7(2 &* ii &+ jj)
        j = roundDiv7(3 &* jj &- ii)
        k = 0
        normalize()
    }

    /// Centre child in a counter-clockwise aperture 7 grid (reference `_downAp7`).
    @inline(__always)
    mutating func downAp7() {
        // i → (3,0,1), j → (1,3,0), k → (0,1,3)
        let ni = 3 &* i &+ j
        let nj = 3 &* j &+ k
        let nk = i &+ 3 &* k
        i = ni
        j = nj
        k = nk
        normalize()
    }

    /// Centre child in a clockwise aperture 7 grid (reference `_downAp7r`).
    @inline(__always)
    mutating func downAp7r() {
        // i → (3,1,0), j → (0,3,1), k → (1,0,3)
        let ni = 3 &* i &+ k
        let nj = i &+ 3 &* j
        let nk = j &+ 3 &* k
        i = ni
        j = nj
        k = nk
        normalize()
    }

    /// Centre child in a counter-clockwise aperture 3 grid (reference `_downAp3`).
    @inline(__always)
    mutating func downAp3() {
        // i → (2,0,1), j → (1,2,0), k → (0,1,2)
        let ni = 2 &* i &+ j
        let nj = 2 &* j &+ k
        let nk = i &+ 2 &* k
        i = ni
        j = nj
        k = nk
        normalize()
    }

    /// Centre child in a clockwise aperture 3 grid (reference `_downAp3r`).
    @inline(__always)
    mutating func downAp3r() {
        // i → (2,1,0), j → (0,2,1), k → (1,0,2)
        let ni = 2 &* i &+ k
        let nj = i &+ 2 &* j
        let nk = j &+ 2 &* k
        i = ni
        j = nj
        k = nk
        normalize()
    }

    /// Moves one hex in a digit direction (reference `_neighbor`).
    @inline(__always)
    mutating func neighbor(_ digit: Int) {
        if digit > 0 && digit < 7 {
            self = self + CoordIJK.unitVector(digit)
            normalize()
        }
    }

    /// Rotates 60° counter-clockwise (reference `_ijkRotate60ccw`).
    @inline(__always)
    mutating func rotate60ccw() {
        // i → (1,1,0), j → (0,1,1), k → (1,0,1)
        let ni = i &+ k
        let nj = i &+ j
        let nk = j &+ k
        i = ni
        j = nj
        k = nk
        normalize()
    }

    /// Rotates 60° clockwise (reference `_ijkRotate60cw`).
    @inline(__always)
    mutating func rotate60cw() {
        // i → (1,0,1), j → (1,1,0), k → (0,1,1)
        let ni = i &+ j
        let nj = j &+ k
        let nk = i &+ k
        i = ni
        j = nj
        k = nk
        normalize()
    }

    /// Grid distance between two coordinates (reference `ijkDistance`).
    static func distance(_ a: CoordIJK, _ b: CoordIJK) -> Int {
        let d = (a - b).normalized
        return Swift.max(Swift.abs(d.i), Swift.max(Swift.abs(d.j), Swift.abs(d.k)))
    }
}

/// Rotates a digit 60° counter-clockwise (reference `_rotate60ccw`).
@inline(__always)
func rotateDigit60ccw(_ d: Int) -> Int {
    // 0→0, 1→5, 2→3, 3→1, 4→6, 5→4, 6→2, 7→7 packed as 4-bit fields
    (0x7246_1350 >> (d &* 4)) & 0xF
}

/// Rotates a digit 60° clockwise (reference `_rotate60cw`).
@inline(__always)
func rotateDigit60cw(_ d: Int) -> Int {
    // 0→0, 1→3, 2→6, 3→2, 4→5, 5→1, 6→4, 7→7 packed as 4-bit fields
    (0x7415_2630 >> (d &* 4)) & 0xF
}

/// The reference's `lround(n * M_ONESEVENTH)` in exact integer arithmetic. n/7 has fraction m/7, at least
/// 1/14 away from a tie, and the double product's error is below 2^-20 for |n| < 2^31, so rounding the exact
/// quotient half away from zero gives the same integer: (|n| + 3) / 7 with n's sign.
@inline(__always)
func roundDiv7(_ n: Int) -> Int {
    n >= 0 ? (n &+ 3) / 7 : -((3 &- n) / 7)
}
