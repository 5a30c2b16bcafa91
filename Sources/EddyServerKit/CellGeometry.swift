#if Tools
import EddyProtocol

/// The cell geometry the server needs (centres for area filtering, boundaries and neighbours for polygons).
///
/// Production uses H3 (`H3CellGeometry`); tests of the polygon merge can use any grid that keeps the same contract:
/// boundaries are counter-clockwise rings and two adjacent cells share an edge with identical vertices.
protocol CellGeometry: Sendable {
    /// Whether `cell` is a valid tile cell (H3 resolution 5).
    func isValidCell(_ cell: UInt64) -> Bool
    /// Centre of a cell, degrees.
    func center(of cell: UInt64) -> GeoPoint
    /// Boundary ring of a cell, counter-clockwise, open (last vertex ≠ first), degrees.
    func boundary(of cell: UInt64) -> [GeoPoint]
    /// Cells sharing an edge with `cell` (not including `cell`).
    func neighbors(of cell: UInt64) -> [UInt64]
}
#endif
