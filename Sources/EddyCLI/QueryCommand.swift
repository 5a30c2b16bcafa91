import ArgumentParser

/// `eddy query` (scaffold; replaced by its issue's implementation).
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "query", abstract: "Not built yet.")
    func run() async throws { throw ValidationError("eddy query is not built yet") }
}
