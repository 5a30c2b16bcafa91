public import Foundation
import EddySupport
import Synchronization

/// Where the engine keeps a started session's secrets (the API key and the user id), so that they never sit in its
/// SQLite store: the default `FileCredentialStore` (a 0600 file beside the store), the Keychain on Apple platforms
/// (`KeychainCredentialStore` in EddyAppleSensors), or the host's own secret store (docs/engine.md "Secrets at rest").
/// Calls come from the engine's threads, never while the engine's core is locked.
public protocol EddyCredentialStore: Sendable {
    /// The secret stored for `account` (nil: none).
    func secret(forAccount account: String) throws(CredentialStoreError) -> Data?
    /// Stores the secret of `account`, replacing any earlier one.
    func setSecret(_ secret: Data, forAccount account: String) throws(CredentialStoreError)
    /// Deletes the secret of `account` (none stored is not an error).
    func deleteSecret(forAccount account: String) throws(CredentialStoreError)
}

/// A credential store that failed, with what happened and what to do.
public struct CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What happened and what to do.
    public var description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}

/// Secrets in memory only, forgotten with the process (tests, and hosts that give the identity at every start).
public final class MemoryCredentialStore: EddyCredentialStore {
    private let secrets = Mutex<[String: Data]>([:])

    /// Creates an empty store.
    public init() {}

    /// The secret stored for `account` (nil: none).
    public func secret(forAccount account: String) throws(CredentialStoreError) -> Data? { secrets.withLock(visibleToThreadSanitizerAs: self) { $0[account] } }

    /// Stores the secret of `account`.
    public func setSecret(_ secret: Data, forAccount account: String) throws(CredentialStoreError) {
        secrets.withLock(visibleToThreadSanitizerAs: self) { $0[account] = secret }
    }

    /// Deletes the secret of `account`.
    public func deleteSecret(forAccount account: String) throws(CredentialStoreError) {
        secrets.withLock(visibleToThreadSanitizerAs: self) { $0[account] = nil }
    }
}
