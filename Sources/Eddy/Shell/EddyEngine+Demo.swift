import Dispatch
import EddySimulation
import EddyStore
import EddySupport
import EddyVocabulary
import Foundation
import Logging
import Synchronization

/// The demo that runs (at most one): a generation number that cancels a real-time runner when it changes.
final class DemoRunner: Sendable {
    private let state = Mutex<(generation: Int, running: Bool)>((0, false))

    /// Starts a new demo and returns its generation (the previous one's runner stops at its next batch).
    func begin() -> Int { state.withLock(visibleToThreadSanitizerAs: self) { $0.generation += 1; $0.running = true; return $0.generation } }
    /// Whether the demo of `generation` is still the one that runs.
    func isCurrent(_ generation: Int) -> Bool { state.withLock(visibleToThreadSanitizerAs: self) { $0.running && $0.generation == generation } }
    /// Ends the demo of `generation` (nil: whichever runs); returns whether one was running.
    @discardableResult
    func end(_ generation: Int? = nil) -> Bool {
        state.withLock(visibleToThreadSanitizerAs: self) { state in
            guard state.running, generation.map({ $0 == state.generation }) ?? true else { return false }
            state.running = false
            state.generation += 1
            return true
        }
    }
    /// Whether a demo runs.
    var isRunning: Bool { state.withLock(visibleToThreadSanitizerAs: self) { $0.running } }
}

extension EddyEngine {
    /// The `source` of a demo's reports in the store (`TurbulenceItem.source`), and their reporter id.
    public static let simulatedReportSource = "simulated"

    /// Whether a demo runs (`startDemo(_:pace:)` until its end or `stopDemo()`).
    public var isDemoRunning: Bool { demo.isRunning }

    /// Flies `demo` through the real pipeline: its simulated samples are pushed like a host's (detection, flight phase,
    /// altitude, alerts), the host's own samples are ignored meanwhile, and the flight detected so far is closed first.
    ///
    /// Everything that comes out is flagged: `DetectedTurbulence.isSimulated`, `EddyAlert.isSimulated`, and the reports
    /// are stored locally as observations whose source is ``simulatedReportSource`` (shown by turbulence queries and
    /// alerts, cleared by `stop()` and by the 6 h purge) — never in the outbox, so never uploaded; no position is
    /// uploaded during a demo. The engine must be started (an `.offline` environment is enough).
    ///
    /// `.realTime` returns at once and plays the demo on a background thread; `.immediate` plays it on the calling
    /// thread and returns when it is over. Either way the demo ends by itself at its last sample.
    public func startDemo(_ demo: EddyDemo, pace: DemoPace = .realTime) throws(EddyError) {
        guard isStarted else { throw .notStarted }
        guard !demo.segments.isEmpty, demo.segments.allSatisfy({ $0.durationSeconds.isFinite && $0.durationSeconds >= 0 }),
              demo.durationSeconds > 0, demo.durationSeconds <= 86_400 else {
            throw .demoInvalid("segments must have finite, non-negative durations totalling 0 < total ≤ 86,400 s")
        }
        guard demo.startLatitude.isFinite, abs(demo.startLatitude) <= 85, demo.startLongitude.isFinite, abs(demo.startLongitude) <= 180,
              demo.courseDegrees.isFinite, demo.altitudeFeet.map({ $0.isFinite && $0 >= 1_000 && $0 <= 60_000 }) ?? true else {
            throw .demoInvalid("start latitude within ±85°, longitude within ±180°, a finite course and an altitude of 1,000…60,000 ft")
        }
        if case .immediate(let start) = pace, !(start.isFinite && start > 0) {
            throw .demoInvalid("the immediate pace's start time must be a positive Unix time, got \(start)")
        }
        stopDemo()
        let aircraftClass = aircraft.aircraftClass
        let scenario = FlightScenario(
            aircraftClass: aircraftClass,
            segments: demo.segments.map { TurbulenceSegment(edr: EddyDemo.edr(for: $0.severity, aircraftClass: aircraftClass),
                                                            durationSeconds: $0.durationSeconds) },
            startLatitude: demo.startLatitude, startLongitude: demo.startLongitude, altitudeFeet: demo.altitudeFeet,
            courseDegrees: demo.courseDegrees, seed: demo.seed)
        let generation = self.demo.begin()
        let now = hostNow()
        apply(core.withLock { $0.setSimulating(true, now: now) })
        logger?.info("demo: started", metadata: ["seconds": "\(demo.durationSeconds)"])
        switch pace {
        case .immediate(let start):
            play(scenario, startEpochSeconds: start, generation: generation)
        case .realTime:
            // On the wall clock, on a queue of its own (each push may write to the store).
            let wallClock = configuration.wallClock
            let start = wallClock.now()
            Task(executorPreference: SerialQueueExecutor(label: "eddy-demo")) { [weak self] in
                await self?.playInRealTime(scenario, startEpochSeconds: start, generation: generation, clock: wallClock)
            }
        }
    }

    /// Ends the demo now (its open tile is stored, flagged); the host's samples are taken again from the next one.
    public func stopDemo() {
        guard demo.end() else { return }
        finishDemo()
    }

    /// Pushes the scenario's samples at once, stamped from `startEpochSeconds`.
    private func play(_ scenario: FlightScenario, startEpochSeconds: Double, generation: Int) {
        var simulation = FlightSimulation(scenario)
        while let chunk = simulation.next() {
            for sample in Self.stamped(chunk, from: startEpochSeconds) {
                guard demo.isCurrent(generation) else { return }   // stopped: stopDemo() or a newer demo finished it
                pushSimulated(sample)
            }
        }
        if demo.end(generation) { finishDemo() }
    }

    /// Pushes the scenario's samples, stamped from `startEpochSeconds`, each once `clock` has reached its time (a stop
    /// is noticed within 50 ms).
    private func playInRealTime(_ scenario: FlightScenario, startEpochSeconds: Double, generation: Int, clock: any EpochClock) async {
        var simulation = FlightSimulation(scenario)
        while let chunk = simulation.next() {
            for sample in Self.stamped(chunk, from: startEpochSeconds) {
                while sample.t > clock.now() {
                    guard demo.isCurrent(generation) else { return }
                    await clock.sleep(seconds: min(0.05, sample.t - clock.now()))
                }
                guard demo.isCurrent(generation) else { return }
                pushSimulated(sample)
            }
        }
        if demo.end(generation) { finishDemo() }
    }

    /// A chunk's samples in time order, in Unix seconds from `startEpochSeconds`.
    private static func stamped(_ chunk: SimulatedChunk, from startEpochSeconds: Double) -> [SensorSample] {
        var shifted = chunk
        for i in shifted.accelerometer.indices { shifted.accelerometer[i].t += startEpochSeconds }
        for i in shifted.gyroscope.indices { shifted.gyroscope[i].t += startEpochSeconds }
        for i in shifted.location.indices { shifted.location[i].t += startEpochSeconds }
        for i in shifted.barometer.indices { shifted.barometer[i].t += startEpochSeconds }
        return shifted.mergedSamples()
    }

    /// One demo sample into the core (taken only while the demo runs).
    private func pushSimulated(_ sample: SensorSample) {
        let step = core.withLock { $0.push(sample, simulated: true) }
        if configuration.syncTiming == .flightTime { flightClock.advance(to: step.time) }
        apply(step)
    }

    private func finishDemo() {
        let now = hostNow()
        apply(core.withLock { $0.setSimulating(false, now: now) })
        logger?.info("demo: ended")
    }

}

extension TurbulenceItem {
    /// True for a report of a demo (`EddyEngine.startDemo`). Known when the query read reporter details
    /// (`includeReporterDetails`; the engine's own turbulence queries do after a demo stored reports).
    public var isSimulated: Bool { source == EddyEngine.simulatedReportSource }
}
