import EddyDetection
import EddyNavigation
import EddyVocabulary

/// Detection of the current flight in Unix time: the detection pipeline fed with flight time (Unix time − a
/// whole-second base fixed at the flight's first sample), and its reports' times put back into Unix seconds.
///
/// Flight time is rounded to the microsecond: Unix-time doubles resolve only ≈ 2.4e-7 s, and without the rounding a
/// sample written as t = 0.02 in a log would land at 0.0199999809… and could fall into the previous 40 ms tick. With
/// it, the pipeline sees what a replay of the log sees (`eddy replay` and the engine agree bit for bit).
struct FlightDetection: Sendable {
    private var pipeline: DetectionPipeline?
    /// The whole Unix second subtracted before the pipeline (the first sample's, rounded down).
    private(set) var timeBase = 0.0
    /// Whether a pipeline runs (the flight has had its first sample). Stored: comparing the large optional pipeline
    /// with nil on every sample would copy it.
    private(set) var isRunning = false

    /// The base a flight starting with a sample at `t` gets.
    static func timeBase(forFirstSampleAt t: Double) -> Double { t.rounded(.down) }

    /// Starts a pipeline with `configuration` at `timeBase`.
    mutating func begin(timeBase: Double, configuration: DetectionConfiguration) {
        self.timeBase = timeBase
        pipeline = DetectionPipeline(configuration: configuration)
        isRunning = true
    }

    /// Runs one input (Unix seconds) through the pipeline; events carry Unix seconds.
    mutating func process(_ input: DetectionInput, into events: inout [DetectionEvent]) {
        let base = timeBase
        func flightTime(_ t: Double) -> Double { ((t - base) * 1e6).rounded() / 1e6 }
        let shifted: DetectionInput
        // Motion samples (50–100 Hz) retimed here directly; the rest through `retimed` (its closure is not inlined
        // across modules: 0.4 % of the engine's CPU when every sample took it, perf).
        switch input {
        case .accelerometer(var s): s.t = flightTime(s.t); shifted = .accelerometer(s)
        case .gyroscope(var s): s.t = flightTime(s.t); shifted = .gyroscope(s)
        default: shifted = input.retimed(flightTime)
        }
        let first = events.count
        pipeline?.process(shifted, into: &events)
        Self.unshift(&events, from: first, timeBase: timeBase)
    }

    /// Closes the open tile crossing and ends the pipeline; events carry Unix seconds.
    mutating func finish(into events: inout [DetectionEvent]) {
        let first = events.count
        pipeline?.finish(into: &events)
        Self.unshift(&events, from: first, timeBase: timeBase)
        pipeline = nil
        isRunning = false
    }

    /// Puts report times from `first` on back into Unix seconds. Static, and given only the base: a method of this large
    /// value called from a mutating one would copy the whole pipeline on every sample.
    private static func unshift(_ events: inout [DetectionEvent], from first: Int, timeBase: Double) {
        guard events.count > first else { return }
        for i in first..<events.count {
            if case .tile(var report) = events[i] {
                report.enterTime += timeBase
                report.exitTime += timeBase
                events[i] = .tile(report)
            } else if case .notice(var notice) = events[i] {
                notice.start += timeBase
                notice.end = notice.end.map { $0 + timeBase }
                events[i] = .notice(notice)
            }
        }
    }
}
