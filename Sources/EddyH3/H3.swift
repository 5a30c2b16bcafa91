// Public API of the pure-Swift port of uber/h3 v4.5.0 (see docs/h3.md and NOTICE).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Pure-Swift H3 v4.5.0: cell ids, centres and boundaries bit-identical with the reference library
/// (x86_64 build). Positions are in degrees unless a name says radians.
public enum H3 {
    /// Highest resolution.
    public static let maxResolution = 15

    /// Largest number of cells (or working slots) one call may produce; above it calls throw `.tooManyCells`
    /// instead of exhausting memory (the reference would fail its allocation).
    public static let maxOutputCells = 50_000_000

    /// Throws `.invalidK` for negative k and `.tooManyCells` when a disk of radius k could exceed the limit.
    private static func checkK(_ k: Int) throws(H3Error) {
        guard k >= 0 else { throw .invalidK }
        guard k <= 4082 else { throw .tooManyCells }  // 3k(k+1)+1 ≤ 50,000,000
    }

    // MARK: Indexing

    /// Cell containing a position given in degrees.
    public static func latLngToCell(latitude: Double, longitude: Double, resolution: Int) throws(H3Error) -> H3Index {
        try latLngToCell(latitudeRadians: latitude * kPi180, longitudeRadians: longitude * kPi180,
                         resolution: resolution)
    }

    /// Cell containing a position.
    public static func latLngToCell(_ point: LatLng, resolution: Int) throws(H3Error) -> H3Index {
        try latLngToCell(latitude: point.latitude, longitude: point.longitude, resolution: resolution)
    }

    /// Cell containing a position given in radians.
    public static func latLngToCell(latitudeRadians: Double, longitudeRadians: Double,
                                    resolution: Int) throws(H3Error) -> H3Index {
        guard resolution >= 0 && resolution <= kMaxRes else { throw .resolutionOutOfRange }
        guard latitudeRadians.isFinite && longitudeRadians.isFinite else { throw .nonFiniteCoordinates }
        let v = Vec3(latRads: latitudeRadians, lngRads: longitudeRadians)
        let h = vec3ToCellRaw(v, res: resolution)
        guard h != 0 else { throw .failed }
        return H3Index(rawValue: h)
    }

    /// Centre of a cell in degrees.
    public static func cellToLatLng(_ cell: H3Index) throws(H3Error) -> LatLng {
        let (lat, lng) = try cellToLatLngRadians(cell)
        return LatLng(latitude: lat * k180Pi, longitude: lng * k180Pi)
    }

    /// Centre of a cell in radians.
    public static func cellToLatLngRadians(_ cell: H3Index) throws(H3Error) -> (latitude: Double, longitude: Double) {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        let (lat, lng) = cellToVec3Raw(cell.rawValue).latLngRads
        return (lat, lng)
    }

    /// Boundary vertices of a cell in degrees, counter-clockwise, 5–10 vertices (Class III cells get extra
    /// vertices where an edge crosses an icosahedron edge).
    public static func cellToBoundary(_ cell: H3Index) throws(H3Error) -> [LatLng] {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        var b = CellBoundaryRads()
        EddyH3.cellToBoundary(cell.rawValue, into: &b)
        @inline(__always) func p(_ i: Int) -> LatLng {
            let (lat, lng) = b.vertex(i)
            return LatLng(latitude: lat * k180Pi, longitude: lng * k180Pi)
        }
        // Array literals allocate through the module's cached array-storage metadata; the generic
        // initialisers look it up in the runtime on every call (measurable at a million calls per second).
        switch b.count {
        case 6: return [p(0), p(1), p(2), p(3), p(4), p(5)]
        case 7: return [p(0), p(1), p(2), p(3), p(4), p(5), p(6)]
        case 5: return [p(0), p(1), p(2), p(3), p(4)]
        case 8: return [p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7)]
        case 9: return [p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7), p(8)]
        default: return (0..<b.count).map(p)
        }
    }

    /// Boundary vertices of a cell in radians, without allocating: calls `body` once per vertex in order.
    /// Returns the vertex count.
    @discardableResult
    public static func forEachBoundaryVertexRadians(
        _ cell: H3Index, _ body: (_ latitude: Double, _ longitude: Double) -> Void
    ) throws(H3Error) -> Int {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        let b = cellToBoundaryRaw(cell.rawValue)
        for i in 0..<b.count {
            let (lat, lng) = b.vertex(i)
            body(lat, lng)
        }
        return b.count
    }

    // MARK: Inspection

    /// Whether an index is a valid H3 cell.
    public static func isValidCell(_ cell: H3Index) -> Bool { isValidCellRaw(cell.rawValue) }

    /// Resolution of a cell.
    public static func resolution(of cell: H3Index) -> Int { cell.resolution }

    /// Base cell number (0–121) of a cell.
    public static func baseCell(of cell: H3Index) -> Int { cell.baseCell }

    /// Whether a cell is one of the 12 pentagons of its resolution.
    public static func isPentagon(_ cell: H3Index) -> Bool { isPentagonRaw(cell.rawValue) }

    /// Whether a cell's resolution is Class III (odd).
    public static func isResClassIII(_ cell: H3Index) -> Bool { isClassIII(cell.resolution) }

    // MARK: Traversal

    /// All cells within grid distance k of `origin` (including it). Order: the reference's spiral when no
    /// pentagon is near, else unspecified; compare as a set.
    public static func gridDisk(_ origin: H3Index, k: Int) throws(H3Error) -> [H3Index] {
        guard isValidCellRaw(origin.rawValue) else { throw .invalidCell }
        try checkK(k)
        guard let (cells, _) = gridDiskRaw(origin.rawValue, k: k, withDistances: false) else { throw .failed }
        return cells
    }

    /// All cells within grid distance k of `origin`, each with its distance.
    public static func gridDiskDistances(_ origin: H3Index, k: Int) throws(H3Error) -> [(cell: H3Index, distance: Int)] {
        guard isValidCellRaw(origin.rawValue) else { throw .invalidCell }
        try checkK(k)
        guard let (cells, distances) = gridDiskRaw(origin.rawValue, k: k, withDistances: true),
              let distances else { throw .failed }
        var out: [(cell: H3Index, distance: Int)] = []
        out.reserveCapacity(cells.count)
        for i in 0..<cells.count { out.append((cells[i], distances[i])) }
        return out
    }

    /// Cells at exactly grid distance k from `origin` (k = 0 gives the origin).
    public static func gridRing(_ origin: H3Index, k: Int) throws(H3Error) -> [H3Index] {
        guard isValidCellRaw(origin.rawValue) else { throw .invalidCell }
        try checkK(k)
        guard let ring = gridRingRaw(origin.rawValue, k: k) else { throw .failed }
        return ring.map { H3Index(rawValue: $0) }
    }

    /// Grid distance (number of steps) between two cells of the same resolution. Throws `.cellsNotComparable`
    /// for different resolutions or cells too far apart (base cells not neighbours), `.pentagonDistortion` when
    /// the path would unfold across a pentagon — exactly where the reference fails.
    public static func gridDistance(_ a: H3Index, _ b: H3Index) throws(H3Error) -> Int {
        guard isValidCellRaw(a.rawValue), isValidCellRaw(b.rawValue) else { throw .invalidCell }
        switch gridDistanceRaw(a.rawValue, b.rawValue) {
        case .success(let d): return d
        case .failure(.resolutionMismatch): throw .cellsNotComparable
        case .failure(.invalidCell): throw .invalidCell
        case .failure(.failed): throw .cellsNotComparable
        case .failure(.pentagon): throw .pentagonDistortion
        }
    }

    // MARK: Hierarchy

    /// Parent (or ancestor) at a coarser or equal resolution.
    public static func cellToParent(_ cell: H3Index, resolution parentRes: Int) throws(H3Error) -> H3Index {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        guard parentRes >= 0 && parentRes <= cell.resolution else { throw .resolutionOutOfRange }
        return H3Index(rawValue: cellToParentRaw(cell.rawValue, parentRes))
    }

    /// All children at a finer or equal resolution, in increasing index order.
    public static func cellToChildren(_ cell: H3Index, resolution childRes: Int) throws(H3Error) -> [H3Index] {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        guard childRes >= cell.resolution && childRes <= kMaxRes else { throw .resolutionOutOfRange }
        let count = childrenCountRaw(cell.rawValue, childRes)
        guard count <= maxOutputCells else { throw .tooManyCells }
        var out: [UInt64] = []
        out.reserveCapacity(count)
        cellToChildrenRaw(cell.rawValue, childRes, into: &out)
        return out.map { H3Index(rawValue: $0) }
    }

    /// Number of children at a finer or equal resolution (7ⁿ, fewer under pentagons).
    public static func childrenCount(_ cell: H3Index, resolution childRes: Int) throws(H3Error) -> Int {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        guard childRes >= cell.resolution && childRes <= kMaxRes else { throw .resolutionOutOfRange }
        return childrenCountRaw(cell.rawValue, childRes)
    }

    /// The centre child at a finer or equal resolution.
    public static func cellToCenterChild(_ cell: H3Index, resolution childRes: Int) throws(H3Error) -> H3Index {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        guard childRes >= cell.resolution && childRes <= kMaxRes else { throw .resolutionOutOfRange }
        return H3Index(rawValue: cellToCenterChildRaw(cell.rawValue, childRes))
    }

    /// The 12 pentagons at a resolution, by base cell.
    public static func pentagons(resolution: Int) throws(H3Error) -> [H3Index] {
        guard resolution >= 0 && resolution <= kMaxRes else { throw .resolutionOutOfRange }
        var out: [H3Index] = []
        for bc in 0..<kNumBaseCells where isBaseCellPentagon(bc) {
            var h = kH3Init
            h3SetMode(&h, 1)
            h3SetResolution(&h, resolution)
            h3SetBaseCell(&h, bc)
            for r in stride(from: 1, through: resolution, by: 1) { h3SetDigit(&h, r, 0) }
            out.append(H3Index(rawValue: h))
        }
        return out
    }

    /// The 122 resolution-0 cells.
    public static func res0Cells() -> [H3Index] {
        (0..<kNumBaseCells).map { bc in
            var h = kH3Init
            h3SetMode(&h, 1)
            h3SetBaseCell(&h, bc)
            return H3Index(rawValue: h)
        }
    }

    // MARK: Measures

    /// Exact area of a cell in steradians (spherical excess of its boundary, as the reference).
    public static func cellAreaRads2(_ cell: H3Index) throws(H3Error) -> Double {
        guard isValidCellRaw(cell.rawValue) else { throw .invalidCell }
        return cellAreaRads2Raw(cell.rawValue)
    }

    /// Exact area of a cell in km² (authalic radius 6371.007180918475 km).
    public static func cellAreaKm2(_ cell: H3Index) throws(H3Error) -> Double {
        try cellAreaRads2(cell) * (kEarthRadiusKm * kEarthRadiusKm)
    }

    /// Exact area of a cell in m².
    public static func cellAreaM2(_ cell: H3Index) throws(H3Error) -> Double {
        try cellAreaKm2(cell) * 1000 * 1000
    }

    /// Average hexagon edge length at a resolution, km (the reference's table).
    public static func averageHexagonEdgeLengthKm(resolution: Int) throws(H3Error) -> Double {
        guard resolution >= 0 && resolution <= kMaxRes else { throw .resolutionOutOfRange }
        return averageHexagonEdgeLengthKmTable[resolution]
    }

    /// Average hexagon area at a resolution, km² (the reference's table).
    public static func averageHexagonAreaKm2(resolution: Int) throws(H3Error) -> Double {
        guard resolution >= 0 && resolution <= kMaxRes else { throw .resolutionOutOfRange }
        return averageHexagonAreaKm2Table[resolution]
    }

    /// Great-circle (haversine) distance between two positions in km, as the reference.
    public static func greatCircleDistanceKm(_ a: LatLng, _ b: LatLng) -> Double {
        greatCircleDistanceRads(a.latitudeRadians, a.longitudeRadians, b.latitudeRadians, b.longitudeRadians)
            * kEarthRadiusKm
    }

    // MARK: Regions

    /// Cells whose centre lies inside a polygon (degrees; outer ring minus holes), as the reference's
    /// `polygonToCells` with default (centre) containment. Rings may be open or closed, either orientation.
    /// Output order is the reference's (hash) order; treat it as a set.
    public static func polygonToCells(outer: [LatLng], holes: [[LatLng]] = [],
                                      resolution: Int) throws(H3Error) -> [H3Index] {
        guard resolution >= 0 && resolution <= kMaxRes else { throw .resolutionOutOfRange }
        func loop(_ ring: [LatLng]) throws(H3Error) -> GeoLoopRads {
            if ring.isEmpty { return GeoLoopRads(lats: [], lngs: []) }
            guard ring.count >= 3 else { throw .invalidPolygon }
            var pts = ring
            if pts.first == pts.last { pts.removeLast() }
            var lats: [Double] = []
            var lngs: [Double] = []
            lats.reserveCapacity(pts.count)
            lngs.reserveCapacity(pts.count)
            for p in pts {
                lats.append(p.latitude * kPi180)
                lngs.append(p.longitude * kPi180)
            }
            return GeoLoopRads(lats: lats, lngs: lngs)
        }
        let outerLoop = try loop(outer)
        var holeLoops: [GeoLoopRads] = []
        for h in holes { holeLoops.append(try loop(h)) }
        switch polygonToCellsRaw(outer: outerLoop, holes: holeLoops, res: resolution) {
        case .success(let cells): return cells.map { H3Index(rawValue: $0) }
        case .failure(.nonFinite): throw .nonFiniteCoordinates
        case .failure(.failed): throw .failed
        case .failure(.tooLarge): throw .tooManyCells
        }
    }
}
