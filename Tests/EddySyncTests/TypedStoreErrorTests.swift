import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

/// A `SyncStore` whose every call fails with the same store error.
final class FailingSyncStore: SyncStore {
    let failure: StoreError
    init(_ failure: StoreError) { self.failure = failure }
    func pendingReports(limit: Int) throws(StoreError) -> [TileReport] { throw failure }
    func markReportsSent(_ ids: [UUID]) throws(StoreError) { throw failure }
    func markReportsRejected(_ rejected: [RejectedReport]) throws(StoreError) { throw failure }
    func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) throws(StoreError) { throw failure }
    func lastTick(area: DataAreaType, dataType: DataType) throws(StoreError) -> Int? { throw failure }
    func resetTicks(area: DataAreaType) throws(StoreError) { throw failure }
}

@Suite struct TypedStoreErrorTests {
    @Test func aStoreErrorReachesSyncErrorStoreAsItIs() throws {
        let failure = StoreError.diskFull(path: "/data/eddy.sqlite")
        let transport = FakeTransport { request, _ in request.path == "/v1/session" ? FakeTransport.session : FakeTransport.fetched(request) }
        let clock = ManualEpochClock(start: 1_800_000_000)
        let client = SyncClient(transport: transport, identity: ClientIdentity(apiKey: "k", airline: "DAL", userId: "u"), clock: clock)
        let log = EventLog()
        let scheduler = SyncScheduler(client: client, store: FailingSyncStore(failure), clock: clock) { log.append($0) }
        let viewport = SyncArea(type: .viewport, polygon: [GeoPoint(lat: 0, lng: 0), GeoPoint(lat: 0, lng: 1), GeoPoint(lat: 1, lng: 1)])
        #expect(throws: SyncError.store(failure)) { try scheduler.setArea(viewport, for: .viewport) }
        scheduler.step()
        #expect(log.failures.contains(.store(failure)))
        #expect(!SyncError.store(failure).isTransient)
        // The description still says what went wrong and what to do.
        #expect(SyncError.store(failure).description.contains("/data/eddy.sqlite"))
        #expect(SyncError.store(failure).description.contains("Free some space"))
    }

    @Test func anSQLiteFailureBecomesATypedStoreErrorWithItsCodeAndMessage() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("closed.sqlite")
        let store = try EddyStore.open(path: path)
        try store.close()
        do {
            _ = try store.pendingReports(limit: 10)   // typed: `error` below is a StoreError
            Issue.record("a closed store answered")
        } catch {
            guard case let .database(failedPath, code, message) = error else {
                Issue.record("expected StoreError.database, got \(error)")
                return
            }
            #expect(failedPath == path)
            #expect(code != 0)
            #expect(!message.isEmpty)
            #expect(SyncError.store(error).description.contains("SQLite error \(code)"))
        }
    }
}
