// eddy-bench: release-build benchmarks. Each group prints `name: value` lines (figures and ratios).
// Usage: eddy-bench [all|replay|pipeline|h3|store|sync|engine|terrain|position|import|map]...
import Foundation

let groups: [(name: String, run: () throws -> Void)] = [
    ("replay", ReplayBenchmarks.run),
    ("pipeline", { ReplayBenchmarks.runPipeline() }),
    ("h3", H3Benchmarks.run),
    ("store", StoreBenchmarks.run),
    ("sync", SyncBenchmarks.run),
    ("engine", EngineBenchmarks.run),
    ("terrain", TerrainBenchmarks.run),
    ("position", PositionBenchmarks.run),
    ("import", ImportBenchmarks.run),
    ("map", MapBenchmarks.run),
]
let requested = CommandLine.arguments.dropFirst().isEmpty ? ["all"] : Array(CommandLine.arguments.dropFirst())
let known = Set(groups.map(\.name) + ["all"])
if let unknown = requested.first(where: { !known.contains($0) }) {
    FileHandle.standardError.write(Data("eddy-bench: unknown group '\(unknown)'; use one of \(known.sorted().joined(separator: ", "))\n".utf8))
    exit(2)
}
do {
    // `pipeline` is part of `replay`, so `all` leaves it out.
    for group in groups where (requested.contains("all") && group.name != "pipeline") || requested.contains(group.name) {
        print("# \(group.name)")
        try group.run()
    }
} catch {
    FileHandle.standardError.write(Data("eddy-bench: \(error)\n".utf8))
    exit(1)
}
