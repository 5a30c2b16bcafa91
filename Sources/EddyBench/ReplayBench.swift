/// Replay benchmarks (scaffold; replaced by its issue's implementation).
enum ReplayBenchmarks {
    /// Runs the group and prints its figures.
    static func run() throws { print("# (no Replay benchmarks yet)") }
}
