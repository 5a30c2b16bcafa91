package import EddyVocabulary
import EddyNavigation

/// One flight's stage calls, recorded for timing each stage alone (what `eddy-bench replay` prints next to the
/// pipeline's total; docs/detection.md "Stages").
///
/// The flight runs once through `NavigatedDetection` with a recording `StageRecorder`, which keeps every stage call
/// with its arguments (normal runs use `NoStageRecorder`, which records nothing and costs nothing). Each `replay` then
/// makes only one stage's calls on fresh stages; the caller times it (this module never reads a clock). Navigation is
/// replayed over the flight's fixes and barometer readings, and set-up is the making of a `NavigatedDetection`.
package struct StageReplay: Sendable {
    /// The configuration the flight ran with.
    package let configuration: DetectionConfiguration
    private let inputs: [StageName: [StageInput]]
    private let rareInputs: [RareStageInput]
    private let navigationSamples: [SensorSample]

    /// Records `samples` (time-ordered) through detection with `configuration`.
    package init(samples: [SensorSample], configuration: DetectionConfiguration) {
        self.configuration = configuration
        var recording = StageInputRecording()
        var detection = NavigatedDetection(configuration: configuration)
        var events: [DetectionEvent] = []
        for sample in samples { detection.process(sample, into: &events, recorder: &recording) }
        detection.finish(into: &events, recorder: &recording)
        var byStage: [StageName: [StageInput]] = [:]
        for input in recording.inputs { byStage[input.stage, default: []].append(input) }
        inputs = byStage
        rareInputs = recording.rareInputs
        navigationSamples = samples.filter {
            switch $0 {
            case .location, .barometer: true
            case .accelerometer, .gyroscope: false
            }
        }
    }

    /// How many calls `stage` received.
    package func callCount(_ stage: StageName) -> Int { inputs[stage]?.count ?? 0 }

    /// Makes `stage`'s recorded calls on fresh stages, `passes` times; returns a number from the results.
    package func replay(_ stage: StageName, passes: Int) -> Double {
        let calls = inputs[stage] ?? []
        let initial = DetectionStages(configuration: configuration)
        var events: [DetectionEvent] = []
        var sink = 0.0
        calls.withUnsafeBufferPointer { calls in
            for _ in 0..<passes {
                var stages = initial
                for index in calls.indices { sink += stages.replay(calls[index], rare: rareInputs, into: &events) }
                events.removeAll(keepingCapacity: true)
            }
        }
        return sink
    }

    /// Runs the flight's fixes and barometer readings through a fresh navigation, `passes` times.
    package func replayNavigation(passes: Int) -> Double {
        var sink = 0.0
        for _ in 0..<passes {
            var navigation = Navigation(configuration: NavigationConfiguration(aircraftClass: configuration.aircraftClass))
            for sample in navigationSamples {
                switch sample {
                case .location(let fix): sink += navigation.addFix(fix)?.t ?? 0
                case .barometer(let reading): sink += navigation.addBarometer(reading).accepted ? 1 : 0
                case .accelerometer, .gyroscope: break
                }
            }
        }
        return sink
    }

    /// Makes a fresh `NavigatedDetection` (navigation and stages), `passes` times.
    package func replaySetup(passes: Int) -> Double {
        var sink = 0.0
        for _ in 0..<passes { sink += NavigatedDetection(configuration: configuration).pipeline.unitVariance }
        return sink
    }
}
