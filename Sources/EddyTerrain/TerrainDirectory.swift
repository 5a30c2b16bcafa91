// SRTM terrain elevation from a directory of .hgt tiles: file names index the tiles once, tiles are memory-mapped on
// first use and kept in a bounded LRU cache. docs/terrain-and-geoid.md explains the format and the rules.
import EddySupport
import Foundation
import Synchronization

/// Terrain elevation at a position (metres above the EGM96 geoid, which is what SRTM heights are referenced to).
package enum TerrainElevation: Sendable, Equatable {
    /// Interpolated elevation in metres (EGM96 / mean sea level).
    case meters(Double)
    /// The tile exists but the posts around the position are void (no data).
    case void
    /// No tile in the directory covers the position.
    case noTile
}

/// A directory of SRTM `.hgt` tiles (1″ 3601×3601 or 3″ 1201×1201, big-endian Int16, void -32768) answering
/// bilinear elevation lookups. Thread-safe; memory stays bounded by `cacheTiles` mapped tiles.
package final class TerrainDirectory: Sendable {
    /// The directory path as given.
    package let path: String
    /// Most tiles kept mapped at once.
    package let cacheTiles: Int
    /// Tile file paths by tile key (see `key(south:west:)`), found when the directory was opened.
    private let files: [Int: String]
    /// Mapped tiles, most recently used first.
    private let cache = Mutex<[MappedTile]>([])

    /// Opens `path` and indexes the tiles named like `N47E008.hgt` / `s12w077.hgt` (south-west corner; other files
    /// are ignored). Tiles added to the directory later are not seen. Throws if `path` is not a directory or
    /// `cacheTiles` < 1.
    package init(path: String, cacheTiles: Int = 8) throws(TerrainError) {
        guard cacheTiles >= 1 else { throw .invalidCacheSize(tiles: cacheTiles) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .directoryMissing(path: path)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .unreadable(file: path, reason: "cannot list the directory: \(error.localizedDescription)")
        }
        var files: [Int: String] = [:]
        for name in names.sorted() {
            guard let corner = TerrainDirectory.tileCorner(fileName: name) else { continue }
            let key = TerrainDirectory.key(south: corner.south, west: corner.west)
            // Upper-case names sort first and win if both spellings exist.
            if files[key] == nil { files[key] = (path as NSString).appendingPathComponent(name) }
        }
        self.path = path
        self.cacheTiles = cacheTiles
        self.files = files
    }

    /// Number of tiles found in the directory.
    package var tileCount: Int { files.count }

    /// Number of tiles currently mapped (at most `cacheTiles`).
    package var mappedTileCount: Int { cache.withLock(visibleToThreadSanitizerAs: self) { $0.count } }

    /// Bilinear elevation at a WGS 84 position: `.meters` (EGM96 heights), `.void` when the surrounding posts hold
    /// no data, `.noTile` when no tile covers it. Latitude -90...90 and longitude -180...180 degrees, finite; a
    /// position on a tile edge is answered by either tile that has it. Throws `invalidCoordinate` for other input,
    /// `wrongSize` / `unreadable` when the covering tile's file is bad.
    package func elevationMeters(latitudeDegrees: Double, longitudeDegrees: Double) throws(TerrainError)
        -> TerrainElevation
    {
        guard latitudeDegrees.isFinite, longitudeDegrees.isFinite,
              (-90...90).contains(latitudeDegrees), (-180...180).contains(longitudeDegrees)
        else { throw .invalidCoordinate(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees) }
        // Tile whose south-west corner is below and left of the position; the north and east edges (lat 90,
        // lon 180) belong to the last tile.
        let south = min(Int(latitudeDegrees.rounded(.down)), 89)
        let west = min(Int(longitudeDegrees.rounded(.down)), 179)
        if let tile = try tile(south: south, west: west) {
            return tile.elevation(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
        }
        // A position exactly on the south or west edge is also on the neighbour's north or east edge.
        let onSouthEdge = Double(south) == latitudeDegrees && south > -90
        let onWestEdge = Double(west) == longitudeDegrees && west > -180
        let neighbours = [
            onSouthEdge ? (south - 1, west) : nil,
            onWestEdge ? (south, west - 1) : nil,
            onSouthEdge && onWestEdge ? (south - 1, west - 1) : nil,
        ]
        for case let (s, w)? in neighbours {
            if let tile = try tile(south: s, west: w) {
                return tile.elevation(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
            }
        }
        return .noTile
    }

    /// The mapped tile with this south-west corner, mapping it (and evicting the least recently used) if needed;
    /// nil if the directory has no such tile.
    private func tile(south: Int, west: Int) throws(TerrainError) -> MappedTile? {
        // Hot path: the most recently used tile, without hashing.
        let recent = cache.withLock(visibleToThreadSanitizerAs: self) { (tiles: inout [MappedTile]) -> MappedTile? in
            guard let first = tiles.first, first.southLatitude == south, first.westLongitude == west else { return nil }
            return first
        }
        if let recent { return recent }
        guard let file = files[TerrainDirectory.key(south: south, west: west)] else { return nil }
        let limit = cacheTiles
        return try cache.withLock(visibleToThreadSanitizerAs: self) { (tiles: inout [MappedTile]) throws(TerrainError) -> MappedTile? in
            if let index = tiles.firstIndex(where: { $0.southLatitude == south && $0.westLongitude == west }) {
                let hit = tiles.remove(at: index)
                tiles.insert(hit, at: 0)
                return hit
            }
            let loaded = try MappedTile(path: file, southLatitude: south, westLongitude: west)
            if tiles.count >= limit { tiles.removeLast(tiles.count - limit + 1) }
            tiles.insert(loaded, at: 0)
            return loaded
        }
    }

    /// Dictionary key of a tile corner.
    private static func key(south: Int, west: Int) -> Int { (south + 90) * 360 + (west + 180) }

    /// The south-west corner named by an SRTM tile file name (`N47E008.hgt`, `s12w077.HGT`), or nil.
    package static func tileCorner(fileName: String) -> (south: Int, west: Int)? {
        let bytes = Array(fileName.utf8)
        guard bytes.count == 11 else { return nil }
        let suffix = String(decoding: bytes[7...], as: UTF8.self).lowercased()
        guard suffix == ".hgt" else { return nil }
        func digits(_ range: ClosedRange<Int>) -> Int? {
            var value = 0
            for i in range {
                let b = bytes[i]
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(b - UInt8(ascii: "0"))
            }
            return value
        }
        guard let latitude = digits(1...2), let longitude = digits(4...6) else { return nil }
        let south: Int
        switch bytes[0] {
        case UInt8(ascii: "N"), UInt8(ascii: "n"): south = latitude
        case UInt8(ascii: "S"), UInt8(ascii: "s"): south = -latitude
        default: return nil
        }
        let west: Int
        switch bytes[3] {
        case UInt8(ascii: "E"), UInt8(ascii: "e"): west = longitude
        case UInt8(ascii: "W"), UInt8(ascii: "w"): west = -longitude
        default: return nil
        }
        // S00 and W000 would name the N00 / E000 tiles; they are not SRTM names.
        guard (-90...89).contains(south), (-180...179).contains(west),
              !(south == 0 && bytes[0] | 0x20 == UInt8(ascii: "s")),
              !(west == 0 && bytes[3] | 0x20 == UInt8(ascii: "w"))
        else { return nil }
        return (south, west)
    }

    /// The conventional upper-case file name of the tile with this south-west corner (`N47E008.hgt`).
    package static func tileFileName(southLatitude: Int, westLongitude: Int) -> String {
        let ns = southLatitude < 0 ? "S" : "N"
        let ew = westLongitude < 0 ? "W" : "E"
        let lat = String(abs(southLatitude))
        let lon = String(abs(westLongitude))
        return ns + String(repeating: "0", count: max(0, 2 - lat.count)) + lat
            + ew + String(repeating: "0", count: max(0, 3 - lon.count)) + lon + ".hgt"
    }
}
