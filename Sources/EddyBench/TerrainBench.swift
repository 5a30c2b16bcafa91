import EddyTerrain
import Foundation

/// Terrain benchmarks (release build), on synthetic SRTM tiles written to a temporary directory:
/// - `terrain_lookups_per_s`: bilinear lookups per CPU second at random points on one cached 1″ tile (target ≥ 5 M).
/// - `terrain_cache_rss_mb_50_tiles`: peak RSS (VmHWM) of `eddy terrain elevation --dem DIR` (default cache, 8 tiles)
///   fed 20,000 random points in each of 50 1″ tiles in turn, so every tile is mapped and most of its pages touched.
enum TerrainBenchmarks {
    /// Throughput target, lookups per second.
    static let lookupsTarget = 5_000_000.0

    /// Deterministic xorshift generator so every run measures the same inputs.


    /// Writes a 1″ tile of smooth synthetic terrain (big-endian Int16) with its south-west corner at (south, west).
    private static func writeOneArcSecondTile(directory: String, south: Int, west: Int) throws {
        let posts = 3601
        var bytes = [UInt8](repeating: 0, count: posts * posts * 2)
        for row in 0..<posts {
            for column in 0..<posts {
                let value = Int16(truncatingIfNeeded: 800 + (row * 7 + column * 3 + south * 11 + west) % 1500)
                let offset = (row * posts + column) * 2
                bytes[offset] = UInt8(truncatingIfNeeded: UInt16(bitPattern: value) >> 8)
                bytes[offset + 1] = UInt8(truncatingIfNeeded: UInt16(bitPattern: value))
            }
        }
        let name = TerrainDirectory.tileFileName(southLatitude: south, westLongitude: west)
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
    }

    static func run() throws {
        let directory = NSTemporaryDirectory() + "eddy-bench-terrain-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // Lookups on one cached 1″ tile.
        try writeOneArcSecondTile(directory: directory, south: 47, west: 8)
        let terrain = try TerrainDirectory(path: directory)
        var random = BenchSupport.XorShift(state: 0x9E37_79B9_7F4A_7C15)
        let count = 1_000_000
        let points = (0..<count).map { _ in (47 + random.unit(), 8 + random.unit()) }
        var bestCPU = Double.infinity
        var bestWall = Double.infinity
        var checksum = 0.0
        for _ in 0..<5 {
            let wall0 = DispatchTime.now().uptimeNanoseconds
            let cpu0 = BenchSupport.threadCPUSeconds()
            var sum = 0.0
            for (latitude, longitude) in points {
                if case .meters(let m) = try terrain.elevationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude) {
                    sum += m
                }
            }
            bestCPU = min(bestCPU, BenchSupport.threadCPUSeconds() - cpu0)
            bestWall = min(bestWall, Double(DispatchTime.now().uptimeNanoseconds - wall0) / 1e9)
            checksum += sum
        }
        let rate = Double(count) / bestCPU
        print("terrain_lookups_per_s: \(Int(rate))")
        print("terrain_lookups_per_s_wall: \(Int(Double(count) / bestWall))")
        print("terrain_lookups_per_s_target_ratio: \(ReplayBenchmarks.format(rate / lookupsTarget, 2))")

        // Peak RSS of the CLI touching 50 tiles with the default cache.
        guard let eddy = ReplayBenchmarks.siblingExecutable("eddy") else {
            print("# terrain_cache_rss_mb_50_tiles: skipped, no eddy executable next to eddy-bench")
            print("# checksum \(checksum != 0)")
            return
        }
        for index in 1..<50 {
            try writeOneArcSecondTile(directory: directory, south: 47 + index / 10, west: 8 + index % 10)
        }
        var input = ""
        input.reserveCapacity(50 * 20_000 * 40)
        for index in 0..<50 {
            let south = 47 + index / 10
            let west = 8 + index % 10
            for _ in 0..<20_000 {
                input += "\(Double(south) + random.unit()),\(Double(west) + random.unit())\n"
            }
        }
        let inputPath = directory + "/points.txt"
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        let peakMB = try peakRSSMB(executable: eddy, arguments: ["terrain", "elevation", "--dem", directory],
                                   stdinPath: inputPath)
        print("terrain_cache_rss_mb_50_tiles: \(ReplayBenchmarks.format(peakMB, 1))")
        print("# terrain: 1M lookups best of 5 rounds (CPU time); RSS bound = 8 mapped 1″ tiles × 24.7 MiB + process; checksum \(checksum != 0)")
    }

    /// Runs `executable` with stdin from `stdinPath` and stdout to /dev/null; returns its peak RSS (VmHWM, polled
    /// from /proc/PID/status, see ReplayBenchmarks.measureChild for why not getrusage) in MiB.
    private static func peakRSSMB(executable: String, arguments: [String], stdinPath: String) throws -> Double {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = arguments
        child.standardInput = FileHandle(forReadingAtPath: stdinPath)
        child.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        let peakKB = BenchSupport.waitForPeakRSSKilobytes(child)
        guard child.terminationStatus == 0 else {
            throw ReplayBenchError("eddy \(arguments.joined(separator: " ")) exited with \(child.terminationStatus)")
        }
        return Double(peakKB) / 1024
    }
}
