import EddyAlerts
import EddySimulation
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import Foundation
import Synchronization
import Testing
@testable import Eddy

/// Forwards requests to a real transport and records, for each one, whether the engine's core lock was held.
private struct ObservedTransport: HTTPTransport {
    let inner: any HTTPTransport
    let observe: @Sendable () -> Void
    func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        observe()
        return try inner.send(request)
    }
}

/// Counts what ran and how much of it ran while the lock around the engine's core was held.
private final class LockWitness: Sendable {
    private struct Counts { var statements = 0, statementsUnderLock = 0, requests = 0, requestsUnderLock = 0 }
    private let counts = Mutex(Counts())
    private let engine = Mutex<EddyEngine?>(nil)

    func watch(_ engine: EddyEngine?) { self.engine.withLock(visibleToThreadSanitizerAs: self) { $0 = engine } }
    private var locked: Bool { engine.withLock(visibleToThreadSanitizerAs: self) { $0?.isCoreLockHeld ?? false } }
    private var watching: Bool { engine.withLock(visibleToThreadSanitizerAs: self) { $0 != nil } }

    func statement() {
        guard watching else { return }   // opening the store, before the engine exists
        let underLock = locked
        counts.withLock(visibleToThreadSanitizerAs: self) { $0.statements += 1; if underLock { $0.statementsUnderLock += 1 } }
    }
    func request() {
        let underLock = locked
        counts.withLock(visibleToThreadSanitizerAs: self) { $0.requests += 1; if underLock { $0.requestsUnderLock += 1 } }
    }
    var summary: (statements: Int, statementsUnderLock: Int, requests: Int, requestsUnderLock: Int) {
        counts.withLock(visibleToThreadSanitizerAs: self) { ($0.statements, $0.statementsUnderLock, $0.requests, $0.requestsUnderLock) }
    }
}

@Suite(.serialized) struct EngineLockTests {
    /// By construction the core holds no store and no transport, and the shell applies effects only after the lock is
    /// released. This checks it: one thread drives a whole flight with flight-time sync (every store write, read and
    /// HTTP request runs inline on that thread), and each SQL statement and request looks at the lock as it runs.
    @Test func noStoreStatementAndNoRequestRunWhileTheCoreLockIsHeld() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let witness = LockWitness()
        var storeOptions = StoreOptions()
        storeOptions.statementObserver = StatementObserver { _ in witness.statement() }
        var configuration = EddyConfiguration(storePath: folder.path("engine.sqlite"), storeOptions: storeOptions,
                                              delivery: .callerThread, syncTiming: .flightTime)
        configuration.positionUploadIntervalSeconds = 30
        configuration.transportWrapper = { inner in ObservedTransport(inner: inner, observe: { witness.request() }) }
        let engine = try EddyEngine(configuration: configuration)
        witness.watch(engine)
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "lock-check", environment: .local(port: server.port))
        try engine.startMonitoringAlerts(with: AlertQuery())
        engine.setFlight(Flight(flightNumber: "DAL1"))
        let now = Date().timeIntervalSince1970.rounded(.down)
        for sample in FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples() {
            engine.push(shifted(sample, by: now - 3600))
        }
        engine.finishDetection()
        engine.syncNow()
        engine.stop()

        let summary = witness.summary
        witness.watch(nil)   // the witness and the engine's transport wrapper hold each other
        #expect(!log.named("detectedTurbulence").isEmpty, "the flight produced reports")
        #expect(summary.statements > 100, "store statements observed: \(summary.statements)")
        #expect(summary.requests > 3, "requests observed: \(summary.requests)")
        #expect(summary.statementsUnderLock == 0)
        #expect(summary.requestsUnderLock == 0)
    }
}
