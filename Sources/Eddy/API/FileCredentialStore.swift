#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation

/// Secrets in files only their owner can read: a directory of mode 0700 holding one file of mode 0600 per account,
/// each replaced atomically (written under a temporary name created 0600, synced, renamed). The engine's default, at
/// `<storePath>.credentials`. A file or directory that others can read is refused, with the `chmod` that fixes it, as
/// OpenSSH refuses a readable private key. On iOS each file also gets `fileProtection`; the Keychain
/// (`KeychainCredentialStore` in EddyAppleSensors) is the better home there.
public struct FileCredentialStore: EddyCredentialStore {
    /// The directory holding the secrets.
    public let directory: String
    /// The data-protection class each file gets (ignored where the platform has none: Linux, macOS); nil: the app's
    /// default.
    public let fileProtection: FileProtectionType?

    /// A store in `directory` (created with mode 0700 on the first write); files readable after the device's first
    /// unlock by default, so that a flight recorded with the screen locked can still start and stop.
    public init(directory: String, fileProtection: FileProtectionType? = .completeUntilFirstUserAuthentication) {
        self.directory = directory
        self.fileProtection = fileProtection
    }

    /// The file holding `account`'s secret: the account name with every character outside `A-Z a-z 0-9 . _ -` as `_`.
    public func path(forAccount account: String) -> String {
        let safe = String(account.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-_".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        })
        return directory + "/" + (safe.isEmpty ? "_" : safe) + ".secret"
    }

    /// The secret stored for `account` (nil: none); refuses a file or directory that group or others can access.
    public func secret(forAccount account: String) throws(CredentialStoreError) -> Data? {
        let path = path(forAccount: account)
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw CredentialStoreError("credential file \(path) cannot be read: \(Self.errnoText())")
        }
        try Self.requirePrivate(directory, what: "credential directory", mode: 0o700)
        try Self.requirePrivate(path, what: "credential file", mode: 0o600)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CredentialStoreError("credential file \(path) cannot be read: check its owner (it must be this user's)")
        }
        return data
    }

    /// Writes the secret of `account` atomically with mode 0600 (the directory created with mode 0700 when missing).
    public func setSecret(_ secret: Data, forAccount account: String) throws(CredentialStoreError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw CredentialStoreError("credential directory \(directory) cannot be created: \(Self.errnoText()); check the store's folder")
        }
        try Self.requirePrivate(directory, what: "credential directory", mode: 0o700)
        let path = path(forAccount: account)
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw CredentialStoreError("credential file \(temporary) cannot be created: \(Self.errnoText())")
        }
        let written = secret.withUnsafeBytes { bytes in bytes.isEmpty ? 0 : write(descriptor, bytes.baseAddress, bytes.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == secret.count, synced else {
            unlink(temporary)
            throw CredentialStoreError("credential file \(path) could not be written (\(Self.errnoText())): check free space")
        }
        if let fileProtection {
            do { try FileManager.default.setAttributes([.protectionKey: fileProtection], ofItemAtPath: temporary) } catch {
                unlink(temporary)
                throw CredentialStoreError("credential file \(temporary) refused data protection \(fileProtection.rawValue): \(error)")
            }
        }
        guard rename(temporary, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temporary)
            throw CredentialStoreError("credential file \(path) could not be replaced: \(reason)")
        }
    }

    /// Deletes `account`'s file (none is not an error).
    public func deleteSecret(forAccount account: String) throws(CredentialStoreError) {
        let path = path(forAccount: account)
        if unlink(path) != 0, errno != ENOENT {
            throw CredentialStoreError("credential file \(path) cannot be deleted: \(Self.errnoText())")
        }
    }

    /// Throws unless `path`'s permission bits grant nothing to group and others.
    private static func requirePrivate(_ path: String, what: String, mode: Int) throws(CredentialStoreError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw CredentialStoreError("\(what) \(path) cannot be read: \(errnoText())") }
        let permissions = Int(status.st_mode) & 0o777
        guard permissions & 0o077 == 0 else {
            throw CredentialStoreError("""
                \(what) \(path) can be read by other users (mode \(String(permissions, radix: 8))): \
                run `chmod \(String(mode, radix: 8)) \(path)`, then start again
                """)
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
