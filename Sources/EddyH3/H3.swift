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
        let b = cellToBoundaryRaw(cell.rawValue)
        var out: [LatLng] = []
        out.reserveCapacity(b.count)
        for i in 0..<b.count {
            let (lat, lng) = b.vertex(i)
            out.append(LatLng(latitude: lat * k180Pi, longitude: lng * k180Pi))
        }
        return out
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
        try gridDiskDistances(origin, k: k).map(\.cell)
    }

    /// All cells within grid distance k of `origin`, each with its distance.
    public static func gridDiskDistances(_ origin: H3Index, k: Int) throws(H3Error) -> [(cell: H3Index, distance: Int)] {
        guard isValidCellRaw(origin.rawValue) else { throw .invalidCell }
        guard k >= 0 && k < 13_780_510 else { throw .invalidK }
        guard let (cells, distances) = gridDiskDistancesRaw(origin.rawValue, k: k) else { throw .failed }
        var out: [(cell: H3Index, distance: Int)] = []
        out.reserveCapacity(cells.count)
        for i in 0..<cells.count { out.append((H3Index(rawValue: cells[i]), distances[i])) }
        return out
    }
}
