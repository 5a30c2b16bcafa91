import AppleSensorStubs
import Eddy
import EddyAppleSensorsOnStubs
import EddyTesting
import Foundation
import Testing

/// Issue 27 deliverable 4: the Keychain home of the session's secrets, driven through the Security stand-ins
/// (Tests/AppleSensorStubs/SecurityStubs.swift). Serialized: the stand-in keychain is one table per process.
@Suite(.serialized) struct KeychainCredentialStoreTests {
    init() { SecurityTestKeychain.reset() }

    @Test func itemsAreGenericPasswordsReadableAfterFirstUnlockOnThisDeviceOnly() throws {
        let store = KeychainCredentialStore(service: "test.service", accessGroup: "TEAM.group")
        #expect(try store.secret(forAccount: "pilot") == nil)
        try store.setSecret(Data("one".utf8), forAccount: "pilot")
        try store.setSecret(Data("two".utf8), forAccount: "pilot")   // an update, not a duplicate
        #expect(try store.secret(forAccount: "pilot") == Data("two".utf8))
        let items = SecurityTestKeychain.items
        #expect(items.count == 1)
        let (key, attributes) = try #require(items.first)
        #expect(key == .init(itemClass: kSecClassGenericPassword, service: "test.service", account: "pilot", accessGroup: "TEAM.group"))
        #expect(attributes[kSecAttrAccessible] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)
        try store.deleteSecret(forAccount: "pilot")
        try store.deleteSecret(forAccount: "pilot")   // none left: not an error
        #expect(SecurityTestKeychain.items.isEmpty)
    }

    @Test func aLockedDeviceAndAMissingEntitlementSayWhatToDo() throws {
        let store = KeychainCredentialStore()
        SecurityTestKeychain.force(errSecInteractionNotAllowed)
        defer { SecurityTestKeychain.force(nil) }
        do {
            _ = try store.secret(forAccount: "pilot")
            Issue.record("a locked keychain answered")
        } catch {
            #expect(error.description.contains("unlock it once"), "\(error)")
            #expect(error.description.contains("-25308"))
        }
        SecurityTestKeychain.force(errSecMissingEntitlement)
        do {
            try store.setSecret(Data("x".utf8), forAccount: "pilot")
            Issue.record("a keychain without entitlement stored")
        } catch {
            #expect(error.description.contains("keychain-access-groups"), "\(error)")
        }
    }

    @Test func anEngineKeepsItsSessionInTheKeychainAndStopDeletesIt() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.credentialStore = KeychainCredentialStore()
        let engine = try EddyEngine(configuration: configuration)
        let apiKey = "KEY-9b2e61c0d4f7"
        try engine.startNow(apiKey: apiKey, airline: "DAL", userId: "pilot-5510", environment: .offline)
        let item = try #require(SecurityTestKeychain.items.first)
        #expect(item.key.account == "eddy.session.e.sqlite")
        let data = try #require(item.value[kSecValueData] as? Data)
        #expect(data.range(of: Data(apiKey.utf8)) != nil)
        let storeFile = try Data(contentsOf: URL(fileURLWithPath: folder.path("e.sqlite-wal"))) + Data(contentsOf: URL(fileURLWithPath: folder.path("e.sqlite")))
        #expect(storeFile.range(of: Data(apiKey.utf8)) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path("e.sqlite.credentials")))
        engine.stop()
        #expect(SecurityTestKeychain.items.isEmpty)
    }
}
