// Derived from uber/h3 v4.5.0 src/h3lib/lib/algos.c (algorithm), Apache-2.0.

/// gridDisk spiral directions: J, JK, K, IK, I, IJ.
let kDiskDirections: [Int] = [2, 3, 1, 5, 4, 6]
/// Direction taken to step out to the next ring.
let kNextRingDirection = 4

/// Outcome of a neighbour step.
enum NeighborResult {
    /// The neighbour index.
    case cell(UInt64)
    /// Moving off a pentagon in the deleted k direction.
    case pentagon
    /// Invalid input.
    case failed
}

/// The neighbour of `origin` in direction `dir`, updating `rotations` (reference `h3NeighborRotations`).
func h3NeighborRotations(_ origin: UInt64, _ dirIn: Int, _ rotations: inout Int) -> NeighborResult {
    var current = origin
    var dir = dirIn
    if dir < 0 || dir >= 7 { return .failed }
    rotations = rotations % 6
    for _ in 0..<rotations { dir = rotateDigit60ccw(dir) }

    var newRotations = 0
    let oldBaseCell = h3GetBaseCell(current)
    if oldBaseCell >= kNumBaseCells { return .failed }
    let oldLeadingDigit = leadingNonZeroDigit(current)

    var r = h3GetResolution(current) - 1
    while true {
        if r == -1 {
            h3SetBaseCell(&current, baseCellNeighbor(oldBaseCell, dir))
            newRotations = baseCellNeighborRotations(oldBaseCell, dir)
            if h3GetBaseCell(current) == kInvalidBaseCell {
                h3SetBaseCell(&current, baseCellNeighbor(oldBaseCell, 5))
                newRotations = baseCellNeighborRotations(oldBaseCell, 5)
                current = h3Rotate60ccw(current)
                rotations += 1
            }
            break
        } else {
            let oldDigit = h3GetDigit(current, r + 1)
            let nextDir: Int
            if oldDigit == 7 {
                return .failed
            } else if isClassIII(r + 1) {
                h3SetDigit(&current, r + 1, newDigitIITable[oldDigit * 7 + dir])
                nextDir = newAdjustmentIITable[oldDigit * 7 + dir]
            } else {
                h3SetDigit(&current, r + 1, newDigitIIITable[oldDigit * 7 + dir])
                nextDir = newAdjustmentIIITable[oldDigit * 7 + dir]
            }
            if nextDir != 0 {
                dir = nextDir
                r -= 1
            } else {
                break
            }
        }
    }

    let newBaseCell = h3GetBaseCell(current)
    if isBaseCellPentagon(newBaseCell) {
        var alreadyAdjustedKSubsequence = false
        if leadingNonZeroDigit(current) == 1 {
            if oldBaseCell != newBaseCell {
                if baseCellIsCwOffset(newBaseCell, baseCellHome(oldBaseCell).face) {
                    current = h3Rotate60cw(current)
                } else {
                    current = h3Rotate60ccw(current)
                }
                alreadyAdjustedKSubsequence = true
            } else {
                if oldLeadingDigit == 0 {
                    return .pentagon
                } else if oldLeadingDigit == 3 {
                    current = h3Rotate60ccw(current)
                    rotations += 1
                } else if oldLeadingDigit == 5 {
                    current = h3Rotate60cw(current)
                    rotations += 5
                } else {
                    return .failed
                }
            }
        }
        for _ in 0..<newRotations { current = h3RotatePent60ccw(current) }
        if oldBaseCell != newBaseCell {
            if newBaseCell == 4 || newBaseCell == 117 {
                if oldBaseCell != 118 && oldBaseCell != 8 && leadingNonZeroDigit(current) != 3 {
                    rotations += 1
                }
            } else if leadingNonZeroDigit(current) == 5 && !alreadyAdjustedKSubsequence {
                rotations += 1
            }
        }
    } else {
        for _ in 0..<newRotations { current = h3Rotate60ccw(current) }
    }
    rotations = (rotations + newRotations) % 6
    return .cell(current)
}

/// Fast spiral gridDisk; returns false if a pentagon or its distortion was met (reference
/// `gridDiskDistancesUnsafe`). `out` receives cells in spiral order, `distances` (if given) their ring.
func gridDiskUnsafe(_ originIn: UInt64, k: Int, out: inout [H3Index], distances: inout [Int]?) -> Bool {
    var origin = originIn
    out.append(H3Index(rawValue: origin))
    distances?.append(0)
    if isPentagonRaw(origin) { return false }
    var ring = 1
    var direction = 0
    var i = 0
    var rotations = 0
    while ring <= k {
        if direction == 0 && i == 0 {
            guard case .cell(let next) = h3NeighborRotations(origin, kNextRingDirection, &rotations) else {
                return false
            }
            origin = next
            if isPentagonRaw(origin) { return false }
        }
        guard case .cell(let next) = h3NeighborRotations(origin, kDiskDirections[direction], &rotations) else {
            return false
        }
        origin = next
        out.append(H3Index(rawValue: origin))
        distances?.append(ring)
        i += 1
        if i == ring {
            i = 0
            direction += 1
            if direction == 6 {
                direction = 0
                ring += 1
            }
        }
        if isPentagonRaw(origin) { return false }
    }
    return true
}

/// Safe recursive gridDisk into an open-addressing table of size `maxIdx` (reference
/// `_gridDiskDistancesInternal`). Returns false on failure.
func gridDiskDistancesInternal(_ origin: UInt64, k: Int, out: inout [UInt64], distances: inout [Int],
                               curK: Int) -> Bool {
    let maxIdx = UInt64(out.count)
    var off = Int(origin % maxIdx)
    while out[off] != 0 && out[off] != origin {
        off = Int((UInt64(off) + 1) % maxIdx)
    }
    if out[off] == origin && distances[off] <= curK { return true }
    out[off] = origin
    distances[off] = curK
    if curK >= k { return true }
    for i in 0..<6 {
        var rotations = 0
        switch h3NeighborRotations(origin, kDiskDirections[i], &rotations) {
        case .pentagon:
            continue
        case .failed:
            return false
        case .cell(let next):
            if !gridDiskDistancesInternal(next, k: k, out: &out, distances: &distances, curK: curK + 1) {
                return false
            }
        }
    }
    return true
}

/// gridDisk (with distances if `withDistances`): the spiral when possible, else the safe hash-set walk with
/// empty slots removed (table order). Nil on the reference's failure.
func gridDiskRaw(_ origin: UInt64, k: Int, withDistances: Bool) -> (cells: [H3Index], distances: [Int]?)? {
    let maxIdx = 3 * k * (k + 1) + 1
    var out: [H3Index] = []
    out.reserveCapacity(maxIdx)
    var distances: [Int]? = withDistances ? [] : nil
    distances?.reserveCapacity(maxIdx)
    if gridDiskUnsafe(origin, k: k, out: &out, distances: &distances) {
        return (out, distances)
    }
    var table = [UInt64](repeating: 0, count: maxIdx)
    var tableDistances = [Int](repeating: 0, count: maxIdx)
    guard gridDiskDistancesInternal(origin, k: k, out: &table, distances: &tableDistances, curK: 0) else {
        return nil
    }
    out.removeAll(keepingCapacity: true)
    distances?.removeAll(keepingCapacity: true)
    for idx in 0..<maxIdx where table[idx] != 0 {
        out.append(H3Index(rawValue: table[idx]))
        distances?.append(tableDistances[idx])
    }
    return (out, distances)
}

/// Hollow ring at exactly distance k via the fast walk; nil if a pentagon or distortion was met
/// (reference `gridRingUnsafe`).
func gridRingUnsafe(_ originIn: UInt64, k: Int) -> [UInt64]? {
    var origin = originIn
    if k == 0 { return [origin] }
    var out: [UInt64] = []
    out.reserveCapacity(6 * k)
    var rotations = 0
    if isPentagonRaw(origin) { return nil }
    for _ in 0..<k {
        guard case .cell(let next) = h3NeighborRotations(origin, kNextRingDirection, &rotations) else { return nil }
        origin = next
        if isPentagonRaw(origin) { return nil }
    }
    let lastIndex = origin
    out.append(origin)
    for direction in 0..<6 {
        for pos in 0..<k {
            guard case .cell(let next) = h3NeighborRotations(origin, kDiskDirections[direction], &rotations) else {
                return nil
            }
            origin = next
            if pos != k - 1 || direction != 5 {
                out.append(origin)
                if isPentagonRaw(origin) { return nil }
            }
        }
    }
    if lastIndex != origin { return nil }
    return out
}

/// Hollow ring at exactly distance k: the fast walk, else the safe disk filtered by distance
/// (reference `gridRing` / `_gridRingInternal`).
func gridRingRaw(_ origin: UInt64, k: Int) -> [UInt64]? {
    if let ring = gridRingUnsafe(origin, k: k) { return ring }
    if k == 0 { return [origin] }
    let maxIdx = 3 * k * (k + 1) + 1
    var table = [UInt64](repeating: 0, count: maxIdx)
    var distances = [Int](repeating: 0, count: maxIdx)
    guard gridDiskDistancesInternal(origin, k: k, out: &table, distances: &distances, curK: 0) else { return nil }
    var out: [UInt64] = []
    for i in 0..<maxIdx where table[i] != 0 && distances[i] == k { out.append(table[i]) }
    return out
}
