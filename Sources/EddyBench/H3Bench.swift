import EddyH3
import Foundation

/// H3 benchmarks: throughput of the hot EddyH3 calls on random global inputs (release build).
enum H3Benchmarks {
    /// Deterministic xorshift generator so every run measures the same inputs.


    /// Best-of-`rounds` rates (CPU-time based, wall-clock based) in operations per second of `body`, which
    /// performs `count` operations, plus a checksum of its results.
    private static func rate(count: Int, rounds: Int = 5,
                             _ body: () throws -> UInt64) rethrows -> (cpu: Double, wall: Double, sink: UInt64) {
        var bestCPU = Double.infinity
        var bestWall = Double.infinity
        var sink: UInt64 = 0
        for _ in 0..<rounds {
            let wall0 = DispatchTime.now().uptimeNanoseconds
            let cpu0 = BenchSupport.threadCPUSeconds()
            sink ^= try body()
            bestCPU = min(bestCPU, BenchSupport.threadCPUSeconds() - cpu0)
            bestWall = min(bestWall, Double(DispatchTime.now().uptimeNanoseconds - wall0) / 1e9)
        }
        return (Double(count) / bestCPU, Double(count) / bestWall, sink)
    }

    /// Prints `name: cpu-rate` and `name_wall: wall-rate`.
    private static func report(_ name: String, _ r: (cpu: Double, wall: Double, sink: UInt64)) {
        print("\(name): \(Int(r.cpu))")
        print("\(name)_wall: \(Int(r.wall))")
    }

    /// Runs the group and prints its figures.
    static func run() throws {
        let n = 1_000_000
        var rng = BenchSupport.XorShift(state: 0x9E37_79B9_7F4A_7C15)
        var lats = [Double](repeating: 0, count: n)
        var lngs = [Double](repeating: 0, count: n)
        for i in 0..<n {
            lats[i] = asin(rng.unit() * 2 - 1) * 180 / Double.pi  // uniform on the sphere
            lngs[i] = rng.unit() * 360 - 180
        }

        let cellRate = try rate(count: n) {
            var acc: UInt64 = 0
            for i in 0..<n {
                acc ^= try H3.latLngToCell(latitude: lats[i], longitude: lngs[i], resolution: 5).rawValue
            }
            return acc
        }
        report("h3_latlng_to_cell_per_s", cellRate)
        print("h3_latlng_to_cell_target_per_s: 2700000")

        var cells = [H3Index]()
        cells.reserveCapacity(n)
        for i in 0..<n { cells.append(try H3.latLngToCell(latitude: lats[i], longitude: lngs[i], resolution: 5)) }

        let centreRate = try rate(count: n) {
            var acc: UInt64 = 0
            for cell in cells { acc ^= try H3.cellToLatLng(cell).latitude.bitPattern }
            return acc
        }
        report("h3_cell_to_latlng_per_s", centreRate)

        let boundaryRate = try rate(count: n) {
            var acc: UInt64 = 0
            for cell in cells {
                let boundary = try H3.cellToBoundary(cell)
                acc ^= boundary[0].latitude.bitPattern &+ UInt64(boundary.count)
            }
            return acc
        }
        report("h3_cell_to_boundary_per_s", boundaryRate)

        let callbackRate = try rate(count: n) {
            var acc: UInt64 = 0
            for cell in cells {
                try H3.forEachBoundaryVertexRadians(cell) { lat, _ in acc ^= lat.bitPattern }
            }
            return acc
        }
        report("h3_boundary_vertices_no_alloc_per_s", callbackRate)
        print("h3_cell_to_boundary_target_per_s: 1000000")

        let diskCount = n / 4
        let diskRate = try rate(count: diskCount) {
            var acc: UInt64 = 0
            for i in 0..<diskCount {
                let disk = try H3.gridDisk(cells[i], k: 1)
                acc ^= disk[disk.count - 1].rawValue
            }
            return acc
        }
        report("h3_grid_disk_k1_per_s", diskRate)
        // Optional side-by-side figure from the C library (built outside the project, see docs/h3.md).
        if let cBench = ProcessInfo.processInfo.environment["EDDY_H3_C_BENCH"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: cBench)
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            for line in output.split(separator: "\n") where line.hasPrefix("c_") { print(line) }
        }
        // Printed so the optimiser cannot drop the work.
        print("# h3 checksum \(String(cellRate.sink ^ centreRate.sink ^ boundaryRate.sink ^ callbackRate.sink ^ diskRate.sink, radix: 16))")
    }
}
