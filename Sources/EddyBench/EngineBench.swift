import Foundation

/// Engine benchmarks: the whole engine (detection, store, flight phase, alerts; offline) on a 12-hour
/// 50 Hz accelerometer + gyroscope + 1 Hz location flight (the replay group's flight, generated on disk, not timed),
/// run as `eddy replay FLIGHT --engine --json > /dev/null` in a child process:
/// - `engine_cpu_fraction_at_50hz`: the child's CPU seconds (user + system, reading and parsing the CSVs included)
///   per second of flight, the best of `runs` runs (the machine is shared: the least disturbed run); also as
///   `engine_cpu_percent_of_core_at_50hz`;
/// - `engine_peak_rss_mb`: the child's peak RSS (VmHWM), the highest of the runs.
/// `EDDY_BENCH_HOURS` shortens the flight for a quick look (the targets are for 12 h).
enum EngineBenchmarks {
    /// Issue 29: at most 0.01 % of a core at 50 Hz.
    static let cpuFractionTarget = 0.0001
    /// Runs of the child; the CPU figure is the best, the RSS the worst.
    static let runs = 3
    static let rssTargetMB = 40.0

    /// Runs the group and prints its figures.
    static func run() throws {
        let hours = ProcessInfo.processInfo.environment["EDDY_BENCH_HOURS"].flatMap(Double.init) ?? 12
        guard let eddy = ReplayBenchmarks.siblingExecutable("eddy") else {
            print("# engine: skipped, no eddy executable next to eddy-bench (swift build -c release)")
            return
        }
        let directory = NSTemporaryDirectory() + "eddy-bench-engine-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try ReplayBenchmarks.generateFlight(hours: hours, directory: directory)
        let flightSeconds = hours * 3600

        var best: ReplayBenchmarks.ChildMeasurement?
        var peakRSSMB = 0.0
        for _ in 0..<runs {
            let child = try ReplayBenchmarks.measureChild(executable: eddy, arguments: ["replay", directory, "--engine", "--json"])
            peakRSSMB = max(peakRSSMB, child.peakRSSMB)
            if best == nil || child.cpuSeconds < best!.cpuSeconds { best = child }
        }
        let child = best!
        let fraction = child.cpuSeconds / flightSeconds
        print("engine_flight_hours: \(ReplayBenchmarks.format(hours, 1))")
        print("engine_cli_seconds: \(ReplayBenchmarks.format(child.seconds, 2))")
        print("engine_cpu_seconds: \(ReplayBenchmarks.format(child.cpuSeconds, 2))")
        print("engine_cpu_fraction_at_50hz: \(String(format: "%.6f", fraction))")
        print("engine_cpu_percent_of_core_at_50hz: \(String(format: "%.4f", fraction * 100))")
        print("engine_cpu_fraction_at_50hz_target_ratio: \(ReplayBenchmarks.format(fraction / cpuFractionTarget, 3))")
        print("engine_peak_rss_mb: \(ReplayBenchmarks.format(peakRSSMB, 1))")
        print("engine_peak_rss_mb_target_ratio: \(ReplayBenchmarks.format(peakRSSMB / rssTargetMB, 2))")
        print("# target ratios: figure ÷ target (meets at ≤ 1); CPU = user + system of the child, CSV parsing included, best of \(runs)")
    }
}
