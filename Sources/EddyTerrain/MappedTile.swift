import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One SRTM `.hgt` tile mapped read-only into memory: big-endian Int16 posts, row-major from the north-west corner,
/// void = -32768. Immutable after init; unmapped when the last reference goes (so a lookup that holds it is safe even
/// if the cache evicts it meanwhile).
final class MappedTile: @unchecked Sendable {
    /// The SRTM void marker.
    static let voidPost: Int16 = -32768

    /// Latitude of the tile's south edge (degrees, the file name's first number).
    let southLatitude: Int
    /// Longitude of the tile's west edge (degrees, the file name's second number).
    let westLongitude: Int
    /// 1″ or 3″ layout (from the file length).
    let size: SRTMTileSize
    /// Posts along each side.
    let postsPerSide: Int
    /// Start of the mapping.
    private let base: UnsafeRawPointer
    /// Length of the mapping in bytes.
    private let length: Int

    /// Maps `path`; its length must be one of the two SRTM sizes.
    init(path: String, southLatitude: Int, westLongitude: Int) throws(TerrainError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .unreadable(file: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        let bytes = Int(status.st_size)
        guard let size = SRTMTileSize(byteCount: bytes) else { throw .wrongSize(file: path, bytes: bytes) }
        guard let mapped = mmap(nil, bytes, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .unreadable(file: path, reason: "mmap: " + String(cString: strerror(errno)))
        }
        self.base = UnsafeRawPointer(mapped)
        self.length = bytes
        self.size = size
        self.postsPerSide = size.postsPerSide
        self.southLatitude = southLatitude
        self.westLongitude = westLongitude
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    /// The post at `row` (0 = north edge) and `column` (0 = west edge); both must be in 0..<postsPerSide.
    @inline(__always)
    func post(row: Int, column: Int) -> Int16 {
        let offset = (row &* postsPerSide &+ column) &* 2
        return Int16(bitPattern: UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    }

    /// Bilinear elevation at a position inside or on the edge of this tile (the caller guarantees
    /// southLatitude ≤ lat ≤ southLatitude + 1 and westLongitude ≤ lon ≤ westLongitude + 1).
    /// Void posts are left out and the remaining weights renormalised; void when the valid posts carry no weight.
    func elevation(latitudeDegrees: Double, longitudeDegrees: Double) -> TerrainElevation {
        let last = postsPerSide - 1
        let spans = Double(last)
        // Position in post units from the south-west corner, clamped to the tile (guards rounding at the edges).
        let y = min(max((latitudeDegrees - Double(southLatitude)) * spans, 0), spans)
        let x = min(max((longitudeDegrees - Double(westLongitude)) * spans, 0), spans)
        let southIndex = min(Int(y.rounded(.down)), last - 1)
        let westIndex = min(Int(x.rounded(.down)), last - 1)
        let fy = y - Double(southIndex)
        let fx = x - Double(westIndex)
        let southRow = last - southIndex
        let northRow = southRow - 1
        let posts = (
            post(row: southRow, column: westIndex), post(row: southRow, column: westIndex + 1),
            post(row: northRow, column: westIndex), post(row: northRow, column: westIndex + 1)
        )
        let weights = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
        let void = MappedTile.voidPost
        if posts.0 != void && posts.1 != void && posts.2 != void && posts.3 != void {
            let south = Double(posts.0) + (Double(posts.1) - Double(posts.0)) * fx
            let north = Double(posts.2) + (Double(posts.3) - Double(posts.2)) * fx
            // A convex combination of the posts; the lerps can overshoot them by an ulp (fuzz target `hgt`: posts up
            // to 32767 gave 32767.000000000004), so clamped into their range.
            let lowest = Double(min(min(posts.0, posts.1), min(posts.2, posts.3)))
            let highest = Double(max(max(posts.0, posts.1), max(posts.2, posts.3)))
            return .meters(min(max(south + (north - south) * fy, lowest), highest))
        }
        var sum = 0.0
        var weight = 0.0
        // The renormalised mean is a convex combination of the valid posts, but `sum / weight` can leave their range by
        // an ulp (fuzz target `hgt`: one valid post of -32767 gave -32767.000000000004); clamped back into it.
        var lowest = Double.infinity
        var highest = -Double.infinity
        func add(_ post: Int16, _ w: Double) {
            guard post != void else { return }
            let value = Double(post)
            sum += w * value; weight += w
            if w > 0 { lowest = min(lowest, value); highest = max(highest, value) }
        }
        add(posts.0, weights.0)
        add(posts.1, weights.1)
        add(posts.2, weights.2)
        add(posts.3, weights.3)
        guard weight > 0 else { return .void }
        return .meters(min(max(sum / weight, lowest), highest))
    }
}
