/// A terrain lookup that cannot be answered: what is wrong, where, and what to do.
public enum TerrainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The DEM directory does not exist or is not a directory.
    case directoryMissing(path: String)
    /// A tile file whose length is neither a 1″ (3601×3601) nor a 3″ (1201×1201) SRTM tile.
    case wrongSize(file: String, bytes: Int)
    /// A tile file that exists but cannot be opened, measured or mapped (`reason` from the system).
    case unreadable(file: String, reason: String)
    /// A cache size below 1 tile.
    case invalidCacheSize(tiles: Int)
    /// A latitude or longitude that is not finite or lies outside -90...90 / -180...180 degrees.
    case invalidCoordinate(latitudeDegrees: Double, longitudeDegrees: Double)

    /// One line for a log or a terminal: the file or value, what is wrong, and what to do.
    public var description: String {
        switch self {
        case .directoryMissing(let path):
            return "\(path): DEM directory not found (or not a directory); pass a directory holding SRTM .hgt tiles"
        case .wrongSize(let file, let bytes):
            return "\(file): \(bytes) bytes is not an SRTM tile; expected \(SRTMTileSize.oneArcSecond.byteCount) "
                + "bytes (1″, 3601×3601) or \(SRTMTileSize.threeArcSecond.byteCount) bytes (3″, 1201×1201) "
                + "of big-endian Int16; replace the file with a complete, unzipped tile"
        case .unreadable(let file, let reason):
            return "\(file): cannot read tile (\(reason)); check the file's permissions"
        case .invalidCacheSize(let tiles):
            return "cache size \(tiles) tiles: must be at least 1"
        case .invalidCoordinate(let latitude, let longitude):
            return "position (\(latitude), \(longitude)): latitude must be finite within -90...90 degrees and "
                + "longitude finite within -180...180 degrees"
        }
    }
}

/// The two SRTM tile layouts, told apart by file length.
package enum SRTMTileSize: Sendable, Equatable, CaseIterable {
    /// 1 arc-second (SRTM1 / SRTMGL1): 3601×3601 posts.
    case oneArcSecond
    /// 3 arc-second (SRTM3 / SRTMGL3): 1201×1201 posts.
    case threeArcSecond

    /// Posts along each side (the first and last rows/columns lie on the tile's integer-degree edges).
    package var postsPerSide: Int {
        switch self {
        case .oneArcSecond: return 3601
        case .threeArcSecond: return 1201
        }
    }

    /// File length in bytes (2 bytes per post).
    package var byteCount: Int { postsPerSide * postsPerSide * 2 }

    /// The layout whose file length is `bytes`, or nil.
    package init?(byteCount bytes: Int) {
        guard let size = SRTMTileSize.allCases.first(where: { $0.byteCount == bytes }) else { return nil }
        self = size
    }
}
