import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Issue 27 deliverable 4 (identity part): a start after `stop()` with the same identity works offline, and the advice
/// for a wrong base URL and a key of another airline names the real mistake. Against the real loopback server.
@Suite(.serialized) struct SessionIdentityTests {
    private func engine(_ folder: EngineFolder) throws -> EddyEngine {
        try EddyEngine(configuration: EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
    }

    @Test func aStartAfterStopWithTheSameIdentityWorksOfflineAndAnotherIdentityDoesNot() throws {
        let server = try LocalEddyServer()
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try engine(folder)
        let environment = EddyEnvironment.local(port: server.port)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: environment)
        engine.stop()
        #expect(!engine.isStarted)
        server.stop()   // the ramp without a connection
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: environment)
        #expect(engine.isStarted && engine.isRecording)
        engine.stop()
        // Another user id was never validated: it needs the server.
        #expect(throws: EddyError.self) {
            try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "someone-else", environment: environment)
        }
        // A relaunch (a new engine on the same store) after stop works offline too.
        let relaunched = try self.engine(folder)
        try relaunched.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: environment)
        #expect(relaunched.isRecording)
    }

    @Test func aBaseURLEndingInV1IsNamedAsTheMistake() throws {
        let server = try LocalEddyServer()
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try engine(folder)
        do {
            try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .server(server.baseURL + "/v1"))
            Issue.record("a start against /v1/v1/session succeeded")
        } catch {
            guard case .environmentInvalid(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("drop the trailing /v1"), "\(message)")
            #expect(error.description.contains("404"))
        }
        #expect(!engine.isStarted)
    }

    @Test func aKeyOfAnotherAirlineIsNamedAsTheMistake() throws {
        let server = try LocalEddyServer()
        let ualKey = try server.addKey(airline: "UAL")
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try engine(folder)
        do {
            try engine.startNow(apiKey: ualKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
            Issue.record("a UAL key started a DAL session")
        } catch {
            guard case .userIdOrAirlineInvalid(let message) = error else { Issue.record("not userIdOrAirlineInvalid: \(error)"); return }
            #expect(message.contains("does not belong to airline DAL"), "\(message)")
            #expect(!error.description.contains("deactivated"))
        }
    }
}
