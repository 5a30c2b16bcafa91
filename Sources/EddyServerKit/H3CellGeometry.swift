#if Tools
import EddyH3
import EddyProtocol

/// Tile geometry from EddyH3 (resolution-5 cells): centres, boundaries (counter-clockwise) and edge neighbours.
struct H3CellGeometry: CellGeometry {
    /// Whether `cell` is a valid H3 cell at the tile resolution.
    func isValidCell(_ cell: UInt64) -> Bool {
        let index = H3Index(rawValue: cell)
        return H3.isValidCell(index) && index.resolution == 5
    }

    /// Cell centre, degrees (0,0 for an invalid cell, which ingest rejects before asking).
    func center(of cell: UInt64) -> GeoPoint {
        guard let point = try? H3.cellToLatLng(H3Index(rawValue: cell)) else { return GeoPoint(lat: 0, lng: 0) }
        return GeoPoint(lat: point.latitude, lng: point.longitude)
    }

    /// Boundary ring, counter-clockwise, open.
    func boundary(of cell: UInt64) -> [GeoPoint] {
        guard let ring = try? H3.cellToBoundary(H3Index(rawValue: cell)) else { return [] }
        return ring.map { GeoPoint(lat: $0.latitude, lng: $0.longitude) }
    }

    /// The cells at grid distance 1.
    func neighbors(of cell: UInt64) -> [UInt64] {
        guard let disk = try? H3.gridDisk(H3Index(rawValue: cell), k: 1) else { return [] }
        return disk.map(\.rawValue).filter { $0 != cell && $0 != 0 }
    }
}
#endif
