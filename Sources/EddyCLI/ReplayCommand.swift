import ArgumentParser

/// `eddy replay` (scaffold; replaced by its issue's implementation).
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", abstract: "Not built yet.")
    func run() async throws { throw ValidationError("eddy replay is not built yet") }
}
