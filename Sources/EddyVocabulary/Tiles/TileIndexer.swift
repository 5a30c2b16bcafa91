import EddyH3

/// Maps a latitude / longitude (degrees) to the 64-bit cell of a tile; called once per location fix.
package struct TileIndexer: Sendable {
    /// The mapping; nil when the position cannot be indexed.
    package let cell: @Sendable (_ latitudeDegrees: Double, _ longitudeDegrees: Double) -> UInt64?

    /// Wraps a mapping.
    package init(cell: @escaping @Sendable (_ latitudeDegrees: Double, _ longitudeDegrees: Double) -> UInt64?) { self.cell = cell }

    /// The tile cells of the product: H3 resolution 5 (`TileID.h3Resolution`).
    package static let h3Resolution5 = TileIndexer { latitude, longitude in
        try? H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: TileID.h3Resolution).rawValue
    }
}
