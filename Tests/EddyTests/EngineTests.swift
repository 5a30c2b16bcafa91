import Dispatch
import EddyAlerts
import EddyDetection
import EddyH3
import EddyNavigation
import EddySimulation
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Synchronization
import Testing
@testable import Eddy

/// A temporary directory for one engine test.
typealias EngineFolder = TemporaryDirectory

extension EngineFolder {
    /// An engine on the store `name` in this folder, delivering callbacks on the caller's thread, syncing on flight time.
    func flightTimeEngine(_ name: String = "e.sqlite") throws -> EddyEngine {
        try EddyEngine(configuration: EddyConfiguration(storePath: path(name), delivery: .callerThread, syncTiming: .flightTime))
    }
}

/// The medium-jet flight of the sync tests: 5 min smooth, 8 min EDR 0.35, 5 min smooth, from JFK towards the NE.
func turbulentScenario(seed: UInt64 = 7) -> FlightScenario {
    FlightScenario(
        aircraftClass: .medium,
        segments: [TurbulenceSegment(edr: 0.0, durationSeconds: 300), TurbulenceSegment(edr: 0.35, durationSeconds: 480),
                   TurbulenceSegment(edr: 0.0, durationSeconds: 300)],
        startLatitude: 40.64, startLongitude: -73.78, courseDegrees: 50, seed: seed)
}

/// A sample with its time shifted by `offset` seconds.
func shifted(_ sample: SensorSample, by offset: Double) -> SensorSample {
    var copy = sample
    copy.t += offset
    return copy
}

/// A sample at time `t`.
func retimed(_ sample: SensorSample, to t: Double) -> SensorSample {
    var copy = sample
    copy.t = t
    return copy
}

@Suite struct EngineDetectionTests {
    @Test func offlineEngineDetectsStoresFirstAndMatchesThePipeline() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("engine.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        let log = CallbackRecorder()
        let storedFirst = CallbackRecorder()
        let store = engine.store
        engine.callbackObserver = { timed in
            log.record(timed)
            if case .detectedTurbulence(let d) = timed.callback, (try? store.containsOwnReport(id: d.report.id)) == true {
                storedFirst.record(timed)
            }
        }
        try engine.startNow(apiKey: "offline-key", airline: "DAL", userId: "pilot-1", environment: .offline)
        try engine.setAircraft(designator: "B738")
        let start = 1_790_000_000.0
        let samples = FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples()
        for sample in samples { engine.push(shifted(sample, by: start)) }
        engine.finishDetection()

        // The same flight straight through the pipeline at log time rounded to the microsecond, as a log file holds it
        // (the engine computes Unix time − the flight's whole-second base, rounded to the microsecond).
        #expect(samples.first?.t == 0)
        // The pipeline configured for the same aircraft (the B738's own response, not the medium class's).
        var pipeline = NavigatedDetection(configuration: DetectionConfiguration(aircraftClass: .medium, typeDesignator: "B738"))
        // The same date for the altitude's climatology: the engine's Unix time is the log time + `start`.
        pipeline.setFlightLevelHints(FlightLevelHints(), clockOffsetSeconds: start)
        var events: [DetectionEvent] = []
        for sample in samples {
            pipeline.process(retimed(sample, to: (sample.t * 1e6).rounded() / 1e6), into: &events)
        }
        pipeline.finish(into: &events)
        let expected = events.compactMap { if case .tile(let r) = $0 { r } else { nil } }

        let detected = log.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
        #expect(log.callbacks.first == .didUpdateRecordingStatus(true))
        #expect(detected.count == expected.count)
        #expect(detected.count >= 5)
        #expect(storedFirst.all.count == detected.count, "every report is in the store when its callback fires")
        #expect(try engine.store.outboxCounts().pending == detected.count)
        for (got, want) in zip(detected, expected) {
            #expect(got.report.tile == want.tile)
            #expect(abs(got.report.enterTime - (want.enterTime + start)) < 1e-6)
            #expect(got.report.edrPeak == want.edrPeak)
            #expect(got.report.edrMedian == want.edrMedian)
        }
        #expect(detected.contains { $0.severity >= .moderate }, "EDR 0.35 reads moderate or worse for a medium jet")
        #expect(detected.contains { $0.severity == .none }, "smooth crossings are reported as .none")
        // Device position: only on change.
        let positions = log.callbacks.compactMap { c -> [Bool]? in
            if case .didChangeDevicePosition(let p, let h) = c { [p, h] } else { nil }
        }
        #expect(!positions.isEmpty)
        for (a, b) in zip(positions, positions.dropFirst()) { #expect(a != b) }
        // Sequence numbers are the delivery order.
        #expect(log.all.map(\.sequence) == Array(0..<log.all.count))
    }

    @Test func samplesBeforeStartAreIgnoredAndStopKeepsPendingReports() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let path = folder.path("engine.sqlite")
        let engine = try EddyEngine(configuration: EddyConfiguration(storePath: path, delivery: .callerThread, syncTiming: .flightTime))
        let log = CallbackRecorder(engine)
        let samples = FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples()
        for sample in samples.prefix(5000) { engine.push(shifted(sample, by: 1_790_000_000)) }
        #expect(log.all.isEmpty)
        #expect(engine.engineTime == nil)
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        for sample in samples { engine.push(shifted(sample, by: 1_790_000_000)) }
        engine.stop()
        let pending = try engine.store.outboxCounts().pending
        #expect(pending > 0)
        #expect(pending == log.named("detectedTurbulence").count)
        #expect(log.callbacks.last == .didUpdateRecordingStatus(false))
        #expect(!engine.isStarted)
        // A new engine on the same store still has them (nothing lost across stop and relaunch).
        let again = try EddyEngine(configuration: EddyConfiguration(storePath: path, delivery: .callerThread, syncTiming: .flightTime))
        #expect(try again.store.outboxCounts().pending == pending)
    }
}

@Suite struct EngineValidationTests {
    private func engine(_ folder: EngineFolder) throws -> EddyEngine {
        try EddyEngine(configuration: EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread))
    }

    @Test func startRefusesBadIdentityAndEnvironmentWithTypedErrors() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let e = try engine(folder)
        #expect(throws: EddyError.apiKeyInvalid("the API key is empty")) {
            try e.startNow(apiKey: "", airline: "DAL", userId: "u", environment: .offline)
        }
        #expect { try e.startNow(apiKey: "k", airline: "dal", userId: "u", environment: .offline) } throws: { error in
            guard case EddyError.userIdOrAirlineInvalid(let m) = error else { return false }
            return m.contains("ICAO")
        }
        #expect { try e.startNow(apiKey: "k", airline: "DAL", userId: "", environment: .offline) } throws: { error in
            if case EddyError.userIdOrAirlineInvalid = error { true } else { false }
        }
        #expect { try e.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .server("ftp://x")) } throws: { error in
            if case EddyError.environmentInvalid = error { true } else { false }
        }
        #expect(!e.isStarted)
        #expect(throws: EddyError.notStarted) { try e.fetchData(refresh: false) }
        #expect(throws: EddyError.noLocation) { _ = try e.alerts(with: AlertQuery()) }
    }

    @Test func firstStartWithoutAReachableServerIsOfflineError() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let e = try engine(folder)
        // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
        #expect { try e.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .local(port: 9)) } throws: { error in
            guard case EddyError.offline(let m) = error else { return false }
            return !m.isEmpty && (error as? EddyError)?.description.contains("try again when online") == true
        }
        #expect(!e.isStarted)
    }

    @Test func dataQueryAndAircraftAreValidatedAndPersisted() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let e = try engine(folder)
        var query = DataQuery()
        query.viewport = (0..<251).map { i in LatLng(latitude: 40 + sin(Double(i) / 40), longitude: -70 + cos(Double(i) / 40)) }
        #expect(throws: EddyError.query(.polygonTooManyCoordinates(count: 251, maximum: 250))) { try e.setDataQuery(query) }
        query.viewport = [LatLng(latitude: 40, longitude: -70), LatLng(latitude: 41, longitude: -70)]
        #expect(throws: EddyError.query(.polygonTooFewCoordinates(count: 2))) { try e.setDataQuery(query) }
        query.viewport = nil
        query.altitudeRangeFeet = 500...30_000
        #expect(throws: EddyError.query(.altRangeNotRoundToThousandFeet(lowerFeet: 500, upperFeet: 30_000))) { try e.setDataQuery(query) }
        query.altitudeRangeFeet = 0...61_000
        #expect(throws: EddyError.query(.altRangeOutOfBounds(lowerFeet: 0, upperFeet: 61_000))) { try e.setDataQuery(query) }
        query.altitudeRangeFeet = 20_000...45_000
        query.routePolygon = [LatLng(latitude: 40, longitude: -74), LatLng(latitude: 41, longitude: -72), LatLng(latitude: 40, longitude: -70),
                              LatLng(latitude: 91, longitude: -70)]
        #expect(throws: EddyError.query(.invalidCoordinate(index: 3, latitude: 91, longitude: -70))) { try e.setDataQuery(query) }
        query.routePolygon?.removeLast()
        query.types = []
        #expect { try e.setDataQuery(query) } throws: { error in
            if case EddyError.dataQueryInvalid = error { true } else { false }
        }
        query.types = [.turbulence, .nowcast]
        query.historyWindow = .fourHours
        try e.setDataQuery(query)
        #expect(throws: EddyError.unknownAircraft(AircraftTypeError.unknownDesignator("ZZZZ").description)) {
            try e.setAircraft(designator: "ZZZZ")
        }
        try e.setAircraft(designator: "C172")
        e.setFlight(Flight(flightNumber: "DAL42", departure: "KJFK", destination: "KBOS"))
        e.updateFrequency = .medium
        // A relaunch restores all of it.
        let relaunched = try engine(folder)
        #expect(relaunched.dataQuery == query)
        #expect(relaunched.aircraft.designator == "C172")
        #expect(relaunched.aircraft.aircraftClass == .small)
        #expect(relaunched.flight?.flightNumber == "DAL42")
        #expect(relaunched.updateFrequency == .medium)
        #expect(throws: EddyError.alertQuery(.invalidRoute(pointCount: 1))) {
            var bad = AlertQuery()
            bad.route = [LatLng(latitude: 40, longitude: -70)]
            try relaunched.startMonitoringAlerts(with: bad)
        }
    }
}

@Suite struct EngineDeliveryTests {
    @Test func callbacksArriveInOrderOnTheHostQueue() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let queue = DispatchQueue(label: "host-queue")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "host")
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("e.sqlite"), delivery: .queue(queue), syncTiming: .flightTime))
        let log = CallbackRecorder()
        let onHostQueue = CallbackRecorder()
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        engine.callbackObserver = { timed in
            log.record(timed)
            if DispatchQueue.getSpecific(key: key) == "host" { onHostQueue.record(timed) }
        }
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        for sample in FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples() {
            engine.push(shifted(sample, by: 1_790_000_000))
        }
        engine.finishDetection()
        queue.sync {}   // everything enqueued before this point has run
        #expect(log.all.count > 5)
        #expect(onHostQueue.all.count == log.all.count)
        #expect(log.all.map(\.sequence) == Array(0..<log.all.count))
        #expect(delegate.names == log.all.map(\.callback.name))
        for (a, b) in zip(log.all, log.all.dropFirst()) { #expect(a.t <= b.t) }
    }
}

/// A delegate that records the method names it received.
final class RecordingDelegate: EddyDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []
    private func add(_ name: String) { lock.lock(); received.append(name); lock.unlock() }
    var names: [String] { lock.lock(); defer { lock.unlock() }; return received }
    func didUpdateRecordingStatus(to recording: Bool) { add("didUpdateRecordingStatus") }
    func didReceiveNewTurbulenceData(areaType: DataAreaType) { add("didReceiveNewTurbulenceData") }
    func didChangeDevicePosition(_ inPosition: Bool, horizontal: Bool) { add("didChangeDevicePosition") }
    func detectedTurbulence(_ report: DetectedTurbulence) { add("detectedTurbulence") }
    func didReceiveAlert(_ alert: EddyAlert) { add("didReceiveAlert") }
    func didUpdateLowPowerMode(_ isLowPower: Bool) { add("didUpdateLowPowerMode") }
    func serverReachabilityUpdated(to reachable: Bool) { add("serverReachabilityUpdated") }
    func didUpdateFetchingStatus(to status: FetchingStatus, areaType: DataAreaType, dataType: DataType) {
        add("didUpdateFetchingStatus")
    }
    func didFailToFetchNewData(with error: EddyError) { add("didFailToFetchNewData") }
    func locationManagerDidFail(withError error: EddyError) { add("locationManagerDidFail") }
    func didReceiveNewNowcast() { add("didReceiveNewNowcast") }
    func didReceiveNewTurbulencePolygons() { add("didReceiveNewTurbulencePolygons") }
    func didReceiveNewLiveFlightData() { add("didReceiveNewLiveFlightData") }
    func didUpdateAltitudeContext(_ context: AltitudeContext) { add("didUpdateAltitudeContext") }
    func didDetectInconsistency(_ warning: ConsistencyWarning) { add("didDetectInconsistency") }
}

@Suite struct EngineConcurrencyTests {
    /// Motion and location samples arrive on different threads (CoreMotion's queue, CoreLocation's), each in order,
    /// up to 1 s apart: the engine's reorder buffer puts them back in time order, so detection finds exactly what a
    /// single in-order stream gives, every report is stored, and the callbacks keep their sequence order.
    @Test func pushesFromTwoThreadsGiveTheSameReportsAsOneOrderedStream() throws {
        let samples = FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples().map { shifted($0, by: 1_790_000_000) }
        func run(twoThreads: Bool) throws -> (reports: [TileReport], sequences: [Int], pending: Int) {
            let folder = try EngineFolder()
            defer { folder.remove() }
            let engine = try folder.flightTimeEngine()
            let log = CallbackRecorder(engine)
            try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
            if twoThreads {
                let locations = samples.filter { if case .location = $0 { true } else { false } }
                let motion = samples.filter { if case .location = $0 { false } else { true } }
                let first = samples[0].t
                let progress = Mutex([first, first])   // per thread: time of its last pushed sample
                let group = DispatchGroup()
                // Pushes `mine` in order, never more than 1 s ahead of the other thread's progress.
                func pushInStep(_ mine: [SensorSample], own: Int, other: Int) {
                    DispatchQueue.global().async(group: group) {
                        for sample in mine {
                            while progress.withLock(visibleToThreadSanitizerAs: group, { $0[other] }) < sample.t - 1 { usleep(20) }
                            engine.push(sample)
                            progress.withLock(visibleToThreadSanitizerAs: group) { $0[own] = sample.t }
                        }
                        progress.withLock(visibleToThreadSanitizerAs: group) { $0[own] = .infinity }
                    }
                }
                pushInStep(motion, own: 0, other: 1)
                pushInStep(locations, own: 1, other: 0)
                try #require(group.wait(timeout: .now() + 120) == .success, "the two pushing threads finished")
            } else {
                for sample in samples { engine.push(sample) }
            }
            engine.finishDetection()
            let reports = log.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d.report } else { nil } }
            return (reports, log.all.map(\.sequence), try engine.store.outboxCounts().pending)
        }
        let ordered = try run(twoThreads: false)
        let concurrent = try run(twoThreads: true)
        #expect(ordered.reports.count > 5)
        #expect(concurrent.reports == ordered.reports)
        #expect(concurrent.pending == concurrent.reports.count)
        #expect(concurrent.sequences == Array(0..<concurrent.sequences.count))
    }
}
