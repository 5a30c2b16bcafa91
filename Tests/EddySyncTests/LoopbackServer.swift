import EddyTesting

/// The sync tests' loopback server: EddyTesting's `LocalEddyServer` (one launcher implementation).
typealias LoopbackServer = LocalEddyServer

extension LocalEddyServer {
    /// Starts a server for airline DAL with extra `serve` arguments (the sync tests' historical spelling).
    convenience init(arguments: [String]) throws {
        try self.init(extraServeArguments: arguments)
    }

    /// Runs an `eddy-server` subcommand against this server's database.
    func cli(_ arguments: [String]) throws -> String { try runCLI(arguments) }
}
