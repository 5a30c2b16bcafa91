import Foundation

/// Helpers every benchmark group shares: a fast deterministic generator, thread CPU time, a child's peak RSS.
enum BenchSupport {
    /// Runs an executable with arguments and an environment (nil: this process's) and returns its exit status and
    /// standard output.
    static func runCapturingOutput(_ path: String, arguments: [String] = [], environment: [String: String]? = nil) throws
        -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// xorshift64: fast, deterministic inputs for benchmarks (not for statistics).
    struct XorShift {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
    }

    /// CPU time of the calling thread in seconds. The development machine's 2 cores are shared, so the figures are per
    /// second of CPU actually given to the benchmark (wall-clock rates are printed too).
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Waits for a started child and returns its peak resident set size in KiB. On Linux the child's own high-water
    /// mark (VmHWM of /proc/PID/status, per address space) is polled until it exits: getrusage's RUSAGE_CHILDREN
    /// `ru_maxrss` would report this benchmark's own peak, because Linux carries the parent's high-water mark into a
    /// spawned child across exec. Elsewhere `ru_maxrss` after the wait (bytes on Darwin).
    static func waitForPeakRSSKilobytes(_ child: Process) -> Int {
        var peakKB = 0
        #if os(Linux)
        let statusPath = "/proc/\(child.processIdentifier)/status"
        while child.isRunning {
            if let text = try? String(contentsOfFile: statusPath, encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                peakKB = max(peakKB, kb)
            }
            usleep(2_000)
        }
        #endif
        child.waitUntilExit()
        #if !os(Linux)
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN, &usage)
        peakKB = Int(usage.ru_maxrss) / 1024
        #endif
        return peakKB
    }
}
