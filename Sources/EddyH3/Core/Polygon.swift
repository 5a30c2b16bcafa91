// Derived from uber/h3 v4.5.0 src/h3lib/lib/algos.c (polygonToCells, _getEdgeHexagons,
// maxPolygonToCellsSize), bbox.c, polygon.c, include/polygonAlgos.h and latLng.c (algorithm), Apache-2.0.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A closed loop of (lat, lng) radians; the closing vertex is implicit.
struct GeoLoopRads {
    /// Latitudes, radians.
    var lats: [Double]
    /// Longitudes, radians.
    var lngs: [Double]

    /// Number of vertices.
    var count: Int { lats.count }
}

/// Bounding box in radians (east < west when it crosses the antimeridian).
struct BBoxRads {
    /// North edge.
    var north = 0.0
    /// South edge.
    var south = 0.0
    /// East edge.
    var east = 0.0
    /// West edge.
    var west = 0.0

    /// Whether the box crosses the antimeridian.
    @inline(__always)
    var isTransmeridian: Bool { east < west }

    /// Whether the box contains a point (reference `bboxContains`).
    @inline(__always)
    func contains(lat: Double, lng: Double) -> Bool {
        lat >= south && lat <= north
            && (isTransmeridian ? (lng >= west || lng <= east) : (lng >= west && lng <= east))
    }

    /// Bounding box of a loop (reference `bboxFromGeoLoop`).
    init(loop: GeoLoopRads) {
        let n = loop.count
        if n == 0 { return }
        south = Double.greatestFiniteMagnitude
        west = Double.greatestFiniteMagnitude
        north = -Double.greatestFiniteMagnitude
        east = -Double.greatestFiniteMagnitude
        var minPosLng = Double.greatestFiniteMagnitude
        var maxNegLng = -Double.greatestFiniteMagnitude
        var transmeridian = false
        for i in 0..<n {
            let lat = loop.lats[i]
            let lng = loop.lngs[i]
            let nextLng = loop.lngs[(i + 1) % n]
            if lat < south { south = lat }
            if lng < west { west = lng }
            if lat > north { north = lat }
            if lng > east { east = lng }
            if lng > 0 && lng < minPosLng { minPosLng = lng }
            if lng < 0 && lng > maxNegLng { maxNegLng = lng }
            if abs(lng - nextLng) > kPi { transmeridian = true }
        }
        if transmeridian {
            east = maxNegLng
            west = minPosLng
        }
    }
}

/// Longitude shifted east by 2π when transmeridian and negative (reference `NORMALIZE_LNG`).
@inline(__always)
private func normalizeLngTM(_ lng: Double, _ transmeridian: Bool) -> Double {
    transmeridian && lng < 0 ? lng + k2Pi : lng
}

/// Ray-casting point-in-loop test in lat/lng space (reference `pointInsideGeoLoop`).
func pointInsideGeoLoop(_ loop: GeoLoopRads, _ bbox: BBoxRads, lat latIn: Double, lng lngIn: Double) -> Bool {
    if !bbox.contains(lat: latIn, lng: lngIn) { return false }
    let transmeridian = bbox.isTransmeridian
    var contains = false
    var lat = latIn
    var lng = normalizeLngTM(lngIn, transmeridian)
    let n = loop.count
    for i in 0..<n {
        // The next vertex, wrapping to the first: a compare instead of `(i + 1) % n` (an integer division per edge
        // was most of this test's cost).
        let next = i + 1 == n ? 0 : i + 1
        var aLat = loop.lats[i]
        var aLngRaw = loop.lngs[i]
        var bLat = loop.lats[next]
        var bLngRaw = loop.lngs[next]
        if aLat > bLat {
            swap(&aLat, &bLat)
            swap(&aLngRaw, &bLngRaw)
        }
        if lat == aLat || lat == bLat {
            lat += kDblEpsilon
        }
        if lat < aLat || lat > bLat { continue }
        let aLng = normalizeLngTM(aLngRaw, transmeridian)
        let bLng = normalizeLngTM(bLngRaw, transmeridian)
        if aLng == lng || bLng == lng {
            lng -= kDblEpsilon
        }
        let ratio = (lat - aLat) / (bLat - aLat)
        let testLng = normalizeLngTM(aLng + (bLng - aLng) * ratio, transmeridian)
        if testLng > lng { contains = !contains }
    }
    return contains
}

/// Great-circle distance in radians (haversine, reference `greatCircleDistanceRads`).
@inline(__always)
func greatCircleDistanceRads(_ aLat: Double, _ aLng: Double, _ bLat: Double, _ bLng: Double) -> Double {
    let sinLat = sin((bLat - aLat) * 0.5)
    let sinLng = sin((bLng - aLng) * 0.5)
    let a = sinLat * sinLat + cos(aLat) * cos(bLat) * sinLng * sinLng
    return 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
}

/// Radius in km of the res-`res` pentagon on base cell 4 (reference `_hexRadiusKm(pentagons[0])`).
func pentagonRadiusKm(res: Int) -> Double {
    var h = kH3Init
    h3SetMode(&h, 1)
    h3SetResolution(&h, res)
    h3SetBaseCell(&h, 4)
    for r in stride(from: 1, through: res, by: 1) { h3SetDigit(&h, r, 0) }
    let (cLat, cLng) = cellToVec3Raw(h).latLngRads
    let b = cellToBoundaryRaw(h, referenceRounding: true)
    let (vLat, vLng) = b.vertex(0)
    return greatCircleDistanceRads(cLat, cLng, vLat, vLng) * kEarthRadiusKm
}

/// Estimated cells in a bounding box (reference `bboxHexEstimate`); nil where the reference fails.
func bboxHexEstimate(_ bbox: BBoxRads, res: Int, pentagonRadius: Double) -> Int? {
    let pentagonAreaKm2 = 0.8 * (2.59807621135 * pentagonRadius * pentagonRadius)
    let d = greatCircleDistanceRads(bbox.north, bbox.east, bbox.south, bbox.west) * kEarthRadiusKm
    let lngDiff = abs(bbox.east - bbox.west)
    let latDiff = abs(bbox.north - bbox.south)
    if lngDiff == 0 || latDiff == 0 { return nil }
    let length = Swift.max(lngDiff, latDiff)
    let width = Swift.min(lngDiff, latDiff)
    let ratio = length / width
    let a = d * d / Swift.min(3.0, ratio)
    let estimateDouble = (a / pentagonAreaKm2).rounded(.up)
    if !estimateDouble.isFinite || estimateDouble >= 9.2e18 { return nil }
    let estimate = Int(estimateDouble)
    return estimate == 0 ? 1 : estimate
}

/// Estimated cells along a segment (reference `lineHexEstimate`); nil where the reference fails.
func lineHexEstimate(_ aLat: Double, _ aLng: Double, _ bLat: Double, _ bLng: Double, pentagonRadius: Double) -> Int? {
    let dist = greatCircleDistanceRads(aLat, aLng, bLat, bLng) * kEarthRadiusKm
    let distCeil = (dist / (2 * pentagonRadius)).rounded(.up)
    if !distCeil.isFinite || distCeil >= 9.2e18 { return nil }
    let estimate = Int(distCeil)
    return estimate == 0 ? 1 : estimate
}

/// Why polygonToCells failed.
enum PolygonFailure: Error {
    /// The reference's `E_FAILED` (degenerate bounding box, estimate overflow, table full).
    case failed
    /// A sampled point was not finite.
    case nonFinite
    /// The working tables would exceed `H3.maxOutputCells`.
    case tooLarge
}

/// Cells whose centre lies inside the polygon (outer loop minus holes), in the reference's output
/// (hash) order (reference `polygonToCells`, flags 0: the trace + flood-fill algorithm).
func polygonToCellsRaw(outer: GeoLoopRads, holes: [GeoLoopRads], res: Int) -> Result<[UInt64], PolygonFailure> {
    if outer.count == 0 { return .success([]) }
    let loops = [outer] + holes
    let bboxes = loops.map { BBoxRads(loop: $0) }
    let pentRadius = pentagonRadiusKm(res: res)

    guard var numHexagons = bboxHexEstimate(bboxes[0], res: res, pentagonRadius: pentRadius) else {
        return .failure(.failed)
    }
    let totalVerts = loops.reduce(0) { $0 + $1.count }
    if numHexagons < totalVerts { numHexagons = totalVerts }
    numHexagons += 12
    if numHexagons > H3.maxOutputCells { return .failure(.tooLarge) }
    let tableSize = UInt64(numHexagons)

    var search = [UInt64](repeating: 0, count: numHexagons)
    var found = [UInt64](repeating: 0, count: numHexagons)
    var out = [UInt64](repeating: 0, count: numHexagons)
    var numSearchHexes = 0
    var numFoundHexes = 0

    // 1–2. Trace the outer loop and the holes.
    for loop in loops {
        let n = loop.count
        for i in 0..<n {
            let oLat = loop.lats[i]
            let oLng = loop.lngs[i]
            let dLat = i == n - 1 ? loop.lats[0] : loop.lats[i + 1]
            let dLng = i == n - 1 ? loop.lngs[0] : loop.lngs[i + 1]
            guard let est = lineHexEstimate(oLat, oLng, dLat, dLng, pentagonRadius: pentRadius) else {
                return .failure(.failed)
            }
            if est > H3.maxOutputCells { return .failure(.tooLarge) }
            for j in 0..<est {
                let inv = 1.0 / Double(est)
                let lat = (oLat * Double(est - j) * inv) + (dLat * Double(j) * inv)
                let lng = (oLng * Double(est - j) * inv) + (dLng * Double(j) * inv)
                guard lat.isFinite && lng.isFinite else { return .failure(.nonFinite) }
                let pointHex = vec3ToCellRaw(Vec3(latRads: lat, lngRads: lng), res: res)
                var loc = Int(pointHex % tableSize)
                var loopCount = 0
                while found[loc] != 0 {
                    if loopCount > numHexagons { return .failure(.failed) }
                    if found[loc] == pointHex { break }
                    loc = (loc + 1) % numHexagons
                    loopCount += 1
                }
                if found[loc] == pointHex { continue }
                found[loc] = pointHex
                if numSearchHexes >= numHexagons { return .failure(.failed) }
                search[numSearchHexes] = pointHex
                numSearchHexes += 1
            }
        }
    }

    // 3. Re-zero the found hash.
    for i in 0..<numHexagons { found[i] = 0 }

    // 4. Flood fill. The disks go into one reused buffer (gridDiskRaw's own steps: the fast spiral, else the safe walk).
    // Cells found outside are remembered (up to half the table, open addressing) so that a cell bordering several
    // inside cells is tested once: the test is deterministic, so the output is the reference's.
    var rejected = [UInt64](repeating: 0, count: numHexagons)
    var numRejected = 0
    var ring: [H3Index] = []
    ring.reserveCapacity(7)
    var noDistances: [Int]? = nil
    while numSearchHexes > 0 {
        for i in 0..<numSearchHexes {
            ring.removeAll(keepingCapacity: true)
            if !gridDiskUnsafe(search[i], k: 1, out: &ring, distances: &noDistances) {
                guard let (cells, _) = gridDiskRaw(search[i], k: 1, withDistances: false) else {
                    return .failure(.failed)
                }
                ring = cells
            }
            for cell in ring {
                let hex = cell.rawValue
                var loc = Int(hex % tableSize)
                var loopCount = 0
                while out[loc] != 0 {
                    if loopCount > numHexagons { return .failure(.failed) }
                    if out[loc] == hex { break }
                    loc = (loc + 1) % numHexagons
                    loopCount += 1
                }
                if out[loc] == hex { continue }
                var rejectedLoc = Int(hex % tableSize)
                while rejected[rejectedLoc] != 0 && rejected[rejectedLoc] != hex { rejectedLoc = (rejectedLoc + 1) % numHexagons }
                if rejected[rejectedLoc] == hex { continue }
                let (cLat, cLng) = cellToVec3Raw(hex).latLngRads
                var inside = pointInsideGeoLoop(outer, bboxes[0], lat: cLat, lng: cLng)
                if inside {
                    for h in 0..<holes.count where pointInsideGeoLoop(holes[h], bboxes[h + 1], lat: cLat, lng: cLng) {
                        inside = false
                        break
                    }
                }
                if !inside {
                    if numRejected < numHexagons / 2 {
                        rejected[rejectedLoc] = hex
                        numRejected += 1
                    }
                    continue
                }
                out[loc] = hex
                if numFoundHexes >= numHexagons { return .failure(.failed) }
                found[numFoundHexes] = hex
                numFoundHexes += 1
            }
        }
        swap(&search, &found)
        for j in 0..<numSearchHexes { found[j] = 0 }
        numSearchHexes = numFoundHexes
        numFoundHexes = 0
    }
    return .success(out.filter { $0 != 0 })
}
