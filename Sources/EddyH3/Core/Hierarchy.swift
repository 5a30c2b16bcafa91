// Derived from uber/h3 v4.5.0 src/h3lib/lib/h3Index.c and iterators.c (algorithm), Apache-2.0.

/// Parent at a coarser resolution (caller checks parentRes ≤ res).
@inline(__always)
func cellToParentRaw(_ h: UInt64, _ parentRes: Int) -> UInt64 {
    let childRes = h3GetResolution(h)
    if parentRes == childRes { return h }
    var p = h
    h3SetResolution(&p, parentRes)
    var i = parentRes + 1
    while i <= childRes {
        h3SetDigit(&p, i, 7)
        i += 1
    }
    return p
}

/// Clears digits start...end to 0 (reference `_zeroIndexDigits`).
@inline(__always)
func zeroIndexDigits(_ h: UInt64, _ start: Int, _ end: Int) -> UInt64 {
    if start > end { return h }
    var m: UInt64 = 0
    m = ~m
    m <<= UInt64(3 * (end - start + 1))
    m = ~m
    m <<= UInt64(3 * (kMaxRes - end))
    m = ~m
    return h & m
}

/// Centre child at a finer resolution (caller checks childRes ≥ res).
@inline(__always)
func cellToCenterChildRaw(_ h: UInt64, _ childRes: Int) -> UInt64 {
    var c = zeroIndexDigits(h, h3GetResolution(h) + 1, childRes)
    h3SetResolution(&c, childRes)
    return c
}

/// Number of children at childRes: 7^n, or 1 + 5(7^n − 1)/6 for pentagons.
func childrenCountRaw(_ h: UInt64, _ childRes: Int) -> Int {
    let n = childRes - h3GetResolution(h)
    var p = 1
    for _ in 0..<n { p *= 7 }
    return isPentagonRaw(h) ? 1 + 5 * (p - 1) / 6 : p
}

/// Children at childRes in increasing digit order (the reference iterator's order), skipping the
/// deleted k sub-sequence under pentagons.
func cellToChildrenRaw(_ h: UInt64, _ childRes: Int, into out: inout [UInt64]) {
    let parentRes = h3GetResolution(h)
    let pentagon = isPentagonRaw(h)
    var base = h
    h3SetResolution(&base, childRes)
    func recurse(_ cell: UInt64, _ r: Int, _ allZeroSoFar: Bool) {
        if r > childRes {
            out.append(cell)
            return
        }
        for d in 0..<7 {
            if pentagon && allZeroSoFar && d == 1 { continue }
            var c = cell
            h3SetDigit(&c, r, d)
            recurse(c, r + 1, allZeroSoFar && d == 0)
        }
    }
    recurse(base, parentRes + 1, true)
}
