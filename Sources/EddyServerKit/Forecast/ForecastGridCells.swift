#if Tools
import EddyH3
import EddyVocabulary
import Foundation

/// One decoded field's points as ecCodes gives them: latitude, longitude and value of every grid point (NaN where the
/// bitmap marks the value missing), and for a regular latitude/longitude grid its increments.
package struct ForecastGridPoints: Sendable {
    /// Latitudes, degrees.
    package var latitudes: [Double]
    /// Longitudes, degrees (any range: ecCodes gives 0…360).
    package var longitudes: [Double]
    /// Values (EDR, m^(2/3) s^-1); NaN where missing.
    package var values: [Double]
    /// The increments of a regular latitude/longitude grid (`gridType` regular_ll), nil for any other grid.
    package var regularSpacing: RegularSpacing?

    /// A regular grid's increments, degrees.
    package struct RegularSpacing: Sendable, Equatable {
        /// Between two rows.
        package var latitudeDegrees: Double
        /// Between two columns.
        package var longitudeDegrees: Double
        /// Makes the increments.
        package init(latitudeDegrees: Double, longitudeDegrees: Double) {
            self.latitudeDegrees = latitudeDegrees
            self.longitudeDegrees = longitudeDegrees
        }
    }

    /// Makes a field's points.
    package init(latitudes: [Double], longitudes: [Double], values: [Double], regularSpacing: RegularSpacing?) {
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.values = values
        self.regularSpacing = regularSpacing
    }
}

/// A field's grid points onto H3 resolution-5 cells (docs/nowcast.md "Forecast grids", "Grid → cells"). Pure.
///
/// - A regular latitude/longitude grid (WAFS, 0.25° ≈ 28 km, coarser than a 8.5-km-edge cell): every cell whose centre
///   lies in a grid box takes the value of that box's point — the nearest grid point in latitude/longitude, i.e. the
///   cell is covered by the grid box holding its centre, as H3's polygon-to-cells assigns cells by centre. Each cell
///   gets exactly one point; none is left empty between points, and a value is not smeared over its neighbours' boxes.
/// - Any other grid (GTG's 13-km Lambert conformal grid, finer than a cell; anything else ecCodes gives coordinates
///   for): each point goes to the cell that contains it and a cell keeps its largest value.
package enum ForecastGridCells {
    /// The EDR per resolution-5 cell of `points`.
    package static func cellValues(_ points: ForecastGridPoints) -> [UInt64: Double] {
        if let spacing = points.regularSpacing, spacing.latitudeDegrees > 0, spacing.longitudeDegrees > 0,
           let grid = RegularGrid(points, spacing: spacing) {
            return grid.cellValues()
        }
        var cells: [UInt64: Double] = [:]
        for index in points.values.indices where !points.values[index].isNaN {
            guard let cell = cell(latitude: points.latitudes[index], longitude: points.longitudes[index]) else { continue }
            cells[cell] = max(cells[cell] ?? -.infinity, points.values[index])
        }
        return cells
    }

    /// The resolution-5 cell of a position (longitude in any range), nil when it is not a valid position.
    static func cell(latitude: Double, longitude: Double) -> UInt64? {
        try? H3.latLngToCell(latitude: latitude, longitude: wrapped(longitude), resolution: TileID.h3Resolution).rawValue
    }

    /// A longitude in −180…180.
    static func wrapped(_ longitude: Double) -> Double {
        let turned = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return (turned < 0 ? turned + 360 : turned) - 180
    }

    /// `degrees` in 0..<360.
    static func positive(_ degrees: Double) -> Double {
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        return turned < 0 ? turned + 360 : turned
    }
}

/// A regular latitude/longitude grid indexed by column and row (west to east from its western edge, south to north),
/// whatever the message's scanning mode: each point's column and row come from its own coordinates.
struct RegularGrid {
    let points: ForecastGridPoints
    let spacing: ForecastGridPoints.RegularSpacing
    /// Longitude of the westernmost column, degrees (0..<360).
    let west: Double
    /// Latitude of the southernmost row, degrees.
    let south: Double
    let columns: Int
    let rows: Int
    /// Whether the columns go round the Earth (column `columns` is column 0 again).
    let global: Bool
    /// Point index of each column + row × columns (−1: no point there).
    let index: [Int]

    /// The grid of `points`; nil when their coordinates do not lie on one regular grid of `spacing`.
    init?(_ points: ForecastGridPoints, spacing: ForecastGridPoints.RegularSpacing) {
        guard !points.latitudes.isEmpty, points.latitudes.count == points.longitudes.count,
              points.values.count == points.latitudes.count else { return nil }
        // The western edge: the column just east of the widest gap between the grid's longitudes.
        let longitudes = Set(points.longitudes.map { (ForecastGridCells.positive($0) / spacing.longitudeDegrees).rounded() })
            .map { $0 * spacing.longitudeDegrees }.sorted()
        var west = longitudes[0], widestGap = longitudes[0] + 360 - longitudes[longitudes.count - 1]
        for (a, b) in zip(longitudes, longitudes.dropFirst()) where b - a > widestGap { (west, widestGap) = (b, b - a) }
        let south = points.latitudes.min() ?? 0
        var cells: [(column: Int, row: Int)] = []
        cells.reserveCapacity(points.latitudes.count)
        for (latitude, longitude) in zip(points.latitudes, points.longitudes) {
            cells.append((Int((ForecastGridCells.positive(longitude - west) / spacing.longitudeDegrees).rounded()),
                          Int(((latitude - south) / spacing.latitudeDegrees).rounded())))
        }
        let columns = (cells.map(\.column).max() ?? 0) + 1, rows = (cells.map(\.row).max() ?? 0) + 1
        guard columns * rows == points.values.count else { return nil }
        var index = [Int](repeating: -1, count: columns * rows)
        for (pointIndex, cell) in cells.enumerated() { index[cell.column + cell.row * columns] = pointIndex }
        (self.points, self.spacing, self.west, self.south, self.columns, self.rows, self.index) =
            (points, spacing, west, south, columns, rows, index)
        global = abs(Double(columns) * spacing.longitudeDegrees - 360) < spacing.longitudeDegrees / 2
    }

    /// What lies at a position: outside the grid, a box whose value is missing, or a box's value.
    enum Box: Equatable {
        case outside, missing
        case value(Double)
    }

    /// The grid box holding a position (the nearest point in latitude/longitude).
    func box(latitude: Double, longitude: Double) -> Box {
        let row = Int(((latitude - south) / spacing.latitudeDegrees).rounded())
        var x = ForecastGridCells.positive(longitude - west) / spacing.longitudeDegrees
        if !global, x > Double(columns) - 0.5 { x -= 360 / spacing.longitudeDegrees }   // just west of the western edge
        var column = Int(x.rounded())
        if global { column = ((column % columns) + columns) % columns }
        guard (0..<rows).contains(row), (0..<columns).contains(column) else { return .outside }
        let point = index[column + row * columns]
        guard point >= 0, !points.values[point].isNaN else { return .missing }
        return .value(points.values[point])
    }

    /// Every cell whose centre lies in a grid box with a value, with that value. The cells are found by a flood from
    /// each point's own cell through neighbours whose centres lie in the grid (missing boxes included, so a hole does not
    /// cut the flood): each cell's centre is computed once, and the cells just outside the grid stop it.
    func cellValues() -> [UInt64: Double] {
        var cells: [UInt64: Double] = [:]
        var seen = Set<UInt64>()
        var frontier: [(cell: H3Index, seed: Bool)] = []
        for point in points.values.indices where !points.values[point].isNaN {
            guard let cell = ForecastGridCells.cell(latitude: points.latitudes[point], longitude: points.longitudes[point]),
                  seen.insert(cell).inserted else { continue }
            frontier.append((H3Index(rawValue: cell), true))
        }
        while let (cell, seed) = frontier.popLast() {
            guard let centre = try? H3.cellToLatLng(cell) else { continue }
            switch box(latitude: centre.latitude, longitude: centre.longitude) {
            case .outside: if !seed { continue }   // a point's own cell may have its centre just outside: still spread
            case .missing: break
            case .value(let value): cells[cell.rawValue] = value
            }
            for neighbour in (try? H3.gridDisk(cell, k: 1)) ?? [] where seen.insert(neighbour.rawValue).inserted {
                frontier.append((neighbour, false))
            }
        }
        return cells
    }
}
#endif
