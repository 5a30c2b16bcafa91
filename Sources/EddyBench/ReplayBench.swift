import EddyDetection
import EddyReplay
import EddySensorLog
import EddySimulation
import EddyVocabulary
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replay benchmarks: a 12-hour 50 Hz flight (accelerometer + gyroscope + 1 Hz location)
/// is generated on disk (not timed) with the streaming simulator and writer, then
/// - `replay_samples_per_s`: read from disk, parsed, merged and run through the pipeline (in process, best of 3; per
///   second of this thread's CPU time, `_wall` per second of wall clock), and the numpy/scipy batch pipeline
///   (scripts/replay_numpy.py, from the oracle venv) on the same flight with the time ratio;
/// - `pipeline_samples_per_s`: the pipeline alone over a 10-minute flight held in memory, 20 passes (best of 3), and
///   the cost of each of its stages (`pipeline_stage_*_ns_per_sample`, the stages' sum, the wiring and the total);
/// - `replay_peak_rss_mb`: peak RSS (VmHWM) of `eddy replay --json FLIGHT > /dev/null` in a child process.
/// `EDDY_BENCH_HOURS` shortens the flight for a quick look (the targets are for 12 h).
enum ReplayBenchmarks {
    static let replayTarget = 6_000_000.0  // issue 29 (per second of CPU time)
    static let pipelineTarget = 12_000_000.0  // issue 26
    static let rssTargetMB = 50.0

    /// Runs the group and prints its figures.
    static func run() throws {
        let hours = ProcessInfo.processInfo.environment["EDDY_BENCH_HOURS"].flatMap(Double.init) ?? 12
        let runs = 3
        let directory = NSTemporaryDirectory() + "eddy-bench-replay-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // Generate (not timed).
        let generationStart = Date()
        let bytes = try generateFlight(hours: hours, directory: directory)
        print("replay_flight_hours: \(format(hours, 1))")
        print("replay_flight_mb: \(format(Double(bytes) / 1_048_576, 1))")
        print("replay_generation_s: \(format(Date().timeIntervalSince(generationStart), 1))")

        // Reader alone (diagnostic): read + parse + merge, no pipeline.
        let reader = try FlightLogReader(directory: directory)
        var checksum = 0.0
        let readerStart = Date()
        var samples = 0
        while let sample = try reader.next() { checksum += sample.t; samples += 1 }
        let readerSeconds = Date().timeIntervalSince(readerStart)
        print("replay_flight_samples: \(samples)")
        print("reader_samples_per_s: \(Int(Double(samples) / readerSeconds))")

        // Replay: disk → reader → pipeline. Best of `runs` (the machine is shared; the best run is the
        // least disturbed one).
        var replaySeconds = Double.infinity
        var replayCPUSeconds = Double.infinity
        var summary: ReplaySummary?
        for _ in 0..<runs {
            let start = Date()
            let cpuStart = BenchSupport.threadCPUSeconds()
            var events = 0
            // Notices are delivered as started / ended pairs and summarised once: count the other events.
            let result = try FlightReplay.run(directory: directory) { event in
                if case .notice = event { return }
                events += 1
            }
            replayCPUSeconds = min(replayCPUSeconds, BenchSupport.threadCPUSeconds() - cpuStart)
            replaySeconds = min(replaySeconds, Date().timeIntervalSince(start))
            summary = result
            let expected = result.positions.count + result.minutes.count + result.tiles.count + result.altitude.count + result.warnings.count
            if events != expected { throw ReplayBenchError("event count mismatch: \(events) delivered, \(expected) in the summary") }
        }
        let replayRate = Double(summary!.totalSamples) / replayCPUSeconds
        print("replay_events: \(summary!.positions.count + summary!.minutes.count + summary!.tiles.count) (\(summary!.minutes.count) minutes, \(summary!.tiles.count) tiles)")
        print("replay_samples_per_s: \(Int(replayRate))")
        print("replay_samples_per_s_wall: \(Int(Double(summary!.totalSamples) / replaySeconds))")
        print("replay_samples_per_s_target: \(Int(replayTarget))")
        print("replay_samples_per_s_target_ratio: \(format(replayRate / replayTarget, 2))")
        compareWithNumpy(directory: directory, samples: summary!.totalSamples,
                         cpuSeconds: replayCPUSeconds, wallSeconds: replaySeconds)

        runPipeline(runs: runs)

        // Peak RSS of the CLI replay, in a child process. On Linux the child's own high-water mark
        // (VmHWM of /proc/PID/status, per address space) is polled until it exits: getrusage's
        // RUSAGE_CHILDREN would report this benchmark's own peak, because Linux carries the parent's
        // high-water mark into a forked/spawned child across exec.
        if let eddy = siblingExecutable("eddy") {
            let child = try measureChild(executable: eddy, arguments: ["replay", "--json", directory])
            print("replay_cli_seconds: \(format(child.seconds, 2))")
            print("replay_peak_rss_mb: \(format(child.peakRSSMB, 1))")
            print("replay_peak_rss_mb_target_ratio: \(format(child.peakRSSMB / rssTargetMB, 2))")
        } else {
            print("# replay_peak_rss_mb: skipped, no eddy executable next to eddy-bench (swift build -c release)")
        }
        print("# target ratios: figure ÷ target (throughput meets at ≥ 1, RSS at ≤ 1); throughput best of \(runs) runs; checksum \(checksum > 0)")
    }

    /// The pipeline alone (also the `pipeline` group, for a quick look at the detection pipeline's speed): a 10-minute
    /// flight in memory, 20 passes per run, best of `runs`, then the cost of each stage.
    static func runPipeline(runs: Int = 3) {
        let tenMinutes = FlightSimulator.simulate(FlightScenario(
            aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.2, durationSeconds: 600)],
            accelerometerRateHz: 50, includeGyroscope: true, includeBarometer: false, seed: 7)).samples.mergedSamples()
        var pipelineEvents: [DetectionEvent] = []
        var pipelineSeconds = Double.infinity
        var eventCount = 0
        for _ in 0..<runs {
            let start = Date()
            for _ in 0..<20 {
                var pipeline = NavigatedDetection(configuration: DetectionConfiguration(aircraftClass: .medium))
                for sample in tenMinutes { pipeline.process(sample, into: &pipelineEvents) }
                pipeline.finish(into: &pipelineEvents)
                eventCount += pipelineEvents.count
                pipelineEvents.removeAll(keepingCapacity: true)
            }
            pipelineSeconds = min(pipelineSeconds, Date().timeIntervalSince(start))
        }
        let pipelineRate = Double(20 * tenMinutes.count) / pipelineSeconds
        printStageCosts(tenMinutes, passes: 20, runs: runs, totalNanosecondsPerSample: 1e9 / pipelineRate)
        print("pipeline_samples_per_s: \(Int(pipelineRate))")
        print("pipeline_samples_per_s_target_ratio: \(format(pipelineRate / pipelineTarget, 2))")

        print("# pipeline: best of \(runs) runs of 20 passes; events \(eventCount > 0)")
    }

    /// Per-stage cost of the pipeline figure's flight (docs/detection.md "Stages"): the flight's stage calls are recorded
    /// once, then each stage (and navigation, and the set-up of a pipeline) is replayed alone, `passes` passes, best of
    /// `runs`; the wiring is what the stages' sum leaves of the measured total.
    static func printStageCosts(_ samples: [SensorSample], passes: Int, runs: Int, totalNanosecondsPerSample total: Double) {
        let replay = StageReplay(samples: samples, configuration: DetectionConfiguration(aircraftClass: .medium))
        let perSample = 1e9 / Double(passes * samples.count)
        var sink = 0.0
        var sum = 0.0
        func report(_ name: String, _ body: () -> Double) {
            var seconds = Double.infinity
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                sink += body()
                seconds = min(seconds, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            sum += seconds * perSample
            print("pipeline_stage_\(name)_ns_per_sample: \(format(seconds * perSample, 2))")
        }
        report("setup") { replay.replaySetup(passes: passes) }
        report("navigation") { replay.replayNavigation(passes: passes) }
        for stage in StageName.allCases { report(stage.rawValue) { replay.replay(stage, passes: passes) } }
        print("pipeline_stages_sum_ns_per_sample: \(format(sum, 2))")
        print("pipeline_wiring_ns_per_sample: \(format(total - sum, 2))")
        print("pipeline_total_ns_per_sample: \(format(total, 2))\(sink.isNaN ? " (nan)" : "")")
    }

    /// Writes the benchmark flight (medium class, 50 Hz accelerometer + gyroscope, 1 Hz location, a repeated
    /// smooth / light / moderate pattern) of `hours` into `directory`; returns its size in bytes.
    static func generateFlight(hours: Double, directory: String) throws -> Int {
        let scenario = FlightScenario(
            aircraftClass: .medium,
            segments: try SimulationSpec.repeated(SimulationSpec.segments("0:20m,0.12:10m,0:15m,0.3:5m,0:10m"), hours: hours),
            accelerometerRateHz: 50, includeGyroscope: true, includeBarometer: false, seed: 2026)
        try SimulatedFlightWriter.write(scenario, to: directory)
        return try ["accelerometer.csv", "gyroscope.csv", "location.csv", "meta.json"].reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// The oracle venv's Python (`make venv`), overridden by `EDDY_BENCH_PYTHON`.
    static let defaultPython = ".venv/bin/python"

    /// Runs the numpy/scipy batch pipeline (scripts/replay_numpy.py) on the flight and prints its figures and how many
    /// times longer it took than the Swift replay (`cpuSeconds`, `wallSeconds`, best runs) on the same flight. Without
    /// the venv or the script it says what to do.
    static func compareWithNumpy(directory: String, samples: Int, cpuSeconds: Double, wallSeconds: Double) {
        let python = ProcessInfo.processInfo.environment["EDDY_BENCH_PYTHON"] ?? defaultPython
        let script = "scripts/replay_numpy.py"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script) else {
            print("replay_numpy: not run (needs \(python) with numpy and scipy and \(script): run `make venv` in the "
                  + "repository and eddy-bench from there)")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, directory]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            print("replay_numpy: not run (\(python) did not start: \(error))")
            return
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            print("replay_numpy: failed (\(script) exited with status \(process.terminationStatus))")
            return
        }
        var values: [String: Double] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("numpy_") {
            print("replay_\(line)")
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, let number = Double(parts[1].split(separator: " ").first ?? "") {
                values[String(parts[0])] = number
            }
        }
        if let numpyCPU = values["numpy_cpu_seconds"], let numpyWall = values["numpy_seconds"] {
            print("replay_seconds: \(format(cpuSeconds, 3)) (CPU; wall \(format(wallSeconds, 3)); \(samples) samples)")
            print("replay_numpy_time_ratio: \(format(numpyCPU / cpuSeconds, 1))")
            print("replay_numpy_time_ratio_wall: \(format(numpyWall / wallSeconds, 1))")
        }
    }

    /// What a child process used.
    struct ChildMeasurement {
        /// Wall-clock seconds from start to exit.
        var seconds: Double
        /// CPU seconds (user + system) of the child.
        var cpuSeconds: Double
        /// Peak resident set size, MiB.
        var peakRSSMB: Double
    }

    /// Runs `executable` with standard output to /dev/null and measures its wall time, CPU time and peak RSS.
    ///
    /// On Linux the child's own high-water mark (VmHWM of /proc/PID/status, per address space) is polled until it
    /// exits: getrusage's RUSAGE_CHILDREN `ru_maxrss` would report this benchmark's own peak, because Linux carries
    /// the parent's high-water mark into a forked/spawned child across exec. CPU time is the growth of
    /// RUSAGE_CHILDREN's user + system time across the run (the child is reaped before it is read; one child at a time).
    static func measureChild(executable: String, arguments: [String]) throws -> ChildMeasurement {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = arguments
        child.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let cpuBefore = childrenCPUSeconds()
        let childStart = Date()
        try child.run()
        let peakKB = BenchSupport.waitForPeakRSSKilobytes(child)
        let seconds = Date().timeIntervalSince(childStart)
        guard child.terminationStatus == 0 else {
            throw ReplayBenchError("\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) exited with \(child.terminationStatus)")
        }
        return ChildMeasurement(seconds: seconds, cpuSeconds: childrenCPUSeconds() - cpuBefore, peakRSSMB: Double(peakKB) / 1024)
    }

    /// User + system CPU seconds of every reaped child so far.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// An executable built next to this one (`.build/release/eddy`).
    static func siblingExecutable(_ name: String) -> String? {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = (me as NSString).deletingLastPathComponent + "/" + name
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}

/// A benchmark that could not run.
struct ReplayBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
