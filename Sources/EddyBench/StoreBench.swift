/// Store benchmarks (scaffold; replaced by its issue's implementation).
enum StoreBenchmarks {
    /// Runs the group and prints its figures.
    static func run() throws { print("# (no Store benchmarks yet)") }
}
