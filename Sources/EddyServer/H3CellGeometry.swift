import EddyH3
import EddyProtocol

/// H3 cell geometry (TEMPORARY placeholder until EddyH3 lands).
struct H3CellGeometry: CellGeometry {
    func isValidCell(_ cell: UInt64) -> Bool { true }
    func center(of cell: UInt64) -> GeoPoint { GeoPoint(lat: 0, lng: 0) }
    func boundary(of cell: UInt64) -> [GeoPoint] { [] }
    func neighbors(of cell: UInt64) -> [UInt64] { [] }
}
