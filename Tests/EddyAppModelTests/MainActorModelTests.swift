// A Swift 6 app's model, written as an app developer would (issue 27 deliverable 3): this target is in Swift 6 mode
// with strict concurrency, imports only `Eddy`, `EddyTesting`, `Observation` and `Foundation`, and its model is a
// `@MainActor @Observable` class that adopts `EddyMainActorDelegate` without `@preconcurrency`.
import Eddy
import EddyTesting
import Foundation
import Observation
import Synchronization
import Testing

/// Set when Observation reports a change (its `onChange` is `@Sendable`).
final class ChangeFlag: Sendable {
    let changed = Mutex(false)
}

/// The app's flight model: what a SwiftUI view would observe.
@MainActor @Observable
final class FlightModel: EddyMainActorDelegate {
    var isRecording = false
    var crossings: [DetectedTurbulence] = []
    var notices: [String] = []
    /// Whether every callback ran on the main queue (SkyPath's contract; the main thread on Apple platforms — on Linux an
    /// async main parks the main thread in `dispatch_main`, and the main queue runs on a worker).
    var allOnMainQueue = true
    /// Marks the main queue (set by the test).
    static let mainQueueKey = DispatchSpecificKey<Int>()

    func didUpdateRecordingStatus(to recording: Bool) { isRecording = recording; check() }
    func didReceiveNewTurbulenceData(areaType: DataAreaType) { check() }
    func didChangeDevicePosition(_ inPosition: Bool, horizontal: Bool) { check() }
    func detectedTurbulence(_ report: DetectedTurbulence) { crossings.append(report); check() }
    func didReceiveMeasurementNotice(_ notice: MeasurementNotice) { notices.append(notice.kindName); check() }

    private func check() { if DispatchQueue.getSpecific(key: Self.mainQueueKey) != 1 { allOnMainQueue = false } }
}

/// A model fed by the engine's `AsyncSequence` of events instead of a delegate.
@MainActor @Observable
final class EventsModel {
    var crossings = 0
    var sequences: [Int] = []

    func follow(_ events: AsyncStream<TimedCallback>, until expectedCrossings: Int) async {
        for await event in events {
            sequences.append(event.sequence)
            if case .detectedTurbulence = event.callback { crossings += 1 }
            if crossings >= expectedCrossings { break }
        }
    }
}

@Suite(.serialized) struct MainActorModelTests {
    /// Five minutes of a medium jet in moderate turbulence, in Unix seconds.
    private static func flight() -> SyntheticFlight {
        SyntheticFlight(segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 300)], startEpochSeconds: 1_790_000_000,
                        startLatitude: 47, startLongitude: 8, courseDegrees: 90)
    }

    /// An offline engine whose callbacks go to a background queue (the main-actor delegate hears them on the main queue
    /// all the same).
    private static func engine(_ folder: TemporaryDirectory) throws -> EddyEngine {
        try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("app.sqlite"), delivery: .queue(DispatchQueue(label: "eddy.callbacks")), syncTiming: .flightTime))
    }

    @MainActor @Test func anObservableMainActorModelHearsTheFlightOnTheMainQueue() async throws {
        let folder = try TemporaryDirectory(prefix: "eddy-app-model")
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        DispatchQueue.main.setSpecific(key: FlightModel.mainQueueKey, value: 1)
        let model = FlightModel()
        engine.mainActorDelegate = model
        let flag = ChangeFlag()
        withObservationTracking { _ = model.crossings } onChange: { flag.changed.withLock { $0 = true } }
        // The sensors run off the main actor, as CoreMotion's queue does.
        let samples = Self.flight().samples()
        try await Task.detached {
            try engine.startNow(apiKey: "k", airline: "DAL", userId: "pilot", environment: .offline)
            engine.push(contentsOf: samples)
            engine.finishDetection()
        }.value
        let stored = try engine.store.outboxCounts().pending
        #expect(stored > 2, "the flight crossed tiles")
        // Deliveries hop from the engine's queue to the main queue: wait (bounded) until the last one arrived.
        var waited = 0
        while model.crossings.count < stored, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(model.isRecording)
        #expect(model.crossings.count == stored, "every stored crossing heard once")
        #expect(model.allOnMainQueue)
        #expect(flag.changed.withLock { $0 }, "Observation saw the model change")
    }

    @MainActor @Test func aModelFollowsTheEngineEventsAsAnAsyncSequence() async throws {
        let folder = try TemporaryDirectory(prefix: "eddy-app-events")
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        let model = EventsModel()
        let events = engine.events(bufferingNewest: 100_000)
        let samples = Self.flight().samples()
        let flying = Task.detached {
            try engine.startNow(apiKey: "k", airline: "DAL", userId: "pilot", environment: .offline)
            engine.push(contentsOf: samples)
            engine.finishDetection()
            return try engine.store.outboxCounts().pending
        }
        let stored = try await flying.value
        #expect(stored > 2)
        await model.follow(events, until: stored)
        #expect(model.crossings == stored)
        #expect(model.sequences == Array(model.sequences.indices).map { model.sequences[0] + $0 }, "in delivery order, none lost")
    }
}
