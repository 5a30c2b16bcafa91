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

/// Face geometry precomputed once with exactly the reference's operations (so every bit is the same as
/// computing it per call): centre, tangent-plane north and east, and the azimuth of the face's i axis.
struct FaceFrame: Sendable {
    /// Face centre.
    var center: Vec3
    /// Local north at the centre.
    var north: Vec3
    /// Local east at the centre.
    var east: Vec3
    /// `faceAxesAzRadsCII[face][0]`.
    var axisAzimuth: Double
    /// Where hex2d +x points in the face's tangent plane: cos A · north + sin A · east (A = `axisAzimuth`).
    var hex2dX: Vec3
    /// Where hex2d +y points in the face's tangent plane: sin A · north − cos A · east.
    var hex2dY: Vec3
}

/// Per-face frames, index = face.
let faceFrames: [FaceFrame] = (0..<20).map { f in
    let c = Vec3(x: faceCenterPointTable[3 * f], y: faceCenterPointTable[3 * f + 1], z: faceCenterPointTable[3 * f + 2])
    let (n, e) = tangentBasis(c)
    let azimuth = faceAxesAzRadsCIITable[3 * f]
    return FaceFrame(center: c, north: n, east: e, axisAzimuth: azimuth,
                     hex2dX: Vec3.linComb(cos(azimuth), n, sin(azimuth), e),
                     hex2dY: Vec3.linComb(sin(azimuth), n, -cos(azimuth), e))
}

/// Frame of a face.
@inline(__always)
func faceFrame(_ f: Int) -> FaceFrame {
    faceFrames.withUnsafeBufferPointer { $0[f] }
}

/// Azimuth from a face centre to p2 in the face's tangent plane (reference `_vec3AzimuthRads(faceCenter, p2)`).
@inline(__always)
func azimuthRads(_ frame: FaceFrame, _ p2: Vec3) -> Double {
    let p1 = frame.center
    let northDir = frame.north
    let eastDir = frame.east
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
    let frame = faceFrame(face)
    var theta = posAngleRads(frame.axisAzimuth - posAngleRads(azimuthRads(frame, p)))
    if isClassIII(res) {
        theta = posAngleRads(theta - kAp7RotRads)
    }
    r = tan(r)
    r *= kInvRes0UGnomonic
    for _ in 0..<res { r *= kSqrt7 }
    let t = sinCos(theta)
    return (face, Vec2(x: r * t.cos, y: r * t.sin))
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
    // atan2 is computed before the early return (a pure call, unused there) so the sqrt latency overlaps it.
    var theta = atan2(v.y, v.x)
    var r = v.magnitude
    let frame = faceFrame(face)
    if r < kEpsilon {
        return frame.center
    }
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
    theta = posAngleRads(frame.axisAzimuth - theta)
    let t = sinCos(theta)
    let dir = Vec3.linComb(t.cos, frame.north, t.sin, frame.east)
    let rr = sinCos(r)
    var out = Vec3.linComb(rr.cos, frame.center, rr.sin, dir)
    out.normalize()
    return out
}

/// Unit vector of substrate hex2d coordinates on a face, for cell boundaries: the same point as
/// `hex2dToVec3(v, face:, res:, substrate: true)` without trigonometry. H3's face projection is gnomonic (the
/// distance on the sphere is atan of the scaled hex2d radius), and a gnomonic projection maps the tangent plane's
/// point (x, y) to the direction of centre + scale · (x · X + y · Y), X and Y the face's hex2d axes in the tangent
/// plane: so normalising that vector replaces the reference's atan2, atan and two sincos (docs/h3.md).
@inline(__always)
func substrateHex2dToVec3(_ v: Vec2, face: Int, res: Int) -> Vec3 {
    let frame = faceFrame(face)
    var scale = kRes0UGnomonic * kOneThird
    for _ in 0..<res { scale *= kRSqrt7 }
    if isClassIII(res) { scale *= kRSqrt7 }
    let a = scale * v.x, b = scale * v.y
    var out = Vec3(x: frame.center.x + (a * frame.hex2dX.x + b * frame.hex2dY.x),
                   y: frame.center.y + (a * frame.hex2dX.y + b * frame.hex2dY.y),
                   z: frame.center.z + (a * frame.hex2dX.z + b * frame.hex2dY.z))
    out.normalize()
    return out
}

/// A boundary vertex from substrate hex2d coordinates: through the gnomonic identity, or with `referenceRounding`
/// the reference's trigonometry bit for bit (areas and the pentagon radius, whose reference values are bit-equal).
@inline(__always)
func boundaryVertex(_ v: Vec2, face: Int, res: Int, referenceRounding: Bool) -> Vec3 {
    referenceRounding ? hex2dToVec3(v, face: face, res: res, substrate: true) : substrateHex2dToVec3(v, face: face, res: res)
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

/// Receives boundary vertices (unit vectors) in order.
protocol BoundarySink {
    /// Adds the next vertex.
    mutating func append(_ v: Vec3)
}

/// Up to 10 boundary vertices in radians, stored without heap allocation.
struct CellBoundaryRads: Sendable, BoundarySink {
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

/// Substrate offset of vertex `v` (0–5, ccw from the i axis) of an origin-centred cell: Class II uses the
/// aperture 33r substrate, Class III the 33r7r one (the reference's local `vertsCII` / `vertsCIII`).
@inline(__always)
func substrateVertexOffset(_ v: Int, classIII: Bool) -> CoordIJK {
    if classIII {
        switch v {
        case 0: return CoordIJK(5, 4, 0)
        case 1: return CoordIJK(1, 5, 0)
        case 2: return CoordIJK(0, 5, 4)
        case 3: return CoordIJK(0, 1, 5)
        case 4: return CoordIJK(4, 0, 5)
        default: return CoordIJK(5, 0, 1)
        }
    }
    switch v {
    case 0: return CoordIJK(2, 1, 0)
    case 1: return CoordIJK(1, 2, 0)
    case 2: return CoordIJK(0, 2, 1)
    case 3: return CoordIJK(0, 1, 2)
    case 4: return CoordIJK(1, 0, 2)
    default: return CoordIJK(2, 0, 1)
    }
}

/// Moves a cell centre into the vertex substrate grid; returns the adjusted resolution (first half of the
/// reference's `_faceIjkToVerts` / `_faceIjkPentToVerts`).
@inline(__always)
func toSubstrate(_ fijk: inout FaceIJK, res: Int) -> Int {
    var adjRes = res
    fijk.coord.downAp3()
    fijk.coord.downAp3r()
    if isClassIII(res) {
        fijk.coord.downAp7r()
        adjRes += 1
    }
    return adjRes
}

/// Substrate FaceIJK of vertex `v` around a substrate centre (second half of `_faceIjkToVerts`).
@inline(__always)
func substrateVertex(_ center: FaceIJK, _ v: Int, classIII: Bool) -> FaceIJK {
    FaceIJK(face: center.face, coord: (center.coord + substrateVertexOffset(v, classIII: classIII)).normalized)
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
@inline(__always)
func faceIjkToCellBoundary<S: BoundarySink>(_ h: FaceIJK, res: Int, referenceRounding: Bool, into g: inout S) {
    var centerIJK = h
    let adjRes = toSubstrate(&centerIJK, res: res)
    let classIII = isClassIII(res)
    var lastFace = -1
    var lastOverage = Overage.none
    // The 7th pass only looks for a distortion vertex on the closing edge, which only Class III cells have.
    for vert in 0..<(classIII ? 7 : 6) {
        let v = vert % 6
        var fijk = substrateVertex(centerIJK, v, classIII: classIII)
        let overage = adjustOverageClassII(&fijk, res: adjRes, pentLeading4: false, substrate: true)
        if classIII && vert > 0 && fijk.face != lastFace && lastOverage != .faceEdge {
            let lastV = (v + 5) % 6
            let orig2d0 = substrateVertex(centerIJK, lastV, classIII: true).coord.hex2d
            let orig2d1 = substrateVertex(centerIJK, v, classIII: true).coord.hex2d
            let face2 = lastFace == centerIJK.face ? fijk.face : lastFace
            let (edge0, edge1) = faceEdgeEndpoints(maxDim: maxDimByCIIres[adjRes],
                                                   dir: adjacentFaceDir(centerIJK.face, face2))
            let inter = Vec2.intersect(orig2d0, orig2d1, edge0, edge1)
            let atVertex = Vec2.almostEqual(orig2d0, inter) || Vec2.almostEqual(orig2d1, inter)
            if !atVertex {
                g.append(boundaryVertex(inter, face: centerIJK.face, res: adjRes, referenceRounding: referenceRounding))
            }
        }
        if vert < 6 {
            g.append(boundaryVertex(fijk.coord.hex2d, face: fijk.face, res: adjRes, referenceRounding: referenceRounding))
        }
        lastFace = fijk.face
        lastOverage = overage
    }
}

/// Boundary of a pentagon given its FaceIJK (reference `_faceIjkPentToCellBoundary`, full loop).
@inline(__always)
func faceIjkPentToCellBoundary<S: BoundarySink>(_ h: FaceIJK, res: Int, referenceRounding: Bool, into g: inout S) {
    var centerIJK = h
    let adjRes = toSubstrate(&centerIJK, res: res)
    let classIII = isClassIII(res)
    var lastFijk = FaceIJK(face: 0, coord: CoordIJK(0, 0, 0))
    for vert in 0..<(classIII ? 6 : 5) {
        let v = vert % 5
        var fijk = substrateVertex(centerIJK, v, classIII: classIII)
        adjustPentVertOverage(&fijk, res: adjRes)
        if classIII && vert > 0 {
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
            g.append(boundaryVertex(inter, face: tmpFijk.face, res: adjRes, referenceRounding: referenceRounding))
        }
        if vert < 5 {
            g.append(boundaryVertex(fijk.coord.hex2d, face: fijk.face, res: adjRes, referenceRounding: referenceRounding))
        }
        lastFijk = fijk
    }
}
