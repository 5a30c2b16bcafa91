import Eddy
import EddyCore
import EddySimulation
import EddyStore
import EddyTesting
import Foundation
import Testing

@Suite struct EngineTypedStoreErrorTests {
    @Test func aStoreThatCannotOpenIsEddyErrorStoreWithTheStoreError() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let blocker = folder.path("not-a-folder")
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let storePath = blocker + "/engine/e.sqlite"
        do {
            _ = try EddyEngine(configuration: EddyConfiguration(storePath: storePath, delivery: .callerThread))
            Issue.record("the engine opened a store under a regular file")
        } catch {
            guard case let .store(.cannotOpen(path, _)) = error else {
                Issue.record("expected EddyError.store(.cannotOpen), got \(error)")
                return
            }
            #expect(path == storePath)
            #expect(error.description.hasPrefix("local store failed: cannot open the store at \(storePath)"))
            #expect(error.description.contains("Check that the folder exists and is writable"))
        }
    }

    /// A store failure reaches the host through the callback that says what it is: the operation, the report, the
    /// store's typed error. The report it concerns is not announced as detected.
    @Test func aFailedOwnReportWriteIsDidFailToAccessStoreNotADetection() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("engine.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: "offline", airline: "DAL", userId: "pilot", environment: .offline)
        try engine.store.close()   // every later statement fails
        for sample in FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples() {
            engine.push(shifted(sample, by: 1_790_000_000))
        }
        engine.finishDetection()
        let failures = log.callbacks.compactMap { if case .didFailToAccessStore(let f) = $0 { f } else { nil } }
        let ownReports = failures.filter { $0.operation == .storeOwnReport }
        #expect(!ownReports.isEmpty, "callbacks: \(Set(log.callbacks.map(\.name)))")
        #expect(ownReports.allSatisfy { $0.reportId != nil })
        #expect(ownReports.allSatisfy { if case .database = $0.error { true } else { false } })
        #expect(ownReports.allSatisfy { $0.description.hasPrefix("own report \($0.reportId!) not stored: ") })
        #expect(log.named("detectedTurbulence").isEmpty, "nothing is announced that was not stored")
        #expect(log.named("didFailToFetchNewData").isEmpty, "store failures are not fetch failures")
    }
}
