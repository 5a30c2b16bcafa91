#if Tools
import ArgumentParser

/// The `eddy` command line: simulate, import, replay and inspect flights, query a store, H3 tools.
@main
struct EddyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eddy",
        abstract: "Eddy turbulence detection engine: simulate, replay and inspect flights.",
        subcommands: [SimulateCommand.self, ReplayCommand.self, ImportCommand.self, QueryCommand.self, H3Command.self, GeoidCommand.self, TerrainCommand.self]
    )
}
#endif
