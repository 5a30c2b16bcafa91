// Derived from uber/h3 v4.5.0 src/h3lib/lib/h3Index.c and baseCells.c (algorithm), Apache-2.0.

/// Base cell at a res-0 FaceIJK (coordinates 0...2).
@inline(__always)
func faceIjkToBaseCell(_ h: FaceIJK) -> (baseCell: Int, ccwRot60: Int) {
    faceIjkBaseCellsTable.withUnsafeBufferPointer { p in
        let idx = (((h.face * 3 + h.coord.i) * 3 + h.coord.j) * 3 + h.coord.k) * 2
        return (p[idx], p[idx + 1])
    }
}

/// Home FaceIJK of a base cell.
@inline(__always)
func baseCellHome(_ bc: Int) -> FaceIJK {
    baseCellDataTable.withUnsafeBufferPointer { p in
        FaceIJK(face: p[bc * 7], coord: CoordIJK(p[bc * 7 + 1], p[bc * 7 + 2], p[bc * 7 + 3]))
    }
}

/// Whether `face` is one of a pentagon base cell's clockwise-offset faces.
@inline(__always)
func baseCellIsCwOffset(_ bc: Int, _ face: Int) -> Bool {
    baseCellDataTable.withUnsafeBufferPointer { p in
        p[bc * 7 + 5] == face || p[bc * 7 + 6] == face
    }
}

/// Neighbouring base cell in a direction (127 for none).
@inline(__always)
func baseCellNeighbor(_ bc: Int, _ dir: Int) -> Int {
    baseCellNeighborsTable.withUnsafeBufferPointer { $0[bc * 7 + dir] }
}

/// Rotations into a neighbouring base cell's system.
@inline(__always)
func baseCellNeighborRotations(_ bc: Int, _ dir: Int) -> Int {
    baseCellNeighbor60CCWRotsTable.withUnsafeBufferPointer { $0[bc * 7 + dir] }
}

/// Direction from one base cell to a neighbouring one, 7 if not neighbours.
@inline(__always)
func baseCellDirection(_ origin: Int, _ neighbor: Int) -> Int {
    for dir in 0..<7 where baseCellNeighbor(origin, dir) == neighbor { return dir }
    return 7
}

/// H3 index of a FaceIJK at a resolution, 0 if out of range (reference `_faceIjkToH3`).
@inline(__always)
func faceIjkToH3(_ fijk: FaceIJK, res: Int) -> UInt64 {
    var h = kH3Init
    h3SetMode(&h, 1)
    h3SetResolution(&h, res)
    if res == 0 {
        if fijk.coord.i > kMaxFaceCoord || fijk.coord.j > kMaxFaceCoord || fijk.coord.k > kMaxFaceCoord {
            return 0
        }
        h3SetBaseCell(&h, faceIjkToBaseCell(fijk).baseCell)
        return h
    }
    var fijkBC = fijk
    var r = res - 1
    while r >= 0 {
        let lastIJK = fijkBC.coord
        var lastCenter: CoordIJK
        if isClassIII(r + 1) {
            fijkBC.coord.upAp7()
            lastCenter = fijkBC.coord
            lastCenter.downAp7()
        } else {
            fijkBC.coord.upAp7r()
            lastCenter = fijkBC.coord
            lastCenter.downAp7r()
        }
        let diff = (lastIJK - lastCenter).normalized
        h3SetDigit(&h, r + 1, diff.unitDigit)
        r -= 1
    }
    if fijkBC.coord.i > kMaxFaceCoord || fijkBC.coord.j > kMaxFaceCoord || fijkBC.coord.k > kMaxFaceCoord {
        return 0
    }
    let (baseCell, numRots) = faceIjkToBaseCell(fijkBC)
    h3SetBaseCell(&h, baseCell)
    if isBaseCellPentagon(baseCell) {
        if leadingNonZeroDigit(h) == 1 {
            if baseCellIsCwOffset(baseCell, fijkBC.face) {
                h = h3Rotate60cw(h)
            } else {
                h = h3Rotate60ccw(h)
            }
        }
        for _ in 0..<numRots { h = h3RotatePent60ccw(h) }
    } else {
        for _ in 0..<numRots { h = h3Rotate60ccw(h) }
    }
    return h
}

/// Walks the digits from the base cell's FaceIJK; returns whether an overage is possible
/// (reference `_h3ToFaceIjkWithInitializedFijk`).
@inline(__always)
func h3ToFaceIjkWithInitializedFijk(_ h: UInt64, _ fijk: inout FaceIJK) -> Bool {
    let res = h3GetResolution(h)
    var possibleOverage = true
    if !isBaseCellPentagon(h3GetBaseCell(h))
        && (res == 0 || (fijk.coord.i == 0 && fijk.coord.j == 0 && fijk.coord.k == 0)) {
        possibleOverage = false
    }
    var r = 1
    while r <= res {
        if isClassIII(r) {
            fijk.coord.downAp7()
        } else {
            fijk.coord.downAp7r()
        }
        fijk.coord.neighbor(h3GetDigit(h, r))
        r += 1
    }
    return possibleOverage
}

/// FaceIJK of a cell (reference `_h3ToFaceIjk`); the base cell must be < 122.
@inline(__always)
func h3ToFaceIjk(_ h: UInt64) -> FaceIJK {
    var h = h
    let baseCell = h3GetBaseCell(h)
    let pentBase = isBaseCellPentagon(baseCell)
    if pentBase && leadingNonZeroDigit(h) == 5 {
        h = h3Rotate60cw(h)
    }
    var fijk = baseCellHome(baseCell)
    if !h3ToFaceIjkWithInitializedFijk(h, &fijk) {
        return fijk
    }
    let origIJK = fijk.coord
    let hRes = h3GetResolution(h)
    var res = hRes
    if isClassIII(res) {
        fijk.coord.downAp7r()
        res += 1
    }
    let pentLeading4 = pentBase && leadingNonZeroDigit(h) == 4
    if adjustOverageClassII(&fijk, res: res, pentLeading4: pentLeading4, substrate: false) != .none {
        if pentBase {
            while adjustOverageClassII(&fijk, res: res, pentLeading4: false, substrate: false) != .none {}
        }
        if res != hRes { fijk.coord.upAp7r() }
    } else if res != hRes {
        fijk.coord = origIJK
    }
    return fijk
}

/// Cell containing a unit vector (reference `vec3ToCell`), 0 on failure.
@inline(__always)
func vec3ToCellRaw(_ v: Vec3, res: Int) -> UInt64 {
    faceIjkToH3(vec3ToFaceIjk(v, res: res), res: res)
}

/// Centre unit vector of a valid cell.
@inline(__always)
func cellToVec3Raw(_ h: UInt64) -> Vec3 {
    faceIjkToVec3(h3ToFaceIjk(h), res: h3GetResolution(h))
}

/// Boundary of a valid cell, vertices passed to `sink` in order; `referenceRounding` as in `boundaryVertex`.
@inline(__always)
func cellToBoundary<S: BoundarySink>(_ h: UInt64, referenceRounding: Bool = false, into sink: inout S) {
    let fijk = h3ToFaceIjk(h)
    if isPentagonRaw(h) {
        faceIjkPentToCellBoundary(fijk, res: h3GetResolution(h), referenceRounding: referenceRounding, into: &sink)
    } else {
        faceIjkToCellBoundary(fijk, res: h3GetResolution(h), referenceRounding: referenceRounding, into: &sink)
    }
}

/// Boundary of a valid cell in radians; `referenceRounding` as in `boundaryVertex`.
func cellToBoundaryRaw(_ h: UInt64, referenceRounding: Bool = false) -> CellBoundaryRads {
    var b = CellBoundaryRads()
    cellToBoundary(h, referenceRounding: referenceRounding, into: &b)
    return b
}
