/// H3 benchmarks (scaffold; replaced by its issue's implementation).
enum H3Benchmarks {
    /// Runs the group and prints its figures.
    static func run() throws { print("# (no H3 benchmarks yet)") }
}
