// Derived from uber/h3 v4.5.0 src/h3lib/lib/area.c, include/adder.h (algorithm) and latLng.c (average tables),
// Apache-2.0.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Kahan compensated sum (reference `Adder` / `kadd`).
struct KahanAdder {
    /// Running total.
    var sum = 0.0
    /// Compensation term.
    var c = 0.0

    /// Adds a term.
    @inline(__always)
    mutating func add(_ x: Double) {
        let y = x - c
        let t = sum + y
        c = (t - sum) - y
        sum = t
    }
}

/// Cagnoli contribution of the arc from x to y (radians), as d3-geo and the reference.
@inline(__always)
func cagnoli(_ xLat: Double, _ xLng: Double, _ yLat: Double, _ yLng: Double) -> Double {
    let xl = xLat / 2.0 + kPi / 4.0
    let yl = yLat / 2.0 + kPi / 4.0
    let sa = sin(xl) * sin(yl)
    let ca = cos(xl) * cos(yl)
    let d = yLng - xLng
    let sd = sin(d)
    let cd = cos(d)
    return -2.0 * atan2(sa * sd, sa * cd + ca)
}

/// Area of a cell in steradians (reference `cellAreaRads2`).
func cellAreaRads2Raw(_ h: UInt64) -> Double {
    let b = cellToBoundaryRaw(h, referenceRounding: true)
    var adder = KahanAdder()
    for i in 0..<b.count {
        let j = (i + 1) % b.count
        let (xLat, xLng) = b.vertex(i)
        let (yLat, yLng) = b.vertex(j)
        adder.add(cagnoli(xLat, xLng, yLat, yLng))
    }
    if adder.sum < 0.0 {
        adder.add(4.0 * kPi)
    }
    return adder.sum
}

/// Average hexagon area per resolution, km² (reference `getHexagonAreaAvgKm2`).
let averageHexagonAreaKm2Table: [Double] = [
    4.357449416078383e+06, 6.097884417941332e+05, 8.680178039899720e+04,
    1.239343465508816e+04, 1.770347654491307e+03, 2.529038581819449e+02,
    3.612906216441245e+01, 5.161293359717191e+00, 7.373275975944177e-01,
    1.053325134272067e-01, 1.504750190766435e-02, 2.149643129451879e-03,
    3.070918756316060e-04, 4.387026794728296e-05, 6.267181135324313e-06,
    8.953115907605790e-07,
]

/// Average hexagon edge length per resolution, km (reference `getHexagonEdgeLengthAvgKm`).
let averageHexagonEdgeLengthKmTable: [Double] = [
    1281.256011, 483.0568391, 182.5129565, 68.97922179,
    26.07175968, 9.854090990, 3.724532667, 1.406475763,
    0.531414010, 0.200786148, 0.075863783, 0.028663897,
    0.010830188, 0.004092010, 0.001546100, 0.000584169,
]
