import EddyH3
import EddyStore
import EddySupport
import EddyVocabulary
import Foundation

/// Why the separate process that opens and queries a store failed.
enum StoreBenchError: Error, CustomStringConvertible {
    /// It exited with `status`; `output` is what it printed.
    case userProcessFailed(status: Int32, output: String)

    /// A sentence for stderr.
    var description: String {
        switch self {
        case let .userProcessFailed(status, output): "the store-opening process exited with status \(status) after printing:\n\(output)"
        }
    }
}

/// Store benchmarks: ingest rate, open time, peak memory, corridor and viewport query medians over 1,000,000 and
/// 5,000,000 cached reports.
///
/// Data: 1,000,000 server reports (seeded) spread uniformly over North America (20–65°N, 130–60°W) and the North
/// Atlantic (35–65°N, 60–10°W), 60 % at cruise layers 30–41 and 40 % at any layer 0–45, exit times uniform over
/// the last 6 h, EDR mostly smooth with a long tail. Queries use the default parameters (2 h history window,
/// worst per tile, medium viewer); the viewport query also runs with the 6 h window (every cached report) for
/// information. Open time, memory and queries are measured in a separate process that opens the closed store.
enum StoreBenchmarks {
    /// Target ingest rate, reports per second.
    static let ingestTargetPerSecond = 200_000.0
    /// Target corridor query median, ms.
    static let corridorTargetMs = 5.0
    /// Target viewport query median, ms.
    static let viewportTargetMs = 10.0

    /// Target open time of a store of 1,000,000 reports, ms.
    static let openTargetMs = 150.0
    /// Target peak resident memory of a process using a store of 1,000,000 reports, MiB.
    static let peakRSSTargetMB = 60.0

    /// Runs the group and prints its figures: the 1 M store (ingest, open, memory, queries, purge), then the same
    /// at 5 M reports (`EDDY_BENCH_STORE_LARGE_REPORTS`, 0 to skip). `EDDY_BENCH_STORE_REPORTS` sets the first count.
    static func run() throws {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["EDDY_BENCH_STORE_OPEN_PATH"] {
            try runUser(path: path, prefix: environment["EDDY_BENCH_STORE_PREFIX"] ?? "store_",
                        queryRuns: Int(environment["EDDY_BENCH_STORE_QUERY_RUNS"] ?? "") ?? 101)
            return
        }
        let reportCount = Int(environment["EDDY_BENCH_STORE_REPORTS"] ?? "") ?? 1_000_000
        let largeCount = Int(environment["EDDY_BENCH_STORE_LARGE_REPORTS"] ?? "") ?? 5_000_000
        print("# load average at start: \(format(loadAverage())) on \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("# ratio lines: measured against the issue's target, ≥ 1 means the target is met")
        try runStore(reportCount: reportCount, prefix: "store_", queryRuns: 101, withTargets: true)
        if largeCount > 0 {
            try runStore(reportCount: largeCount, prefix: "store_\(largeCount / 1_000_000)m_", queryRuns: 21, withTargets: false)
        }
        print("# load average at end: \(format(loadAverage()))")
    }

    /// Fills a fresh store with `reportCount` reports (timed ingest), has a separate process open it and query it
    /// (open time, resident memory, query medians), then purges it one hour later (timed).
    static func runStore(reportCount: Int, prefix: String, queryRuns: Int, withTargets: Bool) throws {
        let batchSize = 10_000
        var random = SplitMix64(seed: 0x5EED_4EDD)
        let generationStart = Date()
        let observations = try makeObservations(count: reportCount, now: benchNow, random: &random)
        print("# generated \(reportCount) reports in \(format(Date().timeIntervalSince(generationStart))) s")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-store-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("bench.sqlite").path
        let store = try EddyStore.open(path: path)

        // Ingest: every batch is one transaction.
        let ingestCPUStart = threadCPUNanoseconds()
        let ingestStart = DispatchTime.now().uptimeNanoseconds
        var offset = 0
        while offset < observations.count {
            let end = min(offset + batchSize, observations.count)
            try store.upsertObservations(Array(observations[offset..<end]))
            offset = end
        }
        let ingestSeconds = Double(DispatchTime.now().uptimeNanoseconds - ingestStart) / 1e9
        let ingestRate = Double(observations.count) / ingestSeconds
        print("\(prefix)ingest_reports_per_s: \(Int(ingestRate))")
        if withTargets { print("\(prefix)ingest_reports_per_s_target_ratio: \(format(ingestRate / ingestTargetPerSecond))") }
        let ingestCPUSeconds = Double(threadCPUNanoseconds() - ingestCPUStart) / 1e9
        print("\(prefix)ingest_reports_per_cpu_s: \(Int(Double(observations.count) / ingestCPUSeconds))")
        try store.close()
        let fileMB = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_048_576
        print("\(prefix)file_mb: \(format(fileMB))")

        // A separate process opens the closed store (its files stay in the OS cache) and queries it: its open time
        // and peak resident memory are the store's, not those of the reports this process generated.
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment["EDDY_BENCH_STORE_OPEN_PATH"] = path
        childEnvironment["EDDY_BENCH_STORE_PREFIX"] = prefix
        childEnvironment["EDDY_BENCH_STORE_QUERY_RUNS"] = String(queryRuns)
        let (status, lines) = try BenchSupport.runCapturingOutput(
            Bundle.main.executablePath ?? CommandLine.arguments[0], arguments: ["store"], environment: childEnvironment)
        guard status == 0 else { throw StoreBenchError.userProcessFailed(status: status, output: lines) }
        for line in lines.split(separator: "\n") {
            print(line)
            guard withTargets else { continue }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            switch parts[0] {
            case "\(prefix)open_ms": print("\(prefix)open_ms_target_ratio: \(format(openTargetMs / value))")
            case "\(prefix)peak_rss_mb": print("\(prefix)peak_rss_mb_target_ratio: \(format(peakRSSTargetMB / value))")
            case "\(prefix)corridor_query_ms_median": print("\(prefix)corridor_query_ms_median_target_ratio: \(format(corridorTargetMs / value))")
            case "\(prefix)viewport_query_ms_median": print("\(prefix)viewport_query_ms_median_target_ratio: \(format(viewportTargetMs / value))")
            default: break
            }
        }

        // Expiry one hour later: about a sixth of the reports pass the 6 h limit.
        let reopened = try EddyStore.open(path: path)
        let (purged, purgeMs) = try timed { try reopened.purgeExpired(now: benchNow + 3600) }
        print("\(prefix)purge_ms: \(format(purgeMs))")
        print("\(prefix)purge_cpu_ms: \(format(lastCPUMs))")
        print("\(prefix)purge_removed: \(purged.observations)")
        try reopened.close()
    }

    /// The "now" of the generated data.
    static let benchNow = 1_800_000_000.0

    /// The separate process: opens the store at `path`, runs the corridor and viewport queries, then ingests one
    /// more batch of 10,000 new reports (so the writer's structures count too), and prints its figures with its
    /// peak resident memory (`VmHWM`: the high-water mark of the whole process, from exec to the end).
    static func runUser(path: String, prefix: String, queryRuns: Int) throws {
        var random = SplitMix64(seed: 0xC0FF_EE00)
        let (store, openMs) = try timed { try EddyStore.open(path: path) }
        print("\(prefix)open_ms: \(format(openMs))")
        print("\(prefix)open_cpu_ms: \(format(lastCPUMs))")
        print("\(prefix)rss_after_open_mb: \(format(Double(procStatusKiB("VmRSS") ?? 0) / 1024))")
        let count = try store.observationCount()
        print("# \(count) reports in the store")

        // Corridor: a 1,000 NM route (4 legs), 20 NM each side, ±2 layers around a cruise layer.
        var corridorMs: [Double] = []
        var corridorRows: [Int] = []
        var corridorCPUMs: [Double] = []
        for run in 0..<(queryRuns + 5) {
            let route = randomRoute(lengthNM: 1000, legs: 4, random: &random)
            let layer = Int.random(in: 32...38, using: &random)
            let query = TurbulenceQuery(
                area: .route(route, widthNM: 20), altitudeRangeFeet: (layer - 2) * 1000...(layer + 2) * 1000, now: benchNow)
            let (items, ms) = try timed { try store.turbulence(query) }
            if run >= 5 { corridorMs.append(ms); corridorCPUMs.append(lastCPUMs); corridorRows.append(items.count) }
        }
        print("\(prefix)corridor_query_ms_median: \(format(median(corridorMs)))")
        print("\(prefix)corridor_query_ms_p90: \(format(percentile(corridorMs, 0.9)))")
        print("\(prefix)corridor_query_cpu_ms_median: \(format(median(corridorCPUMs)))")
        print("\(prefix)corridor_query_tiles_median: \(Int(median(corridorRows.map(Double.init))))")

        // Viewport: 500 × 500 NM, every altitude; default 2 h window, then the 6 h window.
        for (window, suffix) in [(HistoryWindow.twoHours, ""), (.sixHours, "_6h_window")] {
            var viewportMs: [Double] = []
            var viewportRows: [Int] = []
            var viewportCPUMs: [Double] = []
            for run in 0..<(queryRuns + 5) {
                let viewport = randomViewport(sideNM: 500, random: &random)
                let query = TurbulenceQuery(area: .polygon(viewport), historyWindow: window, now: benchNow)
                let (items, ms) = try timed { try store.turbulence(query) }
                if run >= 5 { viewportMs.append(ms); viewportCPUMs.append(lastCPUMs); viewportRows.append(items.count) }
            }
            print("\(prefix)viewport_query\(suffix)_ms_median: \(format(median(viewportMs)))")
            print("\(prefix)viewport_query\(suffix)_ms_p90: \(format(percentile(viewportMs, 0.9)))")
            print("\(prefix)viewport_query\(suffix)_cpu_ms_median: \(format(median(viewportCPUMs)))")
            print("\(prefix)viewport_query\(suffix)_tiles_median: \(Int(median(viewportRows.map(Double.init))))")
        }

        // One more server batch: the first write builds the writer's id filter (a scan of the blocks).
        let batch = try makeObservations(count: 10_000, now: benchNow, random: &random)
        let (_, batchMs) = try timed { try store.upsertObservations(batch) }
        print("\(prefix)first_batch_after_open_ms: \(format(batchMs))")
        print("\(prefix)first_batch_after_open_cpu_ms: \(format(lastCPUMs))")
        try store.close()
        print("\(prefix)peak_rss_mb: \(format(Double(procStatusKiB("VmHWM") ?? 0) / 1024))")
    }

    /// A field of /proc/self/status in KiB (Linux; nil elsewhere).
    static func procStatusKiB(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }

    // MARK: - Data


    /// A point uniform in area over North America or the North Atlantic (weighted by box area).
    static func randomPoint(random: inout SplitMix64) -> LatLng {
        // (south, north, west, east) boxes.
        let northAmerica = (20.0, 65.0, -130.0, -60.0)
        let northAtlantic = (35.0, 65.0, -60.0, -10.0)
        func area(_ box: (Double, Double, Double, Double)) -> Double {
            (sin(box.1 * .pi / 180) - sin(box.0 * .pi / 180)) * (box.3 - box.2)
        }
        let box = Double.random(in: 0..<1, using: &random) < area(northAmerica) / (area(northAmerica) + area(northAtlantic))
            ? northAmerica : northAtlantic
        let sine = Double.random(in: sin(box.0 * .pi / 180)...sin(box.1 * .pi / 180), using: &random)
        return LatLng(latitude: asin(sine) * 180 / .pi, longitude: Double.random(in: box.2...box.3, using: &random))
    }

    static func makeObservations(count: Int, now: Double, random: inout SplitMix64) throws -> [ServerObservation] {
        let classes = AircraftClass.allCases
        var result: [ServerObservation] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let point = randomPoint(random: &random)
            let cell = try H3.latLngToCell(latitude: point.latitude, longitude: point.longitude, resolution: TileID.h3Resolution)
            let layer = Double.random(in: 0..<1, using: &random) < 0.6
                ? Int.random(in: 30...41, using: &random) : Int.random(in: 0...45, using: &random)
            let exit = now - Double.random(in: 0..<(6 * 3600), using: &random)
            // 70 % smooth (< 0.1), the rest exponential above 0.1 (mean 0.08).
            let edrPeak = Double.random(in: 0..<1, using: &random) < 0.7
                ? Double.random(in: 0..<0.1, using: &random)
                : 0.1 - 0.08 * log(1 - Double.random(in: 0..<1, using: &random))
            var bytes = (random.next(), random.next())
            let id = withUnsafeBytes(of: &bytes) { raw in
                UUID(uuid: raw.load(as: uuid_t.self))
            }
            result.append(ServerObservation(
                report: TileReport(
                    id: id, tile: TileID(h3: cell.rawValue, layer: layer), enterTime: exit - 45, exitTime: exit,
                    edrPeak: edrPeak, edrMedian: edrPeak * 0.4, reporterClass: classes[index % classes.count]),
                reporterID: "r\(random.next() % 5000)", source: "eddy"))
        }
        return result
    }

    /// The point `distanceNM` from `start` along the initial `bearingDegrees` (great circle, EddyVocabulary's Geodesy).
    static func destination(_ start: LatLng, bearingDegrees: Double, distanceNM: Double) -> LatLng {
        let end = Geodesy.destination(from: (start.latitude, start.longitude), bearingDegrees: bearingDegrees, distanceNM: distanceNM)
        return LatLng(latitude: end.latitude, longitude: end.longitude)
    }

    /// A route of `lengthNM` in `legs` legs with small heading changes, starting inside the data.
    static func randomRoute(lengthNM: Double, legs: Int, random: inout SplitMix64) -> [LatLng] {
        var point = LatLng(latitude: Double.random(in: 30...50, using: &random), longitude: Double.random(in: -120 ... -70, using: &random))
        var bearing = Double.random(in: 45...135, using: &random)
        var route = [point]
        for _ in 0..<legs {
            point = destination(point, bearingDegrees: bearing, distanceNM: lengthNM / Double(legs))
            route.append(point)
            bearing += Double.random(in: -15...15, using: &random)
        }
        return route
    }

    /// A `sideNM` × `sideNM` viewport (lat/lon rectangle) centred inside the data, counter-clockwise.
    static func randomViewport(sideNM: Double, random: inout SplitMix64) -> [LatLng] {
        let centre = LatLng(latitude: Double.random(in: 28...58, using: &random), longitude: Double.random(in: -120 ... -20, using: &random))
        let halfLatitude = sideNM / 2 / 60
        let halfLongitude = halfLatitude / cos(centre.latitude * .pi / 180)
        return [
            LatLng(latitude: centre.latitude - halfLatitude, longitude: centre.longitude - halfLongitude),
            LatLng(latitude: centre.latitude - halfLatitude, longitude: centre.longitude + halfLongitude),
            LatLng(latitude: centre.latitude + halfLatitude, longitude: centre.longitude + halfLongitude),
            LatLng(latitude: centre.latitude + halfLatitude, longitude: centre.longitude - halfLongitude),
        ]
    }

    // MARK: - Timing

    /// Runs `body`; returns its value and the wall-clock milliseconds (CPU milliseconds of this thread go to
    /// `lastCPUMs`: the machine is shared, so wall time includes waiting for a core).
    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let cpuStart = threadCPUNanoseconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        lastCPUMs = Double(threadCPUNanoseconds() - cpuStart) / 1e6
        return (value, wall)
    }

    nonisolated(unsafe) static var lastCPUMs = 0.0

    /// CPU time used by the calling thread, ns (GRDB runs sync database work on the calling thread).
    static func threadCPUNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// The 1-minute load average (how busy the shared machine was).
    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : .nan
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
