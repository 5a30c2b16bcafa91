import EddyProtocol
import EddySupport
import EddySync
import EddyVocabulary
import Foundation
import Synchronization
import Testing

/// A scripted transport: answers from a handler, records every request.
final class FakeTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var log: [SyncHTTPRequest] = []
    private let handler: @Sendable (SyncHTTPRequest, Int) throws(TransportError) -> SyncHTTPResponse

    init(_ handler: @escaping @Sendable (SyncHTTPRequest, Int) throws(TransportError) -> SyncHTTPResponse) { self.handler = handler }

    func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        let index: Int = { lock.lock(); defer { lock.unlock() }; log.append(request); return log.count - 1 }()
        return try handler(request, index)
    }

    var requests: [SyncHTTPRequest] { lock.lock(); defer { lock.unlock() }; return log }
    func paths() -> [String] { requests.map(\.path) }

    static func json<T: Encodable>(_ value: T, status: Int = 200) -> SyncHTTPResponse {
        SyncHTTPResponse(status: status, headers: [:], body: try! JSONEncoder().encode(value))
    }
    /// Computed, not a `static let`: LeakSanitizer reported the stored global's Data buffer as leaked although the global
    /// keeps it (it does not see that reference), which would fail `make test-asan` (docs/reliability.md §10).
    static var session: SyncHTTPResponse {
        json(SessionStartResponse(token: "t", expiresAt: 4_000_000_000, serverTick: 1, settings: .defaults))
    }
    static func fetched(_ request: SyncHTTPRequest, tick: Int = 5) -> SyncHTTPResponse {
        let asked = try! JSONDecoder().decode(DeltaFetchRequest.self, from: request.body!)
        return json(DeltaFetchResponse(dataType: asked.dataType, serverTick: tick, full: asked.sinceTick == nil))
    }
}

@Suite struct SchedulerTests {
    let start = 1_800_000_000.0

    func make(_ transport: FakeTransport, seed: UInt64 = 7, configure: (inout SchedulerConfiguration) -> Void = { _ in })
        -> (SyncScheduler, ManualEpochClock, InMemorySyncStore, EventLog) {
        let clock = ManualEpochClock(start: start)
        let store = InMemorySyncStore()
        let client = SyncClient(transport: transport, identity: ClientIdentity(apiKey: "k", airline: "DAL", userId: "u"), clock: clock)
        var configuration = SchedulerConfiguration()
        configuration.jitterSeed = seed
        configure(&configuration)
        let log = EventLog()
        let scheduler = SyncScheduler(client: client, store: store, clock: clock, configuration: configuration) { log.append($0) }
        return (scheduler, clock, store, log)
    }

    @Test func fetchesAtTheConfiguredFrequencyAndAtOnceOnAreaChange() throws {
        let transport = FakeTransport { request, _ in request.path == "/v1/session" ? FakeTransport.session : FakeTransport.fetched(request) }
        let (scheduler, clock, store, _) = make(transport) { $0.frequency = .medium }
        let viewport = SyncArea(type: .viewport, polygon: [GeoPoint(lat: 0, lng: 0), GeoPoint(lat: 0, lng: 1), GeoPoint(lat: 1, lng: 1)])
        try scheduler.setArea(viewport, for: .viewport)
        scheduler.step()
        #expect(transport.paths() == ["/v1/session", "/v1/fetch"])
        #expect(store.lastTick(area: .viewport, dataType: .turbulence) == 5)
        clock.advance(by: 299)
        #expect(scheduler.step() == 1)   // medium = 300 s: due in one second
        #expect(transport.paths().count == 2)
        clock.advance(by: 1)
        scheduler.step()
        #expect(transport.paths().count == 3)
        let delta = try JSONDecoder().decode(DeltaFetchRequest.self, from: transport.requests[2].body!)
        #expect(delta.sinceTick == 5)
        // A moved viewport is fetched at once, in full.
        var moved = viewport
        moved.polygon[0].lat = -1
        try scheduler.setArea(moved, for: .viewport)
        scheduler.step()
        let refetch = try JSONDecoder().decode(DeltaFetchRequest.self, from: transport.requests[3].body!)
        #expect(refetch.sinceTick == nil && refetch.area == moved)
    }

    @Test func frequencyNoneFetchesOnlyOnChangeOrRequest() throws {
        let transport = FakeTransport { request, _ in request.path == "/v1/session" ? FakeTransport.session : FakeTransport.fetched(request) }
        let (scheduler, clock, _, _) = make(transport) { $0.frequency = .none }
        try scheduler.setArea(.global, for: .global)
        scheduler.step()
        clock.advance(by: 86_400)
        scheduler.step()
        #expect(transport.paths().filter { $0 == "/v1/fetch" }.count == 1)
        scheduler.fetchNow()
        scheduler.step()
        #expect(transport.paths().filter { $0 == "/v1/fetch" }.count == 2)
    }

    @Test func backOffIsExponentialJitteredAndSeeded() {
        func delays(seed: UInt64) -> [Double] {
            let transport = FakeTransport { _, _ throws(TransportError) in throw TransportError.cannotConnect("refused") }
            let (scheduler, clock, store, log) = make(transport, seed: seed)
            store.enqueue([TileReport(id: UUID(), tile: TileID(h3: 1, layer: 1), enterTime: 0, exitTime: 1, edrPeak: 0, edrMedian: 0, reporterClass: .small)])
            var result: [Double] = []
            for _ in 0..<10 {
                scheduler.step()
                result.append(scheduler.retryNotBefore - clock.now())
                clock.advance(by: result.last!)
            }
            #expect(log.reachability == [false])
            return result
        }
        let a = delays(seed: 1), b = delays(seed: 1), c = delays(seed: 2)
        #expect(a == b)
        #expect(a != c)
        for (n, delay) in a.enumerated() {
            let raw = min(300, 2 * pow(2, Double(n)))
            #expect(delay >= raw * 0.5 && delay <= raw)
        }
    }

    @Test func unauthorizedRestartsTheSessionOnceTransparently() throws {
        let transport = FakeTransport { request, index in
            if request.path == "/v1/session" { return FakeTransport.session }
            if index == 1 { return FakeTransport.json(ErrorBody(error: "sessionExpired", message: "expired"), status: 401) }
            return FakeTransport.json(ReportBatchAck(acceptedIds: [], newCount: 0, duplicateCount: 0, serverTick: 3))
        }
        let client = SyncClient(transport: transport, identity: ClientIdentity(apiKey: "k", airline: "DAL", userId: "u"),
                                clock: ManualEpochClock(start: start))
        let ack = try client.upload([])
        #expect(ack.serverTick == 3)
        #expect(transport.paths() == ["/v1/session", "/v1/reports", "/v1/session", "/v1/reports"])
        #expect(transport.requests.allSatisfy { $0.headers["X-Eddy-Client-Version"] == EddyVersion.current })
        #expect(transport.requests[1].headers["Authorization"] == "Bearer t")
    }

    @Test func secondUnauthorizedIsSessionExpired() {
        let transport = FakeTransport { request, _ in
            request.path == "/v1/session" ? FakeTransport.session : FakeTransport.json(ErrorBody(error: "sessionExpired", message: "no"), status: 401)
        }
        let client = SyncClient(transport: transport, identity: ClientIdentity(apiKey: "k", airline: "DAL", userId: "u"),
                                clock: ManualEpochClock(start: start))
        #expect(throws: SyncError.sessionExpired("sessionExpired: no")) { try client.upload([]) }
        #expect(transport.paths().count == 4)
    }

    @Test func positionIsUploadedOnceAndRejectedReportsLeaveTheOutbox() throws {
        let good = TileReport(id: UUID(), tile: TileID(h3: 1, layer: 35), enterTime: 0, exitTime: 1, edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium)
        let bad = TileReport(id: UUID(), tile: TileID(h3: 2, layer: 35), enterTime: 0, exitTime: 1, edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium)
        let transport = FakeTransport { request, _ in
            switch request.path {
            case "/v1/session": return FakeTransport.session
            case "/v1/reports":
                return FakeTransport.json(ReportBatchAck(acceptedIds: [good.id], newCount: 1, duplicateCount: 0,
                                                         rejected: [RejectedReport(id: bad.id, reason: "invalid cell")], serverTick: 2))
            default: return FakeTransport.json(TickResponse(serverTick: 2, serverTime: 0))
            }
        }
        let (scheduler, _, store, log) = make(transport)
        store.enqueue([good, bad])
        scheduler.updatePosition(LiveFlight(flightID: "DAL1", latitude: 1, longitude: 2, altitudeFeet: 35000,
                                            headingDegrees: 90, groundSpeedKnots: 450, aircraftType: "A320", time: start))
        scheduler.step()
        scheduler.step()
        #expect(transport.paths() == ["/v1/session", "/v1/reports", "/v1/position"])
        #expect(store.pendingCount == 0)
        #expect(store.sentIds == [good.id])
        #expect(log.events.contains(.uploaded(accepted: 1, duplicates: 0, rejected: 1)))
    }

    @Test func runLoopKeepsFetchingOnTheInjectedClockUntilCancelled() async throws {
        final class LoopBox: @unchecked Sendable {
            let lock = NSLock()
            var task: Task<Void, Never>?
            var fetches = 0
            func fetched() { lock.lock(); fetches += 1; if fetches == 4 { task?.cancel() }; lock.unlock() }
            func set(_ task: Task<Void, Never>) { lock.lock(); self.task = task; lock.unlock() }
        }
        let box = LoopBox()
        let transport = FakeTransport { request, _ in
            if request.path == "/v1/session" { return FakeTransport.session }
            box.fetched()
            return FakeTransport.fetched(request)
        }
        let (scheduler, clock, _, _) = make(transport) { $0.frequency = .fast; $0.idlePollSeconds = 30 }
        try scheduler.setArea(.global, for: .global)
        let loop = Task { await scheduler.run() }
        box.set(loop)
        await loop.value   // the transport cancels the loop at the 4th fetch
        #expect(transport.paths().filter { $0 == "/v1/fetch" }.count == 4)
        // The manual clock advanced by the fast interval (60 s) between fetches, in idle waits of at most 30 s.
        #expect(clock.now() - start >= 3 * 60)
    }

    /// A server of three pages of live flights (a cursor per page), which fails the second page once with `failure`.
    static func pagedServer(failure: SyncHTTPResponse?) -> FakeTransport {
        let failed = Mutex(false)
        return FakeTransport { request, _ in
            if request.path == "/v1/session" { return FakeTransport.session }
            let asked = try! JSONDecoder().decode(DeltaFetchRequest.self, from: request.body!)
            let page = asked.cursor.flatMap { Int($0.dropFirst(1)) } ?? 0
            if page == 1, let failure, failed.withLock({ done in defer { done = true }; return !done }) { return failure }
            let flights = (0..<2).map { i in
                LiveFlight(flightID: "f\(page)\(i)", latitude: 10, longitude: 10, altitudeFeet: 30_000, headingDegrees: 0,
                           groundSpeedKnots: 400, aircraftType: "B738", time: 1_800_000_000)
            }
            return FakeTransport.json(DeltaFetchResponse(
                dataType: .liveFlights, serverTick: 9, full: true, liveFlights: flights, nextCursor: page < 2 ? "p\(page + 1)" : nil))
        }
    }

    @Test func everyPageIsFetchedAndTheTickStoredWithTheLast() throws {
        let transport = Self.pagedServer(failure: nil)
        let (scheduler, _, store, log) = make(transport) { $0.dataTypes = [.liveFlights]; $0.fetchPageSize = 2 }
        try scheduler.setArea(.global, for: .global)
        scheduler.step()
        let asked = try transport.requests.filter { $0.path == "/v1/fetch" }.map { try JSONDecoder().decode(DeltaFetchRequest.self, from: $0.body!) }
        #expect(asked.map(\.cursor) == [nil, "p1", "p2"])
        #expect(asked.allSatisfy { $0.pageSize == 2 && $0.sinceTick == nil })
        #expect(store.liveFlights(area: .global).map(\.flightID) == ["f00", "f01", "f10", "f11", "f20", "f21"])
        #expect(store.lastTick(area: .global, dataType: .liveFlights) == 9)
        #expect(log.events.contains(.receivedData(area: .global, dataType: .liveFlights, itemCount: 6, full: true)))
    }

    @Test func aFailedPageIsRetriedAtItsCursorAfterTheBackOff() throws {
        let transport = Self.pagedServer(failure: SyncHTTPResponse(status: 503, headers: [:], body: Data(#"{"error":"storageFailed","message":"x"}"#.utf8)))
        let (scheduler, clock, store, _) = make(transport) { $0.dataTypes = [.liveFlights]; $0.fetchPageSize = 2 }
        try scheduler.setArea(.global, for: .global)
        scheduler.step()
        // The first page is stored, its tick is not: an interrupted fetch asks again from the old tick.
        #expect(store.liveFlights(area: .global).count == 2)
        #expect(store.lastTick(area: .global, dataType: .liveFlights) == nil)
        clock.advance(by: scheduler.retryNotBefore - clock.now())
        scheduler.step()
        let cursors = try transport.requests.filter { $0.path == "/v1/fetch" }
            .map { try JSONDecoder().decode(DeltaFetchRequest.self, from: $0.body!).cursor }
        #expect(cursors == [nil, "p1", "p1", "p2"], "the retry continues at the failed page")
        #expect(store.liveFlights(area: .global).count == 6)
        #expect(store.lastTick(area: .global, dataType: .liveFlights) == 9)
    }

    @Test func aCursorTheServerRefusesStartsTheFetchAgainFromItsFirstPage() throws {
        let transport = Self.pagedServer(failure: SyncHTTPResponse(
            status: 409, headers: [:], body: Data(#"{"error":"cursorExpired","message":"a new nowcast issue"}"#.utf8)))
        let (scheduler, clock, store, _) = make(transport) { $0.dataTypes = [.liveFlights]; $0.fetchPageSize = 2 }
        try scheduler.setArea(.global, for: .global)
        scheduler.step()
        clock.advance(by: scheduler.retryNotBefore - clock.now())
        scheduler.step()
        let cursors = try transport.requests.filter { $0.path == "/v1/fetch" }
            .map { try JSONDecoder().decode(DeltaFetchRequest.self, from: $0.body!).cursor }
        #expect(cursors == [nil, "p1", nil, "p1", "p2"])
        #expect(store.liveFlights(area: .global).map(\.flightID) == ["f00", "f01", "f10", "f11", "f20", "f21"])
    }
}
