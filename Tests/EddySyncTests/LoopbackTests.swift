import EddyDetection
import EddyH3
import EddyProtocol
import EddySimulation
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

/// Flights for the loopback tests: a simulated turbulent flight through the detection pipeline, and bulk
/// reports for the fault tests.
enum TurbulentFlight {
    /// A simulated medium-jet flight (EddySimulation's flight simulator) from JFK towards the north-east at its nominal
    /// level: 5 min smooth, 8 min of EDR 0.35 turbulence, 5 min smooth, run through the detection pipeline. Its
    /// tile reports are shifted to Unix time (`startTime` + log time), as the replay does before storing.
    /// Returns the reports and the route (centres of the first and last tile crossed).
    static func simulated(startTime: Double) throws -> (reports: [TileReport], route: [GeoPoint]) {
        let scenario = FlightScenario(
            aircraftClass: .medium,
            segments: [TurbulenceSegment(edr: 0.0, durationSeconds: 300), TurbulenceSegment(edr: 0.35, durationSeconds: 480),
                       TurbulenceSegment(edr: 0.0, durationSeconds: 300)],
            startLatitude: 40.64, startLongitude: -73.78, courseDegrees: 50, seed: 7)
        var pipeline = NavigatedDetection(configuration: DetectionConfiguration(aircraftClass: .medium))
        var events: [DetectionEvent] = []
        for sample in FlightSimulator.simulate(scenario).samples.mergedSamples() { pipeline.process(sample, into: &events) }
        pipeline.finish(into: &events)
        let reports: [TileReport] = events.compactMap { event in
            guard case .tile(var report) = event else { return nil }
            report.enterTime += startTime
            report.exitTime += startTime
            return report
        }
        guard let first = reports.first, let last = reports.last else { return ([], []) }
        let route = try [first, last].map { report in
            let center = try H3.cellToLatLng(H3Index(rawValue: report.tile.h3))
            return GeoPoint(lat: center.latitude, lng: center.longitude)
        }
        return (reports, route)
    }

    /// Synthetic reports on distinct cells around a point (for fault tests that need many reports).
    static func bulk(count: Int, startTime: Double, idPrefix: String = "B") throws -> [TileReport] {
        let center = try H3.latLngToCell(latitude: 41, longitude: -72, resolution: 5)
        let cells = try H3.gridDisk(center, k: 12).map(\.rawValue).sorted()
        return (0..<count).map { i in
            TileReport(
                id: UUID(uuidString: String(format: "%@0000000-0000-4000-8000-%012d", idPrefix, i))!,
                tile: TileID(h3: cells[i % cells.count], layer: 30 + i / cells.count), enterTime: startTime + Double(i),
                exitTime: startTime + Double(i) + 30, edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium)
        }
    }
}

/// Collects scheduler events (thread-safe).
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [SyncEvent] = []
    func append(_ event: SyncEvent) { lock.lock(); items.append(event); lock.unlock() }
    var events: [SyncEvent] { lock.lock(); defer { lock.unlock() }; return items }
    var reachability: [Bool] { events.compactMap { if case .reachabilityChanged(let r) = $0 { r } else { nil } } }
    var failures: [SyncError] { events.compactMap { if case .failed(let e) = $0 { e } else { nil } } }
}

/// One aircraft's sync stack against a loopback server.
struct Aircraft {
    let clock: ManualEpochClock
    let store: InMemorySyncStore
    let client: SyncClient
    let scheduler: SyncScheduler
    let log: EventLog

    init(server: LoopbackServer, userId: String, clientVersion: String = EddyVersion.current,
         totalTimeout: Double = 5, configure: (inout SchedulerConfiguration) -> Void = { _ in }) throws {
        clock = ManualEpochClock(start: Date().timeIntervalSince1970)
        store = InMemorySyncStore()
        let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(
            baseURL: server.baseURL, connectTimeoutSeconds: 2, totalTimeoutSeconds: totalTimeout))
        client = SyncClient(
            transport: transport,
            identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: userId, clientVersion: clientVersion),
            clock: clock)
        var configuration = SchedulerConfiguration()
        configure(&configuration)
        let log = EventLog()
        self.log = log
        scheduler = SyncScheduler(client: client, store: store, clock: clock, configuration: configuration) { log.append($0) }
    }

    /// Moves the clock past any back-off and steps.
    func stepAfterBackoff() {
        let wait = scheduler.retryNotBefore - clock.now()
        if wait > 0 { clock.advance(by: wait + 0.001) }
        scheduler.step()
    }

    /// Every observation the server holds (global full fetch by a fresh session of this identity).
    func serverObservations() throws -> [Observation] {
        try client.fetch(DeltaFetchRequest(dataType: .turbulence, area: .global, historyHours: 6, minLayer: -2, maxLayer: 99)).observations
    }
}

/// Every test against a real server process, one at a time (they time requests on a 2-core machine).
@Suite(.serialized) enum Loopback {}

extension Loopback {
@Suite struct EndToEndTests {
    @Test func aircraftBReceivesAircraftATilesThroughDeltaFetch() async throws {
        // 1-s ticks with the full-refresh window of the default 60-s ticks (3,600 ticks = 1 h), so that B's second fetch
        // is a delta however slowly the test runs (under ThreadSanitizer, with every suite in parallel, more than 60 s
        // once passed between B's two fetches, and the server rightly answered in full).
        let server = try LoopbackServer(arguments: ["--full-refresh-after-ticks", "3600"])
        let now = Date().timeIntervalSince1970
        let a = try Aircraft(server: server, userId: "pilot-a")
        let (flight, route) = try TurbulentFlight.simulated(startTime: now - 3600)
        #expect(flight.count > 10)
        a.store.enqueue(flight)
        a.scheduler.step()
        #expect(a.store.pendingCount == 0)
        #expect(a.store.sentIds == Set(flight.map(\.id)))
        #expect(a.log.failures.isEmpty)
        try await Task.sleep(for: .seconds(1.1))   // next server tick (tests run the server with 1 s ticks)

        // B flies the same route later: a 20 NM corridor around it, turbulence + polygons + nowcast.
        let b = try Aircraft(server: server, userId: "pilot-b") { $0.dataTypes = [.turbulence, .turbulencePolygons] }
        let corridor = AreaGeometry.corridor(route: route, halfWidthNM: 20)
        try b.scheduler.setArea(SyncArea(type: .route, polygon: corridor), for: .route)
        b.scheduler.step()
        #expect(b.log.failures.isEmpty)
        #expect(b.client.settings.fullRefreshAfterTicks == 3600)   // the option reaches the clients
        let received = Dictionary(uniqueKeysWithValues: b.store.observations.map { ($0.report.id, $0.report) })
        #expect(Set(received.keys) == Set(flight.map(\.id)))
        for report in flight { #expect(received[report.id] == report) }
        // Tiles that are moderate for a medium aircraft are what B's map shows.
        let moderate = b.store.observations.filter { $0.report.severity(for: .medium) >= .moderate }
        #expect(!moderate.isEmpty)
        let polygons = try #require(b.store.polygons(area: .route))
        #expect(!polygons.features.isEmpty)
        #expect(polygons.features.reduce(0) { $0 + $1.properties.tileCount } == flight.filter { $0.severity(for: .medium) > .none }.count)

        try await Task.sleep(for: .seconds(1.1))
        // A's next report reaches B through a delta (only the new one), B's fetch is due at the fast interval.
        let later = TileReport(id: UUID(), tile: flight[flight.count / 2].tile, enterTime: now - 120, exitTime: now - 60,
                               edrPeak: 0.5, edrMedian: 0.3, reporterClass: .large)
        a.store.enqueue([later])
        a.scheduler.step()
        b.clock.advance(by: 61)
        b.scheduler.step()
        #expect(b.store.observations.count == flight.count + 1)
        #expect(b.log.events.contains(.receivedData(area: .route, dataType: .turbulence, itemCount: 1, full: false)))
    }
}

@Suite struct EddyStoreEndToEndTests {
    /// Both aircraft keep their data in a real EddyStore (SQLite): A's outbox drains through the scheduler,
    /// B finds A's tiles with a store query along the route.
    @Test func withEddyStoreBFindsATilesWithARouteQuery() async throws {
        let server = try LoopbackServer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Date().timeIntervalSince1970
        let (flight, simulatedRoute) = try TurbulentFlight.simulated(startTime: now - 3600)
        #expect(flight.contains { $0.severity(for: .medium) >= .moderate })

        func stack(_ store: EddyStore, userId: String, configure: (inout SchedulerConfiguration) -> Void = { _ in }) throws
            -> (SyncScheduler, EventLog) {
            let clock = ManualEpochClock(start: now)
            let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: server.baseURL))
            let client = SyncClient(transport: transport, identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: userId), clock: clock)
            var configuration = SchedulerConfiguration()
            configure(&configuration)
            let log = EventLog()
            return (SyncScheduler(client: client, store: store, clock: clock, configuration: configuration) { log.append($0) }, log)
        }

        let storeA = try EddyStore.open(path: directory.appendingPathComponent("a.sqlite").path)
        try storeA.insertOwnReports(flight)
        let (a, logA) = try stack(storeA, userId: "pilot-a")
        a.step()
        #expect(logA.failures.isEmpty)
        #expect(try storeA.pendingOwnReports().isEmpty)
        try await Task.sleep(for: .seconds(1.1))

        let storeB = try EddyStore.open(path: directory.appendingPathComponent("b.sqlite").path)
        let (b, logB) = try stack(storeB, userId: "pilot-b") { $0.dataTypes = [.turbulence, .turbulencePolygons] }
        try b.setArea(SyncArea(type: .route, polygon: AreaGeometry.corridor(route: simulatedRoute, halfWidthNM: 20)), for: .route)
        b.step()
        #expect(logB.failures.isEmpty)
        #expect(try storeB.lastTick(area: .route, dataType: .turbulence) != nil)

        let route = simulatedRoute.map { LatLng(latitude: $0.lat, longitude: $0.lng) }
        let everything = try storeB.turbulence(TurbulenceQuery(
            area: .route(route, widthNM: 20), altitudeRangeFeet: 30000...40000, historyWindow: .twoHours,
            aggregation: .everyReport, selection: .server, now: now, includeReporterDetails: true))
        #expect(Set(everything.map(\.report.id)) == Set(flight.map(\.id)))
        // Served under a random per-flight id (`f` + 16 hex digits), never the per-user reporter id `r_…` (issue 13).
        #expect(everything.allSatisfy { $0.origin == .server && $0.reporterID?.hasPrefix("f") == true && $0.reporterID?.count == 17 })
        let moderate = try storeB.turbulence(TurbulenceQuery(
            area: .route(route, widthNM: 20), historyWindow: .twoHours, minimumSeverity: .moderate, now: now))
        #expect(Set(moderate.map(\.report.id)) == Set(flight.filter { $0.severity(for: .medium) >= .moderate }.map(\.id)))
        #expect(!moderate.isEmpty)
        let polygons = try storeB.turbulencePolygons(historyWindow: .twoHours)
        let severities = Set(flight.map { $0.severity(for: .medium) }.filter { $0 > .none })
        #expect(Set(polygons.filter { $0.geoJSON.contains("\"Polygon\"") }.map(\.severity)) == severities)
    }
}

@Suite struct FaultTests {
    @Test func serverDownAtStartThenRecovers() throws {
        let server = try LoopbackServer()
        server.stop()
        let a = try Aircraft(server: server, userId: "pilot-a") { $0.dataTypes = [.turbulence] }
        let reports = try TurbulentFlight.bulk(count: 250, startTime: Date().timeIntervalSince1970 - 1800)
        a.store.enqueue(reports)
        try a.scheduler.setArea(.global, for: .global)
        a.scheduler.step()
        a.stepAfterBackoff()
        a.stepAfterBackoff()
        #expect(a.log.reachability == [false])   // reported once, not per failure
        #expect(a.store.pendingCount == 250)
        guard case .unreachable(.cannotConnect) = a.log.failures.first else {
            Issue.record("expected cannotConnect, got \(a.log.failures)"); return
        }
        try server.start()
        a.stepAfterBackoff()
        #expect(a.log.reachability == [false, true])
        #expect(a.store.pendingCount == 0)
        #expect(a.scheduler.fetchingStatus(area: .global, dataType: .turbulence) == .idle)
        let held = try a.serverObservations()
        #expect(held.count == 250 && Set(held.map(\.report.id)) == Set(reports.map(\.id)))
    }

    @Test func killedMidUploadLosesAndDuplicatesNothing() async throws {
        let server = try LoopbackServer()
        let a = try Aircraft(server: server, userId: "pilot-a")
        let reports = try TurbulentFlight.bulk(count: 300, startTime: Date().timeIntervalSince1970 - 1800)
        a.store.enqueue(reports)
        // The first batch is committed, then the server hangs before answering; we kill it there.
        try server.injectFaults(#"{"faults":[{"kind":"hangAfterCommit","seconds":30,"path":"/v1/reports"}]}"#)
        let scheduler = a.scheduler
        let stepping = Task.detached { scheduler.step() }
        try await Task.sleep(for: .milliseconds(700))
        server.kill()
        _ = await stepping.value
        #expect(a.store.pendingCount == 300)   // nothing acknowledged, nothing dropped
        guard case .unreachable = a.log.failures.first else { Issue.record("expected unreachable, got \(a.log.failures)"); return }
        try server.start()
        a.stepAfterBackoff()
        #expect(a.store.pendingCount == 0)
        let uploads = a.log.events.compactMap { if case .uploaded(let accepted, let duplicates, _) = $0 { (accepted, duplicates) } else { nil } }
        #expect(uploads.map(\.0).reduce(0, +) == 300)
        #expect(uploads.first?.1 == 100)   // the batch committed before the kill came back as duplicates
        let held = try a.serverObservations()
        #expect(held.count == 300 && Set(held.map(\.report.id)).count == 300)
    }

    @Test func http500sBackOffExponentiallyThenRecover() throws {
        let server = try LoopbackServer()
        let a = try Aircraft(server: server, userId: "pilot-a") { $0.backoffBaseSeconds = 2; $0.jitterSeed = 42 }
        let reports = try TurbulentFlight.bulk(count: 120, startTime: Date().timeIntervalSince1970 - 1800)
        a.store.enqueue(reports)
        try server.injectFaults(#"{"faults":[{"kind":"status500"},{"kind":"status500"},{"kind":"status500"}]}"#)
        var delays: [Double] = []
        for _ in 0..<3 {
            a.stepAfterBackoff()
            delays.append(a.scheduler.retryNotBefore - a.clock.now())
        }
        #expect(a.log.failures.count == 3)
        #expect(a.log.failures.allSatisfy { $0 == .server(status: 500, message: "internal: injected fault") })
        // base·2^n with jitter in [0.5, 1]: 1…2, 2…4, 4…8 s.
        #expect((1...2).contains(delays[0]) && (2...4).contains(delays[1]) && (4...8).contains(delays[2]))
        #expect(a.log.reachability == [true])   // a 500 is an answer: the server is reachable
        a.stepAfterBackoff()
        #expect(a.store.pendingCount == 0)
        #expect(try a.serverObservations().count == 120)
    }

    @Test func responsesSlowerThanTheTimeoutAreRetriedWithoutDuplicates() async throws {
        let server = try LoopbackServer()
        let a = try Aircraft(server: server, userId: "pilot-a", totalTimeout: 1)
        let reports = try TurbulentFlight.bulk(count: 80, startTime: Date().timeIntervalSince1970 - 1800)
        a.store.enqueue(reports)
        try server.injectFaults(#"{"faults":[{"kind":"delay","seconds":2,"path":"/v1/reports"}]}"#)
        a.scheduler.step()
        guard case .unreachable(.timedOut) = a.log.failures.first else { Issue.record("expected timedOut, got \(a.log.failures)"); return }
        #expect(a.store.pendingCount == 80)
        try await Task.sleep(for: .seconds(1.5))   // the slow request completes on the server meanwhile
        a.stepAfterBackoff()
        #expect(a.store.pendingCount == 0)
        let held = try a.serverObservations()
        #expect(held.count == 80 && Set(held.map(\.report.id)).count == 80)
    }

    @Test func malformedJSONIsATypedFailureAndTheFetchIsRetried() throws {
        let server = try LoopbackServer()
        let a = try Aircraft(server: server, userId: "pilot-a") { $0.dataTypes = [.turbulence] }
        try a.scheduler.setArea(.global, for: .global)
        try server.injectFaults(#"{"faults":[{"kind":"malformed","path":"/v1/fetch"}]}"#)
        a.scheduler.step()
        guard case .malformedResponse = a.log.failures.first else { Issue.record("expected malformedResponse, got \(a.log.failures)"); return }
        #expect(a.scheduler.fetchingStatus(area: .global, dataType: .turbulence) == .failed)
        a.stepAfterBackoff()
        #expect(a.scheduler.fetchingStatus(area: .global, dataType: .turbulence) == .idle)
        let statuses = a.log.events.compactMap { if case .fetchingStatusChanged(_, _, let s) = $0 { s } else { nil } }
        #expect(statuses == [.fetching, .failed, .fetching, .idle])
    }

    @Test func rateLimitedClientWaitsForRetryAfter() async throws {
        let server = try LoopbackServer(arguments: ["--rate-limit", "120", "--rate-burst", "3"])
        let a = try Aircraft(server: server, userId: "pilot-a") { $0.uploadBatchSize = 10 }
        let reports = try TurbulentFlight.bulk(count: 60, startTime: Date().timeIntervalSince1970 - 1800)
        a.store.enqueue(reports)
        a.scheduler.step()   // session start is not limited; 3 uploads pass, the 4th gets 429
        guard case .rateLimited(let retryAfter) = a.log.failures.first else { Issue.record("expected 429, got \(a.log.failures)"); return }
        #expect(retryAfter >= 1)
        #expect(a.scheduler.retryNotBefore - a.clock.now() >= retryAfter)
        #expect(a.store.pendingCount == 30)
        var rounds = 0
        while a.store.pendingCount > 0, rounds < 20 {
            try await Task.sleep(for: .seconds(0.6))
            a.stepAfterBackoff()
            rounds += 1
        }
        #expect(a.store.pendingCount == 0)
        try await Task.sleep(for: .seconds(1.1))   // let the bucket refill for the check below
        let held = try a.serverObservations()
        #expect(held.count == 60 && Set(held.map(\.report.id)).count == 60)
    }

    @Test func sessionExpiryIsHandledTransparently() throws {
        let server = try LoopbackServer()
        let a = try Aircraft(server: server, userId: "pilot-a")
        let reports = try TurbulentFlight.bulk(count: 20, startTime: Date().timeIntervalSince1970 - 1800)
        a.store.enqueue(Array(reports.prefix(10)))
        a.scheduler.step()
        try server.expireSessions()
        a.store.enqueue(Array(reports.suffix(10)))
        a.scheduler.step()
        #expect(a.log.failures.isEmpty)
        #expect(a.store.pendingCount == 0)
        #expect(try a.serverObservations().count == 20)
    }

    @Test func revokedKeyStopsRecordingAndKeepsTheOutbox() throws {
        let server = try LoopbackServer()
        let a = try Aircraft(server: server, userId: "pilot-a")
        a.store.enqueue(try TurbulentFlight.bulk(count: 10, startTime: Date().timeIntervalSince1970 - 1800))
        a.scheduler.step()
        _ = try server.cli(["keys", "revoke", "--db", server.databasePath, "1"])
        a.store.enqueue(try TurbulentFlight.bulk(count: 5, startTime: Date().timeIntervalSince1970 - 1800, idPrefix: "C"))
        a.scheduler.step()
        guard case .forbidden = a.scheduler.stoppedReason else { Issue.record("expected forbidden, got \(String(describing: a.scheduler.stoppedReason))"); return }
        #expect(a.log.events.contains { if case .recordingStopped(.forbidden) = $0 { true } else { false } })
        #expect(a.store.pendingCount == 5)
        #expect(a.scheduler.step() == .infinity)
    }

    // TLS failures, timeouts, proxy, gzip, 429 headers, large bodies and connection reuse are checked for every
    // transport in TransportConformanceTests.

    @Test func oversizedBodyIs413AndLogsHoldNoSecrets() throws {
        let server = try LoopbackServer(arguments: ["--max-request-bytes", "4000", "--log-level", "debug"])
        let a = try Aircraft(server: server, userId: "pilot-a")
        let reports = try TurbulentFlight.bulk(count: 60, startTime: Date().timeIntervalSince1970 - 1800)
        #expect {
            try a.client.upload(reports)
        } throws: { error in
            guard let error = error as? SyncError, case .badRequest(let message) = error else { return false }
            return message.hasPrefix("413")
        }
        #expect(try a.client.upload(Array(reports.prefix(5))).newCount == 5)
        server.stop()
        let log = try String(contentsOf: server.directory.appendingPathComponent("stderr.log"), encoding: .utf8)
        #expect(log.contains("session started") && log.contains("/v1/reports"))   // the log is there…
        #expect(!log.contains(server.apiKey))                                      // …without the key
        #expect(!log.contains("Bearer"))                                          // …or any token
    }

    @Test func aFullRefreshWindowBelowOneTickIsRefusedAtStart() throws {
        let server = try #require(BuiltExecutable.locate("eddy-server"), "eddy-server not built: run `swift build --build-tests`")
        let folder = try TemporaryDirectory(prefix: "eddy-refresh")
        defer { folder.remove() }
        let database = folder.path("server.sqlite")
        let refused = try BuiltExecutable.run(server, ["serve", "--db", database, "--port", "0", "--full-refresh-after-ticks", "0"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--full-refresh-after-ticks must be at least 1"))
        #expect(!FileManager.default.fileExists(atPath: database))   // refused before the database is opened
    }

    @Test func tooOldClientGets426AndStops() throws {
        let server = try LoopbackServer(arguments: ["--min-client-version", "1.1.0"])
        let a = try Aircraft(server: server, userId: "pilot-a", clientVersion: "1.0.9")
        a.store.enqueue(try TurbulentFlight.bulk(count: 3, startTime: Date().timeIntervalSince1970 - 1800))
        a.scheduler.step()
        guard case .clientTooOld = a.scheduler.stoppedReason else { Issue.record("expected clientTooOld, got \(a.log.failures)"); return }
        #expect(a.store.pendingCount == 3)
    }
}
}

