// The EGM96 geoid: undulation N between the WGS 84 ellipsoid and mean sea level (HAE = MSL + N), by bilinear
// interpolation in the 15' grid compiled into EGM96Grid.swift. Pure: no I/O, no clock. docs/terrain-and-geoid.md.

/// The EGM96 geoid model (15-minute grid, bilinear interpolation).
package enum EGM96 {
    /// Grid spacing in degrees (15 arc-minutes).
    static let stepDegrees = 0.25

    /// Geoid undulation N in metres at a WGS 84 position, so that height above ellipsoid = MSL height + N.
    /// Latitude must be finite and within -90...90 degrees; longitude any finite value (it wraps, so -180, 180 and
    /// 540 are the same meridian). Returns nil for non-finite or out-of-range input.
    package static func undulationMeters(latitudeDegrees: Double, longitudeDegrees: Double) -> Double? {
        guard latitudeDegrees.isFinite, longitudeDegrees.isFinite,
              latitudeDegrees >= -90, latitudeDegrees <= 90,
              let grid = decodedGrid
        else { return nil }
        let rows = gridRows
        let columns = gridColumns
        // Row coordinate from the south pole, 0...720; the last cell is 719...720.
        let y = (latitudeDegrees + 90) / stepDegrees
        let row = min(Int(y.rounded(.down)), rows - 2)
        let fy = y - Double(row)
        // Column coordinate from -180 degrees, wrapped into 0..<1440.
        var east = (longitudeDegrees + 180).truncatingRemainder(dividingBy: 360)
        if east < 0 { east += 360 }
        let x = east / stepDegrees
        let column = min(max(Int(x.rounded(.down)), 0), columns - 1)
        let fx = x - Double(column)
        let nextColumn = column + 1 == columns ? 0 : column + 1

        let southWest = Double(grid[row * columns + column])
        let southEast = Double(grid[row * columns + nextColumn])
        let northWest = Double(grid[(row + 1) * columns + column])
        let northEast = Double(grid[(row + 1) * columns + nextColumn])
        let south = southWest + (southEast - southWest) * fx
        let north = northWest + (northEast - northWest) * fx
        return (south + (north - south) * fy) / 100
    }

    /// The grid in whole centimetres, row-major from the south-west corner (row = latitude index), decoded once;
    /// nil only if the compiled-in table is corrupt (a test checks that it is not).
    static let decodedGrid: [Int16]? = decodeGrid(encodedGrid, rows: gridRows, columns: gridColumns)

    /// Decodes the table format written by scripts/make_geoid_table.py: base64 → LEB128 zigzag varints → residuals
    /// against the plane predictor. Returns nil if the text is not exactly rows × columns values.
    static func decodeGrid(_ text: String, rows: Int, columns: Int) -> [Int16]? {
        let count = rows * columns
        var grid = [Int16]()
        grid.reserveCapacity(count)
        var bitBuffer: UInt32 = 0
        var bitCount = 0
        var varint: UInt64 = 0
        var shift: UInt64 = 0
        for character in text.utf8 {
            let sextet: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): sextet = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): sextet = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sextet = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): sextet = 62
            case UInt8(ascii: "/"): sextet = 63
            case UInt8(ascii: "="), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " "): continue
            default: return nil
            }
            bitBuffer = (bitBuffer << 6) | sextet
            bitCount += 6
            guard bitCount >= 8 else { continue }
            bitCount -= 8
            let byte = UInt8(truncatingIfNeeded: bitBuffer >> UInt32(bitCount))
            bitBuffer &= (1 << UInt32(bitCount)) - 1
            guard shift < 63 else { return nil }
            varint |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            let residual = Int(truncatingIfNeeded: varint >> 1) ^ -Int(truncatingIfNeeded: varint & 1)
            varint = 0
            shift = 0
            let index = grid.count
            guard index < count else { return nil }
            let row = index / columns
            let column = index % columns
            let prediction: Int
            if row == 0 && column == 0 {
                prediction = 0
            } else if row == 0 {
                prediction = Int(grid[index - 1])
            } else if column == 0 {
                prediction = Int(grid[index - columns])
            } else {
                prediction = Int(grid[index - 1]) + Int(grid[index - columns]) - Int(grid[index - columns - 1])
            }
            guard let value = Int16(exactly: prediction + residual) else { return nil }
            grid.append(value)
        }
        guard grid.count == count, shift == 0 else { return nil }
        return grid
    }
}
