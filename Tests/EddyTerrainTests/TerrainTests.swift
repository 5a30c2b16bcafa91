import Foundation
import Testing
@testable import EddyTerrain

/// A temporary directory of synthetic .hgt tiles, removed on deinit.
final class TileDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "eddy-terrain-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a tile of `posts` × `posts` big-endian Int16, post (row, column) from `height` (row 0 = north).
    func writeTile(_ name: String, posts: Int, height: (Int, Int) -> Int16) throws {
        var bytes = [UInt8](repeating: 0, count: posts * posts * 2)
        for row in 0..<posts {
            for column in 0..<posts {
                let value = UInt16(bitPattern: height(row, column))
                let offset = (row * posts + column) * 2
                bytes[offset] = UInt8(value >> 8)
                bytes[offset + 1] = UInt8(value & 0xFF)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    /// Writes `count` bytes of zeros under `name`.
    func writeBytes(_ name: String, count: Int) throws {
        try Data(count: count).write(to: URL(fileURLWithPath: path + "/" + name))
    }
}

/// Deterministic xorshift generator: the same points on every run.
struct XorShift: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

@Suite("SRTM terrain")
struct TerrainTests {
    private func meters(_ e: TerrainElevation) -> Double? {
        if case .meters(let m) = e { return m }
        return nil
    }

    @Test("bilinear is exact on a plane: 1″ and 3″ tiles, random points, edges and corners")
    func planeExact() throws {
        let dir = try TileDirectory()
        // Planes whose post values are whole metres: h = 100 + 3600 (lat + 12) - 1200 (lon + 77) on the 3″ tile,
        // h = 200 + 3600 (lat - 47) - 3600 (lon - 8) on the 1″ tile.
        try dir.writeTile("S12W077.hgt", posts: 1201) { r, c in
            Int16(100 + 3 * (1200 - r) - 1 * c)
        }
        try dir.writeTile("N47E008.hgt", posts: 3601) { r, c in Int16(200 + (3600 - r) - c) }
        let terrain = try TerrainDirectory(path: dir.path)
        var generator = XorShift(state: 0x5EED_0011)
        for _ in 0..<2000 {
            let lat = -12 + Double.random(in: 0...1, using: &generator)
            let lon = -77 + Double.random(in: 0...1, using: &generator)
            let expected = 100 + 3 * 1200 * (lat + 12) - 1200 * (lon + 77)
            let got = meters(try terrain.elevationMeters(latitudeDegrees: lat, longitudeDegrees: lon))
            #expect(got != nil && abs(got! - expected) < 1e-6, "(\(lat), \(lon)): \(String(describing: got)) vs \(expected)")
            let lat1 = 47 + Double.random(in: 0...1, using: &generator)
            let lon1 = 8 + Double.random(in: 0...1, using: &generator)
            let expected1 = 200 + 3600 * (lat1 - 47) - 3600 * (lon1 - 8)
            let got1 = meters(try terrain.elevationMeters(latitudeDegrees: lat1, longitudeDegrees: lon1))
            #expect(got1 != nil && abs(got1! - expected1) < 1e-6)
        }
        // Corners and edges of the 1″ tile, read straight from the posts.
        let corners: [(Double, Double, Double)] = [
            (47, 8, 200), (48, 8, 3800), (47, 9, -3400), (48, 9, 200), (47.5, 9, 200 + 1800 - 3600), (48, 8.5, 3800 - 1800),
        ]
        for (lat, lon, expected) in corners {
            #expect(meters(try terrain.elevationMeters(latitudeDegrees: lat, longitudeDegrees: lon)) == expected)
        }
    }

    @Test("byte order, row order and corner naming: the first two bytes are the north-west post")
    func layout() throws {
        let dir = try TileDirectory()
        // NW post 0x1234 = 4660, NE 0x0102 = 258, SW -2 (0xFFFE), SE 7; everything else 1000.
        try dir.writeTile("N10E020.hgt", posts: 1201) { r, c in
            switch (r, c) {
            case (0, 0): return 0x1234
            case (0, 1200): return 0x0102
            case (1200, 0): return -2
            case (1200, 1200): return 7
            default: return 1000
            }
        }
        let terrain = try TerrainDirectory(path: dir.path)
        #expect(try terrain.elevationMeters(latitudeDegrees: 11, longitudeDegrees: 20) == .meters(4660))
        #expect(try terrain.elevationMeters(latitudeDegrees: 11, longitudeDegrees: 21) == .meters(258))
        #expect(try terrain.elevationMeters(latitudeDegrees: 10, longitudeDegrees: 20) == .meters(-2))
        #expect(try terrain.elevationMeters(latitudeDegrees: 10, longitudeDegrees: 21) == .meters(7))
        // One post spacing in from the SW corner is an ordinary post (1/1200 is not exact in binary: 1e-9 m).
        let inside = meters(try terrain.elevationMeters(latitudeDegrees: 10 + 1.0 / 1200, longitudeDegrees: 20))
        #expect(inside != nil && abs(inside! - 1000) < 1e-9)
    }

    @Test("voids: renormalised weights over the valid posts; void only when no valid post carries weight")
    func voids() throws {
        let dir = try TileDirectory()
        let void = Int16.min
        // Cell between rows 10–11 and columns 20–21 (row 11 is south): SW 100, SE 200, NW void, NE 400.
        // Cell rows 1050–1051, columns 75–76: all four void. Post (150, 300) void with valid neighbours.
        // Rows and columns that are multiples of 75 lie on 1/16° lines, exact in binary, so "exactly on a post" is
        // exact there (elsewhere row / 1200 rounds and the point lands a hair inside a neighbouring cell).
        try dir.writeTile("N00E000.hgt", posts: 1201) { r, c in
            switch (r, c) {
            case (11, 20): return 100
            case (11, 21): return 200
            case (10, 20): return void
            case (10, 21): return 400
            case (1050...1051, 75...76): return void
            case (150, 300): return void
            default: return 500
            }
        }
        let terrain = try TerrainDirectory(path: dir.path)
        let step = 1.0 / 1200
        func at(row: Double, column: Double) throws -> TerrainElevation {
            try terrain.elevationMeters(latitudeDegrees: 1 - row * step, longitudeDegrees: column * step)
        }
        func near(_ e: TerrainElevation, _ value: Double) -> Bool {
            guard let m = meters(e) else { return false }
            return abs(m - value) < 1e-9
        }
        // fx = 0.25, fy = 0.5 from the SW post (row 11, column 20).
        let fx = 0.25, fy = 0.5
        let w = ((1 - fx) * (1 - fy), fx * (1 - fy), fx * fy)       // SW, SE, NE (NW void)
        let expected = (w.0 * 100 + w.1 * 200 + w.2 * 400) / (w.0 + w.1 + w.2)
        #expect(near(try at(row: 11 - fy, column: 20 + fx), expected))
        // All four void → void, inside the cell, on its edges and on its exact corner.
        #expect(try at(row: 1050.5, column: 75.5) == .void)
        #expect(try at(row: 1050.5, column: 75) == .void)
        #expect(try at(row: 1050, column: 75) == .void)
        // Next to the all-void cell: the valid neighbours answer.
        #expect(near(try at(row: 1050.5, column: 76.5), 500))
        #expect(near(try at(row: 1049.5, column: 75.5), 500))
        // Exactly on the lone void post: its valid neighbours carry no weight there → void.
        #expect(try at(row: 150, column: 300) == .void)
        // Close to it: the valid posts answer (all 500).
        #expect(near(try at(row: 150.01, column: 300.01), 500))
        #expect(near(try at(row: 149.99, column: 299.99), 500))
        // On the valid SW post itself: exactly its value, though NW is void.
        #expect(near(try at(row: 11, column: 20), 100))
    }

    /// Fuzz finding (target `hgt`, docs/reliability.md §7): one valid post of -32767 among three voids gave
    /// -32767.000000000004 (the renormalised mean left the posts' range by an ulp). With one valid post carrying
    /// weight, the answer is that post exactly, wherever in the cell.
    @Test("voids: a lone valid post answers its own value exactly", arguments: [Int16(-32767), 32767, -1, 8848])
    func lonePostExact(_ value: Int16) throws {
        let dir = try TileDirectory()
        try dir.writeTile("N46E008.hgt", posts: 1201) { r, c in (r, c) == (600, 1) ? value : Int16.min }
        let terrain = try TerrainDirectory(path: dir.path)
        var generator = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        // The crash's position: fy = 32768/65535 above row 601, fx = 510/65535 east of column 0 (SE post = (600, 1)).
        var points = [(32768.0 / 65535, 510.0 / 65535)]
        for _ in 0..<2000 { points.append((Double.random(in: 0..<1, using: &generator), Double.random(in: 0.001..<1, using: &generator))) }
        for (fy, fx) in points {
            let elevation = try terrain.elevationMeters(latitudeDegrees: 46 + (600 + fy) / 1200, longitudeDegrees: 8 + fx / 1200)
            #expect(elevation == .meters(Double(value)) || (fy > 0.999 && elevation == .void), "fy \(fy) fx \(fx): \(elevation)")
        }
    }

    /// Fuzz finding (target `hgt`): on the north edge (fy = 1) of a cell whose north posts are 32767 and south posts
    /// -129 and -32652, the lerp gave 32767.000000000004. Bilinear interpolation never leaves the posts' range.
    /// (It may still round an ulp below the edge value: the range is the invariant, not exactness.)
    @Test("bilinear stays within the posts' range (north edge of a steep cell)")
    func bilinearWithinPosts() throws {
        let dir = try TileDirectory()
        try dir.writeTile("N46E008.hgt", posts: 1201) { r, c in r == 0 ? 32767 : (c % 2 == 0 ? -129 : -32652) }
        let terrain = try TerrainDirectory(path: dir.path)
        var generator = XorShift(state: 0x2545_F491_4F6C_DD1D)
        var fractions = [45057.0 / 65535]
        for _ in 0..<2000 { fractions.append(Double.random(in: 0..<1, using: &generator)) }
        for fx in fractions {
            let column = Double(Int.random(in: 0..<1199, using: &generator))
            let elevation = try terrain.elevationMeters(latitudeDegrees: 47, longitudeDegrees: 8 + (column + fx) / 1200)
            // On the edge the lerp reaches the edge posts up to an ulp from below (32766.999999999996), never above.
            guard case .meters(let edge) = elevation else { Issue.record("\(elevation)"); continue }
            #expect(edge <= 32767 && edge > 32767 - 1e-9, "column \(column) fx \(fx): \(edge)")
            let inside = try terrain.elevationMeters(latitudeDegrees: 47 - 0.3 / 1200, longitudeDegrees: 8 + (column + fx) / 1200)
            guard case .meters(let m) = inside else { Issue.record("\(inside)"); continue }
            #expect(m >= -32652 && m <= 32767, "\(m)")
        }
    }

    @Test("tile edges: a position on an edge is answered by whichever neighbour is present")
    func edges() throws {
        let dir = try TileDirectory()
        try dir.writeTile("N47E008.hgt", posts: 1201) { r, c in Int16(1000 + c - r) }
        let terrain = try TerrainDirectory(path: dir.path)
        // North edge (lat 48) belongs to the missing N48E008 first, then falls back to N47E008's row 0.
        #expect(try terrain.elevationMeters(latitudeDegrees: 48, longitudeDegrees: 8.5) == .meters(1000 + 600))
        // East edge (lon 9) belongs to the missing N47E009 first, then N47E008's last column.
        #expect(try terrain.elevationMeters(latitudeDegrees: 47.5, longitudeDegrees: 9) == .meters(1000 + 1200 - 600))
        // North-east corner.
        #expect(try terrain.elevationMeters(latitudeDegrees: 48, longitudeDegrees: 9) == .meters(1000 + 1200))
        // Just outside: no tile.
        #expect(try terrain.elevationMeters(latitudeDegrees: 48.000001, longitudeDegrees: 8.5) == .noTile)
        #expect(try terrain.elevationMeters(latitudeDegrees: 47.5, longitudeDegrees: 9.000001) == .noTile)
        #expect(try terrain.elevationMeters(latitudeDegrees: 46.999999, longitudeDegrees: 8.5) == .noTile)
    }

    @Test("shared edges: both tiles give the same value; the south-west tile owns the edge when both exist")
    func sharedEdges() throws {
        let dir = try TileDirectory()
        // One global function of the post so the overlapping edge rows/columns agree.
        func global(_ lat: Int, _ lon: Int) -> Int16 { Int16(truncatingIfNeeded: (lat * 7 + lon * 3) % 20000) }
        try dir.writeTile("N47E008.hgt", posts: 1201) { r, c in global(48 * 1200 - r, 8 * 1200 + c) }
        try dir.writeTile("N48E008.hgt", posts: 1201) { r, c in global(49 * 1200 - r, 8 * 1200 + c) }
        try dir.writeTile("N47E009.hgt", posts: 1201) { r, c in global(48 * 1200 - r, 9 * 1200 + c) }
        let terrain = try TerrainDirectory(path: dir.path)
        for lon in stride(from: 8.0, through: 9.0, by: 0.0137) {
            let value = try terrain.elevationMeters(latitudeDegrees: 48, longitudeDegrees: lon)
            let below = try terrain.elevationMeters(latitudeDegrees: 48 - 1e-12, longitudeDegrees: lon)
            #expect(meters(value) != nil && abs(meters(value)! - meters(below)!) < 1e-6)
        }
        for lat in stride(from: 47.0, through: 48.0, by: 0.0137) {
            let value = try terrain.elevationMeters(latitudeDegrees: lat, longitudeDegrees: 9)
            let west = try terrain.elevationMeters(latitudeDegrees: lat, longitudeDegrees: 9 - 1e-12)
            #expect(meters(value) != nil && abs(meters(value)! - meters(west)!) < 1e-6)
        }
    }

    @Test("poles and the antimeridian: lat ±90, lon ±180")
    func polesAndAntimeridian() throws {
        let dir = try TileDirectory()
        try dir.writeTile("N89E179.hgt", posts: 1201) { r, c in Int16(r == 0 && c == 1200 ? 42 : 10) }
        try dir.writeTile("S90W180.hgt", posts: 1201) { r, c in Int16(r == 1200 && c == 0 ? -42 : 20) }
        let terrain = try TerrainDirectory(path: dir.path)
        #expect(try terrain.elevationMeters(latitudeDegrees: 90, longitudeDegrees: 180) == .meters(42))
        #expect(try terrain.elevationMeters(latitudeDegrees: -90, longitudeDegrees: -180) == .meters(-42))
        #expect(try terrain.elevationMeters(latitudeDegrees: 90, longitudeDegrees: 179.5) == .meters(10))
        #expect(try terrain.elevationMeters(latitudeDegrees: -90, longitudeDegrees: -179.5) == .meters(20))
        // No tile at the other end of the antimeridian / pole row.
        #expect(try terrain.elevationMeters(latitudeDegrees: 90, longitudeDegrees: -180) == .noTile)
        #expect(try terrain.elevationMeters(latitudeDegrees: -90, longitudeDegrees: 180) == .noTile)
    }

    @Test("file names: upper and lower case, S/W hemispheres; other names ignored")
    func fileNames() throws {
        #expect(TerrainDirectory.tileCorner(fileName: "N47E008.hgt")! == (47, 8))
        #expect(TerrainDirectory.tileCorner(fileName: "s12w077.hgt")! == (-12, -77))
        #expect(TerrainDirectory.tileCorner(fileName: "S90W180.HGT")! == (-90, -180))
        for bad in ["N47E008.hgt.zip", "N90E000.hgt", "N00E180.hgt", "S00E010.hgt", "N10W000.hgt", "X47E008.hgt",
                    "N4xE008.hgt", "N47E08.hgt", "readme.txt", "N47E008.tif"] {
            #expect(TerrainDirectory.tileCorner(fileName: bad) == nil, "\(bad)")
        }
        #expect(TerrainDirectory.tileFileName(southLatitude: -12, westLongitude: -77) == "S12W077.hgt")
        #expect(TerrainDirectory.tileFileName(southLatitude: 0, westLongitude: 8) == "N00E008.hgt")
        let dir = try TileDirectory()
        try dir.writeTile("s13w078.hgt", posts: 1201) { _, _ in 321 }
        try dir.writeBytes("notes.txt", count: 10)
        let terrain = try TerrainDirectory(path: dir.path)
        #expect(terrain.tileCount == 1)
        #expect(try terrain.elevationMeters(latitudeDegrees: -12.5, longitudeDegrees: -77.5) == .meters(321))
    }

    @Test("bad tiles: wrong size and truncated files are typed errors naming the file and the size")
    func badTiles() throws {
        let dir = try TileDirectory()
        try dir.writeBytes("N10E010.hgt", count: 1000)
        try dir.writeBytes("N11E010.hgt", count: SRTMTileSize.oneArcSecond.byteCount - 2)
        try dir.writeBytes("N12E010.hgt", count: 0)
        let terrain = try TerrainDirectory(path: dir.path)
        for (lat, bytes) in [(10.5, 1000), (11.5, SRTMTileSize.oneArcSecond.byteCount - 2), (12.5, 0)] {
            do {
                _ = try terrain.elevationMeters(latitudeDegrees: lat, longitudeDegrees: 10.5)
                Issue.record("no error for a \(bytes)-byte tile")
            } catch {
                guard case .wrongSize(let file, let found) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(found == bytes)
                #expect(file.hasSuffix("N\(Int(lat))E010.hgt"))
                #expect(error.description.contains("25934402 bytes (1″"))
                #expect(error.description.contains("2884802 bytes (3″"))
            }
        }
        // Other tiles in the same directory still work.
        try dir.writeTile("N13E010.hgt", posts: 1201) { _, _ in 5 }
        let again = try TerrainDirectory(path: dir.path)
        #expect(try again.elevationMeters(latitudeDegrees: 13.5, longitudeDegrees: 10.5) == .meters(5))
    }

    @Test("unreadable tile (a dangling symbolic link): a typed error naming the file")
    func unreadableTile() throws {
        let dir = try TileDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/N10E010.hgt", withDestinationPath: dir.path + "/gone")
        let terrain = try TerrainDirectory(path: dir.path)
        do {
            _ = try terrain.elevationMeters(latitudeDegrees: 10.5, longitudeDegrees: 10.5)
            Issue.record("no error for a dangling tile link")
        } catch {
            guard case .unreadable(let file, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(file == dir.path + "/N10E010.hgt")
        }
    }

    @Test("missing directory, a file instead of a directory, cache size 0")
    func badDirectory() throws {
        #expect(throws: TerrainError.directoryMissing(path: "/nonexistent/eddy-dem")) {
            try TerrainDirectory(path: "/nonexistent/eddy-dem")
        }
        let dir = try TileDirectory()
        try dir.writeBytes("file", count: 3)
        #expect(throws: TerrainError.directoryMissing(path: dir.path + "/file")) {
            try TerrainDirectory(path: dir.path + "/file")
        }
        #expect(throws: TerrainError.invalidCacheSize(tiles: 0)) { try TerrainDirectory(path: dir.path, cacheTiles: 0) }
        #expect(TerrainError.directoryMissing(path: "/x").description.contains("/x: DEM directory not found"))
    }

    @Test("non-finite and out-of-range coordinates are typed errors", arguments: [
        (Double.nan, 0.0), (0.0, Double.nan), (Double.infinity, 0.0), (0.0, -Double.infinity),
        (90.0000001, 0.0), (-90.5, 0.0), (0.0, 180.0000001), (0.0, -181.0), (1e300, 1e300),
    ])
    func badCoordinates(latitude: Double, longitude: Double) throws {
        let dir = try TileDirectory()
        let terrain = try TerrainDirectory(path: dir.path)
        #expect(throws: TerrainError.self) {
            try terrain.elevationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude)
        }
    }

    @Test("bounded cache: never more than cacheTiles mapped; evicted tiles reload with the same values")
    func boundedCache() throws {
        let dir = try TileDirectory()
        for i in 0..<6 {
            try dir.writeTile(TerrainDirectory.tileFileName(southLatitude: 40, westLongitude: i), posts: 1201) { _, _ in
                Int16(100 * i)
            }
        }
        let terrain = try TerrainDirectory(path: dir.path, cacheTiles: 2)
        #expect(terrain.tileCount == 6)
        for round in 0..<3 {
            for i in 0..<6 {
                let value = try terrain.elevationMeters(latitudeDegrees: 40.5, longitudeDegrees: Double(i) + 0.5)
                #expect(value == .meters(Double(100 * i)), "round \(round) tile \(i)")
                #expect(terrain.mappedTileCount <= 2)
            }
        }
        #expect(terrain.mappedTileCount == 2)
    }

    @Test("concurrent lookups over more tiles than the cache holds agree with sequential ones")
    func concurrent() async throws {
        let dir = try TileDirectory()
        for i in 0..<4 {
            try dir.writeTile(TerrainDirectory.tileFileName(southLatitude: -5, westLongitude: i), posts: 1201) { r, c in
                Int16(i * 1000 + (r + c) % 997)
            }
        }
        let terrain = try TerrainDirectory(path: dir.path, cacheTiles: 2)
        var points: [(Double, Double)] = []
        for k in 0..<400 {
            let latitude = -5.0 + Double(k % 97) / 97.0
            let longitude = Double(k % 4) + Double(k % 89) / 89.0
            points.append((latitude, longitude))
        }
        let fixedPoints = points
        let sequential = try points.map { try terrain.elevationMeters(latitudeDegrees: $0.0, longitudeDegrees: $0.1) }
        let results = try await withThrowingTaskGroup(of: (Int, [TerrainElevation]).self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let order = worker % 2 == 0 ? Array(fixedPoints.indices) : Array(fixedPoints.indices.reversed())
                    var out = [TerrainElevation](repeating: .noTile, count: fixedPoints.count)
                    for i in order {
                        out[i] = try terrain.elevationMeters(
                            latitudeDegrees: fixedPoints[i].0, longitudeDegrees: fixedPoints[i].1)
                    }
                    return (worker, out)
                }
            }
            var all: [[TerrainElevation]] = []
            for try await (_, out) in group { all.append(out) }
            return all
        }
        for out in results { #expect(out == sequential) }
        #expect(terrain.mappedTileCount <= 2)
    }

    @Test("height above terrain: MSL minus terrain; uncertainties add in quadrature")
    func heightAboveTerrain() throws {
        let terrain = TerrainElevation.meters(500)
        let noAltitudeError = try #require(terrain.heightAboveTerrain(mslMeters: 1500, uMSL68Meters: 0))
        #expect(noAltitudeError.meters == 1000)
        #expect(abs(noAltitudeError.uncertainty90Meters - 16) < 1e-9)
        #expect(abs(noAltitudeError.uncertainty68Meters - 16 / 1.6448536269514722 * 0.994457883209753) < 1e-9)
        // σ_alt = 20 / z68, σ_dem = 16 / z90: 68 % half-width = z68 · sqrt(σ_alt² + σ_dem²).
        let hat = try #require(terrain.heightAboveTerrain(mslMeters: 400, uMSL68Meters: 20))
        #expect(hat.meters == -100)
        let sigma = ((20 / 0.994457883209753) * (20 / 0.994457883209753) + (16 / 1.6448536269514722) * (16 / 1.6448536269514722)).squareRoot()
        #expect(abs(hat.uncertainty68Meters - 0.994457883209753 * sigma) < 1e-9)
        #expect(abs(hat.uncertainty90Meters - 1.6448536269514722 * sigma) < 1e-9)
        #expect(hat.uncertainty68Meters > 20 && hat.uncertainty90Meters > hat.uncertainty68Meters)
        // A better DEM figure can be passed in.
        let better = try #require(terrain.heightAboveTerrain(mslMeters: 1500, uMSL68Meters: 0, demLE90Meters: 6.2))
        #expect(abs(better.uncertainty90Meters - 6.2) < 1e-9)
        // No terrain value, or bad input: nil.
        #expect(TerrainElevation.void.heightAboveTerrain(mslMeters: 1000, uMSL68Meters: 5) == nil)
        #expect(TerrainElevation.noTile.heightAboveTerrain(mslMeters: 1000, uMSL68Meters: 5) == nil)
        #expect(terrain.heightAboveTerrain(mslMeters: .nan, uMSL68Meters: 5) == nil)
        #expect(terrain.heightAboveTerrain(mslMeters: 1000, uMSL68Meters: -1) == nil)
        #expect(terrain.heightAboveTerrain(mslMeters: 1000, uMSL68Meters: .infinity) == nil)
    }
}
