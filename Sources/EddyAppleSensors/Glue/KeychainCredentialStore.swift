// The Keychain home of the engine's session secrets. It compiles where the Security framework exists; on Linux it is
// compiled (as part of the test-only target EddyAppleSensorsOnStubs, which links this folder) against
// Tests/AppleSensorStubs/SecurityStubs.swift and tested by driving them. It has never been built against a real Apple
// SDK (docs/apple-sensors.md).
#if EDDY_APPLE_SENSOR_STUBS
import AppleSensorStubs
#elseif canImport(Security)
import Security
#endif

#if EDDY_APPLE_SENSOR_STUBS || canImport(Security)
public import Eddy
public import Foundation

/// The session's API key and user id in the Keychain (`EddyConfiguration.credentialStore`): one generic-password item
/// per account under `service`, readable after the device's first unlock and never copied to another device
/// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), so that an app relaunched in flight with the screen locked can
/// still resume its session, and a restored backup never carries the key.
public struct KeychainCredentialStore: EddyCredentialStore {
    /// The items' service (`kSecAttrService`).
    public let service: String
    /// The keychain access group shared with the app's extensions (nil: the app's default group).
    public let accessGroup: String?

    /// A store of items under `service`, in `accessGroup` (nil: the app's default).
    public init(service: String = "org.eddy.engine.credentials", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// The secret stored for `account` (nil: none).
    public func secret(forAccount account: String) throws(CredentialStoreError) -> Data? {
        var query = itemQuery(account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw failure(status, reading: true, account: account) }
        guard let data = item as? Data else {
            throw CredentialStoreError("the Keychain item \(service)/\(account) holds no data: delete it and start again")
        }
        return data
    }

    /// Stores the secret of `account`: updates the item, or adds it when there is none.
    public func setSecret(_ secret: Data, forAccount account: String) throws(CredentialStoreError) {
        let attributes: [String: Any] = [
            kSecValueData as String: secret,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(itemQuery(account) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(itemQuery(account).merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw failure(status, reading: false, account: account) }
    }

    /// Deletes the item of `account` (none is not an error).
    public func deleteSecret(forAccount account: String) throws(CredentialStoreError) {
        let status = SecItemDelete(itemQuery(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw failure(status, reading: false, account: account) }
    }

    private func itemQuery(_ account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// The Security framework's status as an error that says what to do.
    private func failure(_ status: OSStatus, reading: Bool, account: String) -> CredentialStoreError {
        let message = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
        let advice = switch status {
        case errSecInteractionNotAllowed: "the device has not been unlocked since it started: unlock it once, then start again"
        case errSecMissingEntitlement: "the app lacks the keychain entitlement for access group \(accessGroup ?? "(default)"): check its keychain-access-groups"
        default: "see the Security framework's OSStatus \(status)"
        }
        return CredentialStoreError("the Keychain refused to \(reading ? "read" : "write") \(service)/\(account) (\(message), \(status)): \(advice)")
    }
}
#endif
