import EddyH3
import Foundation

/// H3 benchmarks: throughput of the hot EddyH3 calls on random global inputs (release build).
enum H3Benchmarks {
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

        // The checksum is the C driver's (scripts/h3_c_bench/h3_c_bench.c), so the two sides can be compared.
        let callbackRate = try rate(count: n) {
            var acc: UInt64 = 0
            for cell in cells {
                let count = try H3.forEachBoundaryVertexRadians(cell) { lat, lng in
                    acc ^= lat.bitPattern ^ (lng.bitPattern << 1)
                }
                acc &+= UInt64(count)
            }
            return acc
        }
        report("h3_boundary_vertices_no_alloc_per_s", callbackRate)

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
        var cellsXor: UInt64 = 0
        for cell in cells { cellsXor ^= cell.rawValue }
        try compareWithC(swiftRates: ["latlng_to_cell": cellRate.cpu, "cell_to_boundary": boundaryRate.cpu,
                                      "boundary_vertices_no_alloc": callbackRate.cpu, "cell_to_latlng": centreRate.cpu,
                                      "grid_disk_k1": diskRate.cpu],
                         cellsXor: cellsXor, boundaryXor: callbackRate.sink, boundarySum: try boundarySum(cells))
        // Printed so the optimiser cannot drop the work.
        print("# h3 checksum \(String(cellRate.sink ^ centreRate.sink ^ boundaryRate.sink ^ callbackRate.sink ^ diskRate.sink, radix: 16))")
    }

    /// Where `scripts/build_h3_c_bench.sh` puts the C library's driver (overridden by `EDDY_H3_C_BENCH`).
    static let defaultCBenchPath = ".build/h3-c/h3_c_bench"

    /// The goal of issue 29 for latLngToCell and cellToBoundary: this many times the C library's rate, same run.
    static let ratioTarget = 1.3

    /// Runs uber/h3 4.5.0's C library on the same inputs (scripts/build_h3_c_bench.sh builds it), prints its rates,
    /// each Swift rate over the C one, and whether both computed the same cells and boundary bits. Without the
    /// driver it says how to build it. `swiftRates` are CPU-time rates keyed by the C driver's names less `c_`/`_per_s`.
    private static func compareWithC(swiftRates: [String: Double], cellsXor: UInt64, boundaryXor: UInt64,
                                     boundarySum: (radians: Double, vertices: Int)) throws {
        let path = ProcessInfo.processInfo.environment["EDDY_H3_C_BENCH"] ?? defaultCBenchPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            print("h3_c_bench: not built (\(path) missing): run `bash scripts/build_h3_c_bench.sh` (gcc -O3 over the "
                  + "h3-py 4.5.0 source distribution's C library, docs/h3.md), then rerun `eddy-bench h3`")
            return
        }
        let (status, output) = try BenchSupport.runCapturingOutput(path)
        guard status == 0 else {
            print("h3_c_bench: failed (\(path) exited with status \(status)); rebuild it with "
                  + "`bash scripts/build_h3_c_bench.sh`")
            return
        }
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("c_") {
            print(line)
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        for name in ["latlng_to_cell", "cell_to_boundary", "boundary_vertices_no_alloc", "cell_to_latlng", "grid_disk_k1"] {
            // The allocation-free Swift call is compared with the same C call as the array-returning one.
            let cName = name == "boundary_vertices_no_alloc" ? "cell_to_boundary" : name
            guard let swiftRate = swiftRates[name], let cRate = values["c_\(cName)_per_s"].flatMap(Double.init),
                  cRate > 0 else { continue }
            print("h3_\(name)_ratio_vs_c: \(String(format: "%.2f", swiftRate / cRate))")
        }
        print("h3_ratio_vs_c_target: \(ratioTarget) (latlng_to_cell, cell_to_boundary)")
        let sameCells = values["c_latlng_to_cell_xor"] == hex16(cellsXor)
        let sameBits = values["c_cell_to_boundary_xor"] == hex16(boundaryXor)
        // Boundary vertices agree within rounding, not bit for bit (docs/h3.md): the same vertex count, and sums of
        // every vertex's latitude + longitude (radians) within `vertexTolerance` per vertex.
        let cSum = values["c_cell_to_boundary_sum"].flatMap(Double.init)
        let sameCount = values["c_cell_to_boundary_vertices"].flatMap(Int.init) == boundarySum.vertices
        let sumDifference = cSum.map { abs($0 - boundarySum.radians) } ?? .infinity
        let sameBoundaries = sameCount && sumDifference <= Double(boundarySum.vertices) * vertexTolerance
        print("h3_same_results_as_c: \(sameCells && sameBoundaries ? "yes" : "NO")"
              + " (cells xor \(hex16(cellsXor)); boundaries: \(boundarySum.vertices) vertices, coordinate sums differ by "
              + "\(sumDifference) rad, bits \(sameBits ? "identical" : "differ within rounding"))")
    }

    /// Largest difference per boundary vertex coordinate from the C library that still counts as the same result,
    /// radians (Tests/EddyH3Tests/IndexingVectorTests holds every vertex of the reference vectors to it).
    static let vertexTolerance = 1e-14

    /// Sum of every boundary vertex's latitude + longitude (radians) of `cells`, and the vertex count (untimed).
    private static func boundarySum(_ cells: [H3Index]) throws -> (radians: Double, vertices: Int) {
        var sum = 0.0, vertices = 0
        for cell in cells {
            vertices += try H3.forEachBoundaryVertexRadians(cell) { lat, lng in sum += lat + lng }
        }
        return (sum, vertices)
    }

    /// 16 lower-case hex digits.
    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
