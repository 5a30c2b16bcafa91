import ArgumentParser

/// `eddy simulate` (scaffold; replaced by its issue's implementation).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", abstract: "Not built yet.")
    func run() async throws { throw ValidationError("eddy simulate is not built yet") }
}
