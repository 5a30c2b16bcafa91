import ArgumentParser

/// `eddy h3` (scaffold; replaced by its issue's implementation).
struct H3Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "h3", abstract: "Not built yet.")
    func run() async throws { throw ValidationError("eddy h3 is not built yet") }
}
