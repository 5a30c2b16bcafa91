import EddyProtocol
import EddySupport
import EddySync
import EddyTesting
import Foundation
import Testing

@Suite struct LocalEddyServerTests {
    /// A sync client for `server` with `apiKey` (the issued one by default).
    static func client(_ server: LocalEddyServer, apiKey: String? = nil, airline: String = "DAL") throws -> SyncClient {
        let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(
            baseURL: server.baseURL, connectTimeoutSeconds: 2, totalTimeoutSeconds: 5))
        return SyncClient(
            transport: transport, identity: ClientIdentity(apiKey: apiKey ?? server.apiKey, airline: airline, userId: "tester"),
            clock: SystemEpochClock())
    }

    @Test func issuedKeyOpensASessionAndTheServerComesBackOnTheSamePortAfterAKill() throws {
        let server = try LocalEddyServer()
        #expect(server.isRunning)
        #expect(server.port > 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        #expect(server.apiKey.hasPrefix("eddy_"))
        let session = try Self.client(server).startSession()
        #expect(!session.token.isEmpty)
        #expect(session.settings.tickSeconds == 1)

        let port = server.port
        server.kill()
        #expect(!server.isRunning)
        #expect(throws: SyncError.self) { try Self.client(server).startSession() }

        try server.start()
        #expect(server.isRunning)
        #expect(server.port == port)
        #expect(try !Self.client(server).startSession().token.isEmpty)   // same database: the key still works

        try server.restart()
        #expect(server.port == port)
        #expect(try !Self.client(server).startSession().token.isEmpty)
    }

    @Test func unknownKeyIsRefusedAndExtraKeysWork() throws {
        let server = try LocalEddyServer(airline: "UAL")
        #expect(throws: SyncError.self) { try Self.client(server, apiKey: "eddy_not_a_key", airline: "UAL").startSession() }
        #expect(try !Self.client(server, airline: "UAL").startSession().token.isEmpty)
        let second = try server.addKey(airline: "SWR")
        #expect(second.hasPrefix("eddy_") && second != server.apiKey)
        #expect(try !Self.client(server, apiKey: second, airline: "SWR").startSession().token.isEmpty)
        let listing = try server.runCLI(["keys", "list", "--db", server.databasePath])
        #expect(listing.contains("UAL") && listing.contains("SWR"))
    }

    @Test func testHooksReachTheServerAndNeedItRunning() throws {
        let server = try LocalEddyServer()
        let client = try Self.client(server)
        try client.startSession()
        try server.injectFaults(#"{"faults":[{"kind":"status500","path":"/v1/session"}]}"#)
        #expect(throws: SyncError.self) { try client.startSession() }   // the queued 500 answers once
        try client.startSession()
        try server.expireSessions()
        server.stop()
        #expect(throws: LocalEddyServerError.notRunning(operation: "POST /v1/_test/expire-sessions")) {
            try server.expireSessions()
        }
    }

    @Test func typedFaultsReachTheServer() throws {
        let server = try LocalEddyServer()
        let client = try Self.client(server)
        try server.injectFaults([.status500, .status500], path: "/v1/session")
        #expect(throws: SyncError.self) { try client.startSession() }
        #expect(throws: SyncError.self) { try client.startSession() }
        try client.startSession()   // both queued faults are used up
        try server.injectFaults([.delay(seconds: 0.2)])
        try client.startSession()
    }

    @Test func serverWithoutTestHooksRefusesThem() throws {
        let server = try LocalEddyServer(options: .init(testHooks: false))
        #expect {
            try server.injectFaults(#"{"faults":[]}"#)
        } throws: { error in
            guard case .requestFailed(_, let status, _) = error as? LocalEddyServerError else { return false }
            return status != nil && status != 200
        }
    }

    @Test func startingLaterAndKeepingTheDirectory() throws {
        var directory: URL?
        do {
            let server = try LocalEddyServer(options: .init(keepDirectory: true), startImmediately: false)
            #expect(!server.isRunning && server.port == 0)
            try server.start()
            #expect(server.port > 0)
            directory = server.directory
        }
        let kept = try #require(directory)
        #expect(FileManager.default.fileExists(atPath: kept.appendingPathComponent("server.sqlite").path))
        try FileManager.default.removeItem(at: kept)
    }

    @Test func missingBinaryIsATypedErrorThatSaysWhatToDo() {
        let path = "/nonexistent/eddy-server"
        #expect(throws: LocalEddyServerError.binaryNotFound(searched: [path])) {
            try LocalEddyServer.locateBinary(explicitPath: path)
        }
        let message = LocalEddyServerError.binaryNotFound(searched: [path]).description
        #expect(message.contains("swift build") && message.contains("EDDY_SERVER_BIN") && message.contains(path))
        #expect(throws: LocalEddyServerError.self) { _ = try LocalEddyServer(binaryPath: path) }
    }

    @Test func binaryIsFoundWithoutConfiguration() throws {
        let binary = try LocalEddyServer.locateBinary()
        #expect(binary.lastPathComponent == "eddy-server")
        #expect(FileManager.default.isExecutableFile(atPath: binary.path))
    }
}
