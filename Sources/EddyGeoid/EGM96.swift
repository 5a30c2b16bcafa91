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
        var text = text
        return text.withUTF8 { decodeGrid(utf8: $0, rows: rows, columns: columns) }
    }

    /// Base64 alphabet value of each byte: 0...63, `skip` for white space and padding, `invalid` otherwise.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        for character in "= \n\r".utf8 { table[Int(character)] = skip }
        return table
    }()
    /// `sextets` marker: ignore this byte.
    private static let skip: UInt8 = 0xFE
    /// `sextets` marker: not base64.
    private static let invalid: UInt8 = 0xFF

    /// `decodeGrid` on the UTF-8 bytes of the table.
    private static func decodeGrid(utf8: UnsafeBufferPointer<UInt8>, rows: Int, columns: Int) -> [Int16]? {
        let count = rows * columns
        var grid = [Int16](repeating: 0, count: count)
        var index = 0
        var bitBuffer: UInt32 = 0
        var bitCount: UInt32 = 0
        var varint: UInt64 = 0
        var shift: UInt64 = 0
        let table = sextets
        let ok: Bool = grid.withUnsafeMutableBufferPointer { out in
            for character in utf8 {
                let sextet = table[Int(character)]
                if sextet >= skip {
                    if sextet == skip { continue }
                    return false
                }
                bitBuffer = (bitBuffer << 6) | UInt32(sextet)
                bitCount += 6
                guard bitCount >= 8 else { continue }
                bitCount -= 8
                let byte = UInt8(truncatingIfNeeded: bitBuffer >> bitCount)
                bitBuffer &= (1 << bitCount) - 1
                guard shift < 63 else { return false }
                varint |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 != 0 {
                    shift += 7
                    continue
                }
                let residual = Int(truncatingIfNeeded: varint >> 1) ^ -Int(truncatingIfNeeded: varint & 1)
                varint = 0
                shift = 0
                guard index < count else { return false }
                let row = index / columns
                let column = index - row * columns
                let prediction: Int
                if row == 0 && column == 0 {
                    prediction = 0
                } else if row == 0 {
                    prediction = Int(out[index - 1])
                } else if column == 0 {
                    prediction = Int(out[index - columns])
                } else {
                    prediction = Int(out[index - 1]) + Int(out[index - columns]) - Int(out[index - columns - 1])
                }
                guard let value = Int16(exactly: prediction + residual) else { return false }
                out[index] = value
                index += 1
            }
            return true
        }
        guard ok, index == count, shift == 0 else { return nil }
        return grid
    }
}
