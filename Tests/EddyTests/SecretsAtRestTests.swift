import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Issue 27 deliverable 4 (secrets part): a started session's API key and user id live in the credential store, never
/// in the SQLite store's files; a store written before that has them moved out and scrubbed; `stop()` deletes them;
/// `resumeLastSession()` reads them back after a relaunch.
@Suite(.serialized) struct SecretsAtRestTests {
    private static let key = "KEY-4f1c9e27a8b34d05b6e1"
    private static let userId = "captain-7d3a51e0c2"

    /// Every byte of the store's files (database, -wal, -shm) and of its logs, as one buffer.
    private func storeBytes(_ folder: EngineFolder, _ name: String = "e.sqlite") throws -> Data {
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] {
            if let data = FileManager.default.contents(atPath: folder.path(name + suffix)) { bytes += data }
        }
        let logs = folder.path("eddy-logs")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: logs)) ?? [] {
            bytes += FileManager.default.contents(atPath: logs + "/" + file) ?? Data()
        }
        return bytes
    }

    private func holds(_ bytes: Data, _ text: String) -> Bool { bytes.range(of: Data(text.utf8)) != nil }

    private func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func aFileCredentialStoreKeepsOwnerOnlyFilesAndRefusesReadableOnes() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let store = FileCredentialStore(directory: folder.path("creds"))
        #expect(try store.secret(forAccount: "a/b") == nil)
        try store.setSecret(Data("one".utf8), forAccount: "a/b")
        try store.setSecret(Data("two".utf8), forAccount: "a/b")
        #expect(try store.secret(forAccount: "a/b") == Data("two".utf8))
        let file = store.path(forAccount: "a/b")
        #expect(file == folder.path("creds") + "/a_b.secret")
        #expect(try permissions(file) == 0o600)
        #expect(try permissions(folder.path("creds")) == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("creds")) == ["a_b.secret"])   // no temporary left

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        do {
            _ = try store.secret(forAccount: "a/b")
            Issue.record("a credential file others can read was accepted")
        } catch {
            #expect(error.description.contains("chmod 600 \(file)"), "\(error)")
        }
        try store.deleteSecret(forAccount: "a/b")
        try store.deleteSecret(forAccount: "a/b")   // none left: not an error
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aStartedSessionLeavesNoSecretInTheStoreAndStopDeletesIt() throws {
        let server = try LocalEddyServer()
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: Self.userId, environment: .local(port: server.port))
        engine.syncNow()
        let credentials = FileCredentialStore(directory: folder.path("e.sqlite.credentials"))
        let secret = try #require(try credentials.secret(forAccount: "eddy.session.e.sqlite"))
        #expect(holds(secret, server.apiKey) && holds(secret, Self.userId))
        let bytes = try storeBytes(folder)
        #expect(!holds(bytes, server.apiKey), "the API key is in the store's files")
        #expect(!holds(bytes, Self.userId), "the user id is in the store's files")
        #expect(holds(bytes, "DAL"))   // the plain half is there: the check can see the store's text

        engine.stop()
        #expect(try credentials.secret(forAccount: "eddy.session.e.sqlite") == nil)
    }

    @Test func aLegacyStoresSecretsAreMovedToTheCredentialStoreAndScrubbed() async throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        // A store as engines before the credential store wrote it: the whole session, key included, in the session table.
        do {
            let engine = try folder.flightTimeEngine()
            let legacy = PersistedSession(apiKey: Self.key, airline: "DAL", userId: Self.userId, environment: .offline)
            try engine.store.setSessionValue(String(decoding: try JSONEncoder().encode(legacy), as: UTF8.self), forKey: "engine.session")
            try engine.store.close()
        }
        #expect(holds(try storeBytes(folder), Self.key))   // the check can fail: the key is there before the move

        let relaunched = try folder.flightTimeEngine()
        #expect(!holds(try storeBytes(folder), Self.key), "the legacy key is still in the store's files")
        #expect(!holds(try storeBytes(folder), Self.userId))
        let moved = try #require(try FileCredentialStore(directory: folder.path("e.sqlite.credentials")).secret(forAccount: "eddy.session.e.sqlite"))
        #expect(holds(moved, Self.key))
        try await relaunched.resumeLastSession()
        #expect(relaunched.isStarted)
    }

    @Test func resumeLastSessionWorksAfterARelaunchAndNotAfterStop() async throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let memory = MemoryCredentialStore()
        func engine() throws -> EddyEngine {
            var configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
            configuration.credentialStore = memory
            return try EddyEngine(configuration: configuration)
        }
        let first = try engine()
        await #expect(throws: EddyError.notStarted) { try await first.resumeLastSession() }   // never started
        try first.startNow(apiKey: Self.key, airline: "DAL", userId: Self.userId, environment: .offline)
        #expect(try memory.secret(forAccount: "eddy.session.e.sqlite") != nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path("e.sqlite.credentials")))   // the host's store, not the file

        let relaunched = try engine()   // the app was terminated in flight and relaunched
        try await relaunched.resumeLastSession()
        #expect(relaunched.isStarted && relaunched.isRecording)
        relaunched.stop()
        #expect(try memory.secret(forAccount: "eddy.session.e.sqlite") == nil)
        let afterStop = try engine()
        await #expect(throws: EddyError.notStarted) { try await afterStop.resumeLastSession() }
    }

    @Test func aCredentialStoreThatRefusesFailsTheStartWithWhatToDo() throws {
        struct Refusing: EddyCredentialStore {
            func secret(forAccount account: String) throws(CredentialStoreError) -> Data? { nil }
            func setSecret(_ secret: Data, forAccount account: String) throws(CredentialStoreError) {
                throw CredentialStoreError("locked: unlock the device once")
            }
            func deleteSecret(forAccount account: String) throws(CredentialStoreError) {}
        }
        let folder = try EngineFolder()
        defer { folder.remove() }
        var configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.credentialStore = Refusing()
        let engine = try EddyEngine(configuration: configuration)
        #expect(throws: EddyError.credentials(CredentialStoreError("locked: unlock the device once"))) {
            try engine.startNow(apiKey: Self.key, airline: "DAL", userId: Self.userId, environment: .offline)
        }
        #expect(!engine.isStarted)
        #expect(!holds(try storeBytes(folder), Self.key))
    }

    @Test func storeFilesGetTheConfiguredDataProtectionClass() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let paths = StoreFileProtection.paths(storePath: folder.path("e.sqlite"), logDirectory: engine.configuration.logging.directory)
        #expect(paths.contains(folder.path("e.sqlite")) && paths.contains(folder.path("e.sqlite-wal")))
        var applied: [String: FileProtectionType] = [:]
        let refused = StoreFileProtection.apply(.completeUntilFirstUserAuthentication, to: paths) { attributes, path in
            applied[path] = attributes[.protectionKey] as? FileProtectionType
            if path.hasSuffix("-shm") { throw CocoaError(.fileWriteNoPermission) }
        }
        #expect(applied.count == paths.count && applied.values.allSatisfy { $0.rawValue == FileProtectionType.completeUntilFirstUserAuthentication.rawValue })
        #expect(refused.map(\.path) == paths.filter { $0.hasSuffix("-shm") })
        #expect(engine.configuration.storeFileProtection?.rawValue == FileProtectionType.completeUntilFirstUserAuthentication.rawValue)
    }
}
