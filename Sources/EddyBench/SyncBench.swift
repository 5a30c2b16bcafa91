import EddyH3
import EddyProtocol
import EddySupport
import EddySync
import EddyVocabulary
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sync benchmarks against a real `eddy-server` (the release binary next to `eddy-bench`) on loopback.
///
/// - `server_ingest_reports_per_s`: 100,000 reports uploaded in batches of 100 by 4 concurrent clients
///   (one libcurl connection each), wall time from first request to last answer.
/// - `server_delta_fetch_ms_p99`: a 1,000 NM route corridor (±20 NM) holding 10,000 tiles; after a full
///   fetch, 100 new reports arrive and the client asks for the delta since its tick; 200 timed delta fetches.
/// - `server_full_fetch_ms_p99`: the same corridor fetched in full (all 10,000 tiles), 50 times.
/// - `client_sync_cycle_ms`: median of one scheduler step that uploads a 100-report outbox and fetches the
///   route's turbulence delta (in-memory store).
/// - The same ingest and delta figures with a `_postgres` suffix, against an `eddy-server --database postgres://…` on a
///   throw-away cluster (scripts/pg_cluster.sh, PostgreSQL's durable defaults) preloaded with 10 M reports, and
///   `server_reports_stored_postgres`. `EDDY_BENCH_POSTGRES=0` skips that part; `EDDY_BENCH_POSTGRES_PRELOAD` changes
///   the preload (default 10,000,000).
enum SyncBenchmarks {
    /// Runs the group and prints its figures.
    static func run() throws {
        try runSQLite()
        if ProcessInfo.processInfo.environment["EDDY_BENCH_POSTGRES"] != "0" { try PostgresSyncBench.run() }
    }

    /// The SQLite figures (unchanged names).
    static func runSQLite() throws {
        let server = try BenchServer()
        defer { server.stop() }
        let start = Date().timeIntervalSince1970
        let (fullRequest, corridor) = try ingestAndDelta(server: server, suffix: "", start: start)
        let cells = try cellPool(count: 5000)
        let reader = try server.client(userId: "corridor-reader")
        var fullTimes: [Double] = []
        for _ in 0..<50 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let answer = try reader.fetch(fullRequest)
            fullTimes.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            guard answer.observations.count >= 10_000 else { throw BenchError("full corridor fetch returned \(answer.observations.count)") }
        }
        print("server_full_fetch_ms_p99: \(format(percentile(fullTimes, 0.99)))")
        print("server_full_fetch_ms_median: \(format(percentile(fullTimes, 0.5)))")
        // Where a full fetch's time goes: the HTTP exchange (server work + transfer + gunzip) vs JSON decoding.
        let token = try reader.startSession().token
        let body = try JSONEncoder().encode(fullRequest)
        var exchangeTimes: [Double] = [], decodeTimes: [Double] = []
        for _ in 0..<10 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let response = try reader.transport.send(SyncHTTPRequest(
                method: "POST", path: "/v1/fetch", headers: ["Authorization": "Bearer \(token)"], body: body))
            let t1 = DispatchTime.now().uptimeNanoseconds
            // The client's path: the canonical-layout decoder, JSONDecoder when it declines.
            if CanonicalTurbulenceDecoder.decode(response.body) == nil {
                _ = try JSONDecoder().decode(DeltaFetchResponse.self, from: response.body)
            }
            let t2 = DispatchTime.now().uptimeNanoseconds
            exchangeTimes.append(Double(t1 - t0) / 1e6)
            decodeTimes.append(Double(t2 - t1) / 1e6)
        }
        print("full_fetch_http_exchange_ms_median: \(format(percentile(exchangeTimes, 0.5)))")
        print("full_fetch_client_json_decode_ms_median: \(format(percentile(decodeTimes, 0.5)))")

        // Client sync cycle: outbox of 100 + route delta fetch, one scheduler step.
        let clock = ManualEpochClock(start: start)
        let store = InMemorySyncStore()
        let client = try server.client(userId: "cycle", clock: clock)
        let scheduler = SyncScheduler(client: client, store: store, clock: clock)
        try scheduler.setArea(SyncArea(type: .route, polygon: corridor), for: .route)
        scheduler.step()   // first (full) fetch and session, not timed
        var cycleTimes: [Double] = []
        for round in 0..<50 {
            store.enqueue((0..<100).map { i in
                TileReport(id: UUID(), tile: TileID(h3: cells[(round * 100 + i) % cells.count], layer: 30), enterTime: start - 100,
                           exitTime: start - 50, edrPeak: 0.1, edrMedian: 0.05, reporterClass: .medium)
            })
            clock.advance(by: 61)
            let t0 = DispatchTime.now().uptimeNanoseconds
            scheduler.step()
            cycleTimes.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            guard store.pendingCount == 0 else { throw BenchError("sync cycle left \(store.pendingCount) reports pending") }
        }
        print("client_sync_cycle_ms: \(format(percentile(cycleTimes, 0.5)))")
    }

    /// Ingest throughput (100,000 reports, batches of 100, 4 clients) and the corridor delta fetch, printed with
    /// `suffix` after each name; returns the corridor's full-fetch request and polygon.
    static func ingestAndDelta(server: BenchServer, suffix: String, start: Double) throws -> (DeltaFetchRequest, [GeoPoint]) {
        let ingestReports = 100_000
        let cells = try cellPool(count: 5000)
        let clients = 4
        let perClient = ingestReports / clients
        let serverCPU0 = server.cpuSeconds(), benchCPU0 = BenchServer.ownCPUSeconds()
        let ingestSeconds = try timeConcurrently(clients) { index in
            let client = try server.client(userId: "ingest-\(index)")
            var batch: [TileReport] = []
            for i in 0..<perClient {
                let n = index * perClient + i
                batch.append(TileReport(
                    id: UUID(), tile: TileID(h3: cells[n % cells.count], layer: 20 + n % 20), enterTime: start - 3000,
                    exitTime: start - 2900, edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium))
                if batch.count == 100 {
                    let ack = try client.upload(batch)
                    guard ack.newCount == 100 else { throw BenchError("ingest acknowledged \(ack.newCount) of 100") }
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }
        print("server_ingest_reports_per_s\(suffix): \(Int(Double(ingestReports) / ingestSeconds))")
        let batches = Double(ingestReports / 100)
        print("server_ingest_cpu_ms_per_batch\(suffix): \(format((server.cpuSeconds() - serverCPU0) * 1000 / batches))")
        print("client_upload_cpu_ms_per_batch\(suffix): \(format((BenchServer.ownCPUSeconds() - benchCPU0) * 1000 / batches))")

        // Corridor holding 10,000 tiles: route JFK → ~1,000 NM east-north-east, ±20 NM.
        let route = (0...10).map { i in GeoPoint(lat: 40.6 + Double(i) * 0.55, lng: -73.8 + Double(i) * 1.9) }
        let corridor = AreaGeometry.corridor(route: route, halfWidthNM: 20)
        let corridorCells = try H3.polygonToCells(
            outer: corridor.map { LatLng(latitude: $0.lat, longitude: $0.lng) }, resolution: TileID.h3Resolution).map(\.rawValue)
        let layersNeeded = Int((10_000.0 / Double(corridorCells.count)).rounded(.up))
        var corridorTiles: [TileID] = []
        for layer in 0..<layersNeeded { for cell in corridorCells { corridorTiles.append(TileID(h3: cell, layer: 25 + layer)) } }
        corridorTiles = Array(corridorTiles.prefix(10_000))
        let loader = try server.client(userId: "corridor-loader")
        for chunk in stride(from: 0, to: corridorTiles.count, by: 1000) {
            let reports = corridorTiles[chunk..<min(chunk + 1000, corridorTiles.count)].map {
                TileReport(id: UUID(), tile: $0, enterTime: start - 1200, exitTime: start - 1100, edrPeak: 0.3, edrMedian: 0.2, reporterClass: .large)
            }
            _ = try loader.upload(reports)
        }
        let reader = try server.client(userId: "corridor-reader")
        let area = SyncArea(type: .route, polygon: corridor)
        let fullRequest = DeltaFetchRequest(dataType: .turbulence, area: area, historyHours: 2, minLayer: 0, maxLayer: 60)
        Thread.sleep(forTimeInterval: 1.1)   // the bench server ticks every second
        let full = try reader.fetch(fullRequest)
        guard full.observations.count >= 10_000 else { throw BenchError("corridor holds \(full.observations.count) tiles, expected 10,000") }
        Thread.sleep(forTimeInterval: 1.1)
        let fresh = corridorTiles.prefix(100).map {
            TileReport(id: UUID(), tile: $0, enterTime: start - 60, exitTime: start - 30, edrPeak: 0.4, edrMedian: 0.2, reporterClass: .medium)
        }
        _ = try loader.upload(Array(fresh))
        var deltaRequest = fullRequest
        deltaRequest.sinceTick = full.serverTick
        var deltaTimes: [Double] = []
        for _ in 0..<200 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let delta = try reader.fetch(deltaRequest)
            deltaTimes.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            guard !delta.full, delta.observations.count == 100 else {
                throw BenchError("delta returned \(delta.observations.count) items (full: \(delta.full)), expected 100")
            }
        }
        print("server_delta_fetch_ms_p99\(suffix): \(format(percentile(deltaTimes, 0.99)))")
        print("server_delta_fetch_ms_median\(suffix): \(format(percentile(deltaTimes, 0.5)))")
        return (fullRequest, corridor)
    }

    /// `count` distinct valid resolution-5 cells over the North Atlantic.
    static func cellPool(count: Int) throws -> [UInt64] {
        var cells: [UInt64] = []
        var k = 1
        let origin = try H3.latLngToCell(latitude: 50, longitude: -30, resolution: TileID.h3Resolution)
        while cells.count < count {
            cells = try H3.gridDisk(origin, k: k).map(\.rawValue)
            k += 5
        }
        return Array(cells.prefix(count))
    }

    /// Runs `work` on `count` threads at once; returns the wall time in seconds.
    static func timeConcurrently(_ count: Int, _ work: @escaping @Sendable (Int) throws -> Void) throws -> Double {
        let group = DispatchGroup()
        let failures = FailureBox()
        let t0 = DispatchTime.now().uptimeNanoseconds
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                do { try work(index) } catch { failures.record(error) }
                group.leave()
            }
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        if let error = failures.first { throw error }
        return seconds
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded(.up)))]
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// A benchmark failure.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// First error seen by concurrent workers.
final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    func record(_ error: any Error) { lock.lock(); if self.error == nil { self.error = error }; lock.unlock() }
    var first: (any Error)? { lock.lock(); defer { lock.unlock() }; return error }
}

/// The release `eddy-server` run for the benchmark (temporary SQLite database or the `--database` given, no rate
/// limit, 1 s ticks).
final class BenchServer: @unchecked Sendable {
    let directory: URL
    let apiKey: String
    let port: Int
    private let process: Process

    /// The `eddy-server` binary next to `eddy-bench`.
    static var binary: URL {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent().appendingPathComponent("eddy-server")
    }

    /// Starts a server on `database` (a `--database` value; nil: a SQLite file in a temporary folder).
    init(database: String? = nil) throws {
        let binary = Self.binary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw BenchError("eddy-server not found next to eddy-bench (\(binary.path)); build the release products first")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-bench-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let databaseArguments = database.map { ["--database", $0] } ?? ["--db", directory.appendingPathComponent("server.sqlite").path]
        let keys = Process()
        keys.executableURL = binary
        keys.arguments = ["keys", "add"] + databaseArguments + ["--airline", "BEN"]
        let pipe = Pipe()
        keys.standardOutput = pipe
        try keys.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        keys.waitUntilExit()
        guard let key = output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines), key.hasPrefix("eddy_") else {
            throw BenchError("keys add failed: \(output)")
        }
        apiKey = key
        let stdoutPath = directory.appendingPathComponent("stdout.log")
        _ = FileManager.default.createFile(atPath: stdoutPath.path, contents: nil)
        process = Process()
        process.executableURL = binary
        process.arguments = ["serve"] + databaseArguments + ["--port", "0", "--tick-seconds", "1", "--rate-limit", "0", "--log-level", "warning",
                             "--max-request-bytes", String(4 << 20)]
        process.standardOutput = try FileHandle(forWritingTo: stdoutPath)
        try process.run()
        var bound = 0
        let deadline = Date().addingTimeInterval(30)
        while bound == 0, Date() < deadline, process.isRunning {
            if let text = try? String(contentsOf: stdoutPath, encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("eddy-server listening on") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                bound = port
            } else {
                usleep(20_000)
            }
        }
        guard bound > 0 else { throw BenchError("eddy-server did not start") }
        port = bound
    }

    /// CPU time (user + system) the server process has used, seconds (from /proc).
    func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU time this process has used, seconds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    func client(userId: String, clock: any EpochClock = SystemEpochClock()) throws -> SyncClient {
        let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: "http://127.0.0.1:\(port)"))
        return SyncClient(transport: transport, identity: ClientIdentity(apiKey: apiKey, airline: "BEN", userId: userId), clock: clock)
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
