import Eddy
import EddySimulation
import EddyStore
import EddyTesting
import EddyVocabulary
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

    /// An offline engine on flight time, storing in `folder`, started, with a recorder of its callbacks.
    static func startedOfflineEngine(in folder: TemporaryDirectory) throws -> (EddyEngine, CallbackRecorder) {
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("engine.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: "offline", airline: "DAL", userId: "pilot", environment: .offline)
        return (engine, log)
    }

    /// A store failure reaches the host through the callback that says what it is: the operation, the report, the
    /// store's typed error. The report it concerns is not announced as detected.
    @Test func aFailedOwnReportWriteIsDidFailToAccessStoreNotADetection() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (engine, log) = try Self.startedOfflineEngine(in: folder)
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
        #expect(ownReports.allSatisfy { $0.description.hasPrefix("own report \($0.reportId!) not stored yet (kept in memory, stored when the store works again): ") })
        #expect(log.named("detectedTurbulence").isEmpty, "nothing is announced that was not stored")
        #expect(log.named("didFailToFetchNewData").isEmpty, "store failures are not fetch failures")
    }

    /// A full disk loses no own report: each refused report is kept in memory, stored and announced once the disk has
    /// room again, in detection order, and the engine's outbox ends with every report the detection made (the same
    /// flight without a full disk is the reference).
    @Test func reportsRefusedByAFullDiskAreStoredWhenItHasRoomAgain() throws {
        let samples = FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples().map { shifted($0, by: 1_790_000_000) }
        func run(fullDiskBetween window: Range<Double>?) throws -> (announced: [UUID], outbox: Set<UUID>, refused: [UUID], detected: [TileReport]) {
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let (engine, log) = try Self.startedOfflineEngine(in: folder)
            var full = false, fillers = Set<UUID>()
            for sample in samples {
                if let window, !full, sample.t >= window.lowerBound, sample.t < window.upperBound {
                    try engine.store.simulateFullDisk(true)
                    // Fill the last free room of the outbox's pages, so the next own report needs a page the cap refuses.
                    var refused = false
                    for i in 0..<100_000 where !refused {
                        let filler = TileReport(id: UUID(), tile: TileID(h3: 0x85283473fffffff, layer: 10 + i % 30), enterTime: 1_790_000_000,
                                                exitTime: 1_790_000_010, edrPeak: 0.1, edrMedian: 0.05, reporterClass: .medium)
                        do { try engine.store.insertOwnReports([filler]); fillers.insert(filler.id) } catch { refused = error == .diskFull(path: folder.path("engine.sqlite")) }
                    }
                    #expect(refused, "the capped store never refused a write")
                    full = true
                }
                if let window, full, sample.t >= window.upperBound {
                    try engine.store.simulateFullDisk(false)
                    full = false
                }
                engine.push(sample)
            }
            engine.finishDetection()
            let detected = log.named("detectedTurbulence").compactMap { if case .detectedTurbulence(let d) = $0.callback { d.report } else { nil } }
            let refused = log.callbacks.compactMap { callback -> UUID? in
                if case .didFailToAccessStore(let failure) = callback, failure.operation == .storeOwnReport { failure.reportId } else { nil }
            }
            return (detected.map(\.id), try engine.store.ownReportIDs().subtracting(fillers), refused, detected)
        }
        let reference = try run(fullDiskBetween: nil)
        #expect(reference.detected.count >= 5, "the turbulent flight should make several reports")
        let start = samples[0].t
        let withFullDisk = try run(fullDiskBetween: (start + 200)..<(start + 700))
        #expect(withFullDisk.refused.count >= 2, "the full disk should refuse reports (refused \(withFullDisk.refused.count))")
        // Every refused report was stored and announced later, once; nothing announced twice.
        #expect(Set(withFullDisk.refused).isSubset(of: Set(withFullDisk.announced)))
        #expect(withFullDisk.announced.count == Set(withFullDisk.announced).count)
        #expect(Set(withFullDisk.announced) == withFullDisk.outbox)
        // The same tiles, with the same values, as the flight without a full disk (report ids are random per run).
        func key(_ r: TileReport) -> String { "\(r.tile.h3)/\(r.tile.layer)/\(r.enterTime)/\(r.exitTime)/\(r.edrPeak)/\(r.edrMedian)" }
        #expect(withFullDisk.detected.map(key).sorted() == reference.detected.map(key).sorted())
    }
}

