// Derived from uber/h3 v4.5.0 src/h3lib/lib/localij.c (algorithm), Apache-2.0.

/// Why a local IJK unfolding failed.
enum LocalIJKFailure: Error {
    /// Resolutions differ.
    case resolutionMismatch
    /// A K-axis digit where none may be.
    case invalidCell
    /// Base cells not neighbours: too far apart (the reference's `E_FAILED`).
    case failed
    /// The unfolding would cross a pentagon's deleted sub-sequence (the reference's `E_FAILED` from
    /// `FAILED_DIRECTIONS`).
    case pentagon
}

/// Local ijk+ coordinates of `h3` anchored at `origin` (reference `cellToLocalIjk`).
func cellToLocalIjk(_ origin: UInt64, _ h3In: UInt64) -> Result<CoordIJK, LocalIJKFailure> {
    var h3 = h3In
    let res = h3GetResolution(origin)
    if res != h3GetResolution(h3) { return .failure(.resolutionMismatch) }
    let originBaseCell = h3GetBaseCell(origin)
    let baseCell = h3GetBaseCell(h3)
    if originBaseCell >= kNumBaseCells || baseCell >= kNumBaseCells { return .failure(.invalidCell) }

    var dir = 0
    var revDir = 0
    if originBaseCell != baseCell {
        dir = baseCellDirection(originBaseCell, baseCell)
        if dir == 7 { return .failure(.failed) }
        revDir = baseCellDirection(baseCell, originBaseCell)
    }
    let originOnPent = isBaseCellPentagon(originBaseCell)
    let indexOnPent = isBaseCellPentagon(baseCell)

    var indexFijk = FaceIJK(face: 0, coord: CoordIJK(0, 0, 0))
    if dir != 0 {
        let baseCellRotations = baseCellNeighborRotations(originBaseCell, dir)
        if indexOnPent {
            for _ in 0..<baseCellRotations {
                h3 = h3RotatePent60cw(h3)
                revDir = rotateDigit60cw(revDir)
                if revDir == 1 { revDir = rotateDigit60cw(revDir) }
            }
        } else {
            for _ in 0..<baseCellRotations {
                h3 = h3Rotate60cw(h3)
                revDir = rotateDigit60cw(revDir)
            }
        }
    }
    _ = h3ToFaceIjkWithInitializedFijk(h3, &indexFijk)

    if dir != 0 {
        var pentagonRotations = 0
        var directionRotations = 0
        if originOnPent {
            let originLeadingDigit = leadingNonZeroDigit(origin)
            if originLeadingDigit == 7 { return .failure(.invalidCell) }
            if failedDirectionsTable[originLeadingDigit * 7 + dir] != 0 { return .failure(.pentagon) }
            directionRotations = pentagonRotationsTable[originLeadingDigit * 7 + dir]
            pentagonRotations = directionRotations
        } else if indexOnPent {
            let indexLeadingDigit = leadingNonZeroDigit(h3)
            if indexLeadingDigit == 7 { return .failure(.invalidCell) }
            if failedDirectionsTable[indexLeadingDigit * 7 + revDir] != 0 { return .failure(.pentagon) }
            pentagonRotations = pentagonRotationsTable[revDir * 7 + indexLeadingDigit]
        }
        if pentagonRotations < 0 || directionRotations < 0 { return .failure(.invalidCell) }
        for _ in 0..<pentagonRotations { indexFijk.coord.rotate60cw() }

        var offset = CoordIJK(0, 0, 0)
        offset.neighbor(dir)
        var r = res - 1
        while r >= 0 {
            if isClassIII(r + 1) {
                offset.downAp7()
            } else {
                offset.downAp7r()
            }
            r -= 1
        }
        for _ in 0..<directionRotations { offset.rotate60cw() }
        indexFijk.coord = (indexFijk.coord + offset).normalized
    } else if originOnPent && indexOnPent {
        let originLeadingDigit = leadingNonZeroDigit(origin)
        let indexLeadingDigit = leadingNonZeroDigit(h3)
        if originLeadingDigit == 7 || indexLeadingDigit == 7 { return .failure(.invalidCell) }
        if failedDirectionsTable[originLeadingDigit * 7 + indexLeadingDigit] != 0 {
            return .failure(.pentagon)
        }
        let rotations = pentagonRotationsTable[originLeadingDigit * 7 + indexLeadingDigit]
        for _ in 0..<rotations { indexFijk.coord.rotate60cw() }
    }
    return .success(indexFijk.coord)
}

/// Grid distance between two cells (reference `gridDistance`).
func gridDistanceRaw(_ origin: UInt64, _ index: UInt64) -> Result<Int, LocalIJKFailure> {
    let a: CoordIJK
    switch cellToLocalIjk(origin, origin) {
    case .success(let c): a = c
    case .failure(let e): return .failure(e)
    }
    switch cellToLocalIjk(origin, index) {
    case .success(let b): return .success(CoordIJK.distance(a, b))
    case .failure(let e): return .failure(e)
    }
}
