// Derived from uber/h3 v4.5.0 src/h3lib/lib/faceijk.c (algorithm), Apache-2.0.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Face number plus ijk coordinates on that face.
struct FaceIJK: Sendable, Equatable {
    /// Icosahedron face 0–19.
    var face: Int
    /// ijk coordinates on that face.
    var coord: CoordIJK
}

/// Result of an overage adjustment.
enum Overage: Sendable, Equatable {
    /// On the original face.
    case none
    /// On a face edge (substrate grids only).
    case faceEdge
    /// Moved onto a new face.
    case newFace
}

/// Quadrant index into `faceNeighborsTable`: ij.
let kQuadIJ = 1
/// Quadrant index into `faceNeighborsTable`: ki.
let kQuadKI = 2
/// Quadrant index into `faceNeighborsTable`: jk.
let kQuadJK = 3

/// maxDim per Class II resolution (faceijk.c `maxDimByCIIres`).
let maxDimByCIIres: [Int] = [2, -1, 14, -1, 98, -1, 686, -1, 4802, -1, 33614, -1, 235298, -1, 1647086, -1, 11529602]
/// Unit scale per Class II resolution (faceijk.c `unitScaleByCIIres`).
let unitScaleByCIIres: [Int] = [1, -1, 7, -1, 49, -1, 343, -1, 2401, -1, 16807, -1, 117649, -1, 823543, -1, 5764801]

/// Centre point of a face as a unit vector.
@inline(__always)
func faceCenter(_ f: Int) -> Vec3 {
    faceCenterPointTable.withUnsafeBufferPointer { p in
        Vec3(x: p[3 * f], y: p[3 * f + 1], z: p[3 * f + 2])
    }
}

/// Whether a resolution is Class III (odd).
@inline(__always)
func isClassIII(_ res: Int) -> Bool { res & 1 == 1 }

/// Local north and east directions at `p` on the unit sphere (reference `_vec3TangentBasis`).
@inline(__always)
func tangentBasis(_ p: Vec3) -> (north: Vec3, east: Vec3) {
    let northPole = Vec3(x: 0.0, y: 0.0, z: 1.0)
    var north = Vec3.linComb(1.0, northPole, -Vec3.dot(northPole, p), p)
    north.normalize()
    let east = Vec3.cross(north, p)
    return (north, east)
}

/// Azimuth from p1 to p2 in the tangent plane at p1 (reference `_vec3AzimuthRads`).
@inline(__always)
func azimuthRads(_ p1: Vec3, _ p2: Vec3) -> Double {
    let (northDir, eastDir) = tangentBasis(p1)
    var p2Proj = Vec3.linComb(1.0, p2, -Vec3.dot(p2, p1), p1)
    p2Proj.normalize()
    return atan2(Vec3.dot(p2Proj, eastDir), Vec3.dot(p2Proj, northDir))
}

/// Closest face and squared distance to its centre; strict `<`, lowest face wins ties.
@inline(__always)
func closestFace(_ v: Vec3) -> (face: Int, sqd: Double) {
    faceCenterPointTable.withUnsafeBufferPointer { p in
        var face = 0
        var sqd = 5.0
        for f in 0..<kNumFaces {
            let dx = 1.0 * p[3 * f] + -1.0 * v.x
            let dy = 1.0 * p[3 * f + 1] + -1.0 * v.y
            let dz = 1.0 * p[3 * f + 2] + -1.0 * v.z
            let a = dx * dx
            let b = dy * dy
            let c = dz * dz
            let sqdT = a + b + c
            if sqdT < sqd {
                face = f
                sqd = sqdT
            }
        }
        return (face, sqd)
    }
}

/// Face and hex2d coordinates of a unit vector at a resolution (reference `_vec3ToHex2d`).
@inline(__always)
func vec3ToHex2d(_ p: Vec3, res: Int) -> (face: Int, v: Vec2) {
    let (face, sqd) = closestFace(p)
    var r = acos(1 - sqd * 0.5)
    if r < kEpsilon {
        return (face, Vec2(x: 0.0, y: 0.0))
    }
    let az0 = faceAxesAzRadsCIITable.withUnsafeBufferPointer { $0[3 * face] }
    var theta = posAngleRads(az0 - posAngleRads(azimuthRads(faceCenter(face), p)))
    if isClassIII(res) {
        theta = posAngleRads(theta - kAp7RotRads)
    }
    r = tan(r)
    r *= kInvRes0UGnomonic
    for _ in 0..<res { r *= kSqrt7 }
    return (face, Vec2(x: r * cos(theta), y: r * sin(theta)))
}

/// FaceIJK of the cell containing a unit vector (reference `_vec3ToFaceIjk`).
@inline(__always)
func vec3ToFaceIjk(_ p: Vec3, res: Int) -> FaceIJK {
    let (face, v) = vec3ToHex2d(p, res: res)
    return FaceIJK(face: face, coord: CoordIJK(hex2d: v))
}

/// Unit vector of hex2d coordinates on a face (reference `_hex2dToVec3`).
@inline(__always)
func hex2dToVec3(_ v: Vec2, face: Int, res: Int, substrate: Bool) -> Vec3 {
    var r = v.magnitude
    let center = faceCenter(face)
    if r < kEpsilon {
        return center
    }
    var theta = atan2(v.y, v.x)
    for _ in 0..<res { r *= kRSqrt7 }
    if substrate {
        r *= kOneThird
        if isClassIII(res) { r *= kRSqrt7 }
    }
    r *= kRes0UGnomonic
    r = atan(r)
    if !substrate && isClassIII(res) {
        theta = posAngleRads(theta + kAp7RotRads)
    }
    let az0 = faceAxesAzRadsCIITable.withUnsafeBufferPointer { $0[3 * face] }
    theta = posAngleRads(az0 - theta)
    let (northDir, eastDir) = tangentBasis(center)
    let dir = Vec3.linComb(cos(theta), northDir, sin(theta), eastDir)
    var out = Vec3.linComb(cos(r), center, sin(r), dir)
    out.normalize()
    return out
}

/// Centre unit vector of a FaceIJK cell (reference `_faceIjkToVec3`).
@inline(__always)
func faceIjkToVec3(_ h: FaceIJK, res: Int) -> Vec3 {
    hex2dToVec3(h.coord.hex2d, face: h.face, res: res, substrate: false)
}

/// Reads a face neighbour entry: (face, translate, ccwRot60).
@inline(__always)
func faceNeighbor(_ face: Int, _ quadrant: Int) -> (face: Int, translate: CoordIJK, ccwRot60: Int) {
    faceNeighborsTable.withUnsafeBufferPointer { p in
        let b = (face * 4 + quadrant) * 5
        return (p[b], CoordIJK(p[b + 1], p[b + 2], p[b + 3]), p[b + 4])
    }
}

/// Direction from face a to face b (1 ij, 2 ki, 3 jk, 0 same, -1 not adjacent).
@inline(__always)
func adjacentFaceDir(_ a: Int, _ b: Int) -> Int {
    adjacentFaceDirTable.withUnsafeBufferPointer { $0[a * kNumFaces + b] }
}

/// Moves a FaceIJK onto the correct face if it lies beyond its face (reference `_adjustOverageClassII`).
@inline(__always)
func adjustOverageClassII(_ fijk: inout FaceIJK, res: Int, pentLeading4: Bool, substrate: Bool) -> Overage {
    var overage = Overage.none
    var maxDim = maxDimByCIIres[res]
    if substrate { maxDim *= 3 }
    let sum = fijk.coord.i + fijk.coord.j + fijk.coord.k
    if substrate && sum == maxDim {
        overage = .faceEdge
    } else if sum > maxDim {
        overage = .newFace
        let quadrant: Int
        if fijk.coord.k > 0 {
            if fijk.coord.j > 0 {
                quadrant = kQuadJK
            } else {
                quadrant = kQuadKI
                if pentLeading4 {
                    let origin = CoordIJK(maxDim, 0, 0)
                    var tmp = fijk.coord - origin
                    tmp.rotate60cw()
                    fijk.coord = tmp + origin
                }
            }
        } else {
            quadrant = kQuadIJ
        }
        let orient = faceNeighbor(fijk.face, quadrant)
        fijk.face = orient.face
        for _ in 0..<orient.ccwRot60 { fijk.coord.rotate60ccw() }
        var unitScale = unitScaleByCIIres[res]
        if substrate { unitScale *= 3 }
        fijk.coord = fijk.coord + orient.translate * unitScale
        fijk.coord.normalize()
        if substrate && fijk.coord.i + fijk.coord.j + fijk.coord.k == maxDim {
            overage = .faceEdge
        }
    }
    return overage
}

/// Repeats the overage adjustment for a pentagon vertex until it settles (reference `_adjustPentVertOverage`).
@inline(__always)
func adjustPentVertOverage(_ fijk: inout FaceIJK, res: Int) {
    while adjustOverageClassII(&fijk, res: res, pentLeading4: false, substrate: true) == .newFace {}
}

/// Up to 10 boundary vertices in radians, stored without heap allocation.
struct CellBoundaryRads: Sendable {
    /// Number of vertices (5–10).
    var count: Int = 0
    /// Latitudes, radians.
    var lats: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// Longitudes, radians.
    var lngs: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// Appends a vertex.
    @inline(__always)
    mutating func append(_ v: Vec3) {
        let (lat, lng) = v.latLngRads
        withUnsafeMutableBytes(of: &lats) { $0.storeBytes(of: lat, toByteOffset: count * 8, as: Double.self) }
        withUnsafeMutableBytes(of: &lngs) { $0.storeBytes(of: lng, toByteOffset: count * 8, as: Double.self) }
        count += 1
    }

    /// Vertex `i` as (lat, lng) radians.
    @inline(__always)
    func vertex(_ i: Int) -> (lat: Double, lng: Double) {
        let lat = withUnsafeBytes(of: lats) { $0.load(fromByteOffset: i * 8, as: Double.self) }
        let lng = withUnsafeBytes(of: lngs) { $0.load(fromByteOffset: i * 8, as: Double.self) }
        return (lat, lng)
    }
}

/// Substrate vertices of a Class II hexagon (listed ccw from the i axis).
private let vertsCII: [CoordIJK] = [
    CoordIJK(2, 1, 0), CoordIJK(1, 2, 0), CoordIJK(0, 2, 1), CoordIJK(0, 1, 2), CoordIJK(1, 0, 2), CoordIJK(2, 0, 1),
]
/// Substrate vertices of a Class III hexagon (listed ccw from the i axis).
private let vertsCIII: [CoordIJK] = [
    CoordIJK(5, 4, 0), CoordIJK(1, 5, 0), CoordIJK(0, 5, 4), CoordIJK(0, 1, 5), CoordIJK(4, 0, 5), CoordIJK(5, 0, 1),
]

/// Substrate vertex FaceIJKs of a cell; returns the adjusted resolution (reference `_faceIjkToVerts`,
/// `_faceIjkPentToVerts` — the pentagon uses the first 5).
@inline(__always)
func faceIjkToVerts(_ fijk: inout FaceIJK, res: Int, count: Int, into out: inout [FaceIJK]) -> Int {
    var adjRes = res
    let verts = isClassIII(res) ? vertsCIII : vertsCII
    fijk.coord.downAp3()
    fijk.coord.downAp3r()
    if isClassIII(res) {
        fijk.coord.downAp7r()
        adjRes += 1
    }
    for v in 0..<count {
        out[v] = FaceIJK(face: fijk.face, coord: (fijk.coord + verts[v]).normalized)
    }
    return adjRes
}

/// The three icosahedron edge vertices (v0, v1, v2) of a face at a substrate resolution.
@inline(__always)
func faceEdgeEndpoints(maxDim: Int, dir: Int) -> (Vec2, Vec2) {
    let md = Double(maxDim)
    let v0 = Vec2(x: 3.0 * md, y: 0.0)
    let v1 = Vec2(x: -1.5 * md, y: 3.0 * kSqrt3_2 * md)
    let v2 = Vec2(x: -1.5 * md, y: -3.0 * kSqrt3_2 * md)
    switch dir {
    case kQuadIJ: return (v0, v1)
    case kQuadJK: return (v1, v2)
    default: return (v2, v0)
    }
}

/// Boundary of a hexagon given its FaceIJK (reference `_faceIjkToCellBoundary`, full loop).
func faceIjkToCellBoundary(_ h: FaceIJK, res: Int) -> CellBoundaryRads {
    var centerIJK = h
    var fijkVerts = [FaceIJK](repeating: FaceIJK(face: 0, coord: CoordIJK(0, 0, 0)), count: 6)
    let adjRes = faceIjkToVerts(&centerIJK, res: res, count: 6, into: &fijkVerts)
    var g = CellBoundaryRads()
    var lastFace = -1
    var lastOverage = Overage.none
    for vert in 0..<7 {
        let v = vert % 6
        var fijk = fijkVerts[v]
        let overage = adjustOverageClassII(&fijk, res: adjRes, pentLeading4: false, substrate: true)
        if isClassIII(res) && vert > 0 && fijk.face != lastFace && lastOverage != .faceEdge {
            let lastV = (v + 5) % 6
            let orig2d0 = fijkVerts[lastV].coord.hex2d
            let orig2d1 = fijkVerts[v].coord.hex2d
            let face2 = lastFace == centerIJK.face ? fijk.face : lastFace
            let (edge0, edge1) = faceEdgeEndpoints(maxDim: maxDimByCIIres[adjRes],
                                                   dir: adjacentFaceDir(centerIJK.face, face2))
            let inter = Vec2.intersect(orig2d0, orig2d1, edge0, edge1)
            let atVertex = Vec2.almostEqual(orig2d0, inter) || Vec2.almostEqual(orig2d1, inter)
            if !atVertex {
                g.append(hex2dToVec3(inter, face: centerIJK.face, res: adjRes, substrate: true))
            }
        }
        if vert < 6 {
            g.append(hex2dToVec3(fijk.coord.hex2d, face: fijk.face, res: adjRes, substrate: true))
        }
        lastFace = fijk.face
        lastOverage = overage
    }
    return g
}

/// Boundary of a pentagon given its FaceIJK (reference `_faceIjkPentToCellBoundary`, full loop).
func faceIjkPentToCellBoundary(_ h: FaceIJK, res: Int) -> CellBoundaryRads {
    var centerIJK = h
    var fijkVerts = [FaceIJK](repeating: FaceIJK(face: 0, coord: CoordIJK(0, 0, 0)), count: 6)
    let adjRes = faceIjkToVerts(&centerIJK, res: res, count: 5, into: &fijkVerts)
    var g = CellBoundaryRads()
    var lastFijk = FaceIJK(face: 0, coord: CoordIJK(0, 0, 0))
    for vert in 0..<6 {
        let v = vert % 5
        var fijk = fijkVerts[v]
        adjustPentVertOverage(&fijk, res: adjRes)
        if isClassIII(res) && vert > 0 {
            var tmpFijk = fijk
            let orig2d0 = lastFijk.coord.hex2d
            let currentToLastDir = adjacentFaceDir(tmpFijk.face, lastFijk.face)
            let orient = faceNeighbor(tmpFijk.face, currentToLastDir)
            tmpFijk.face = orient.face
            for _ in 0..<orient.ccwRot60 { tmpFijk.coord.rotate60ccw() }
            tmpFijk.coord = tmpFijk.coord + orient.translate * (unitScaleByCIIres[adjRes] * 3)
            tmpFijk.coord.normalize()
            let orig2d1 = tmpFijk.coord.hex2d
            let (edge0, edge1) = faceEdgeEndpoints(maxDim: maxDimByCIIres[adjRes],
                                                   dir: adjacentFaceDir(tmpFijk.face, fijk.face))
            let inter = Vec2.intersect(orig2d0, orig2d1, edge0, edge1)
            g.append(hex2dToVec3(inter, face: tmpFijk.face, res: adjRes, substrate: true))
        }
        if vert < 5 {
            g.append(hex2dToVec3(fijk.coord.hex2d, face: fijk.face, res: adjRes, substrate: true))
        }
        lastFijk = fijk
    }
    return g
}
