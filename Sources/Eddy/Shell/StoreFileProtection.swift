import Foundation

/// Gives the store's files their iOS data-protection class (`EddyConfiguration.storeFileProtection`) when the engine
/// opens them: the database, its `-wal` and `-shm`, the log directory and its files, those that exist (the credential
/// files get theirs from `FileCredentialStore.fileProtection`). Files created later get the app's default class, which
/// is the same one unless the app's entitlement chose another. FileManager's `protectionKey`
/// (https://developer.apple.com/documentation/foundation/fileattributekey/protectionkey) takes effect on iOS, iPadOS,
/// watchOS and visionOS; Foundation ignores it elsewhere (Linux, macOS), where only the permission bits protect them.
enum StoreFileProtection {
    /// The paths that get the class, for a store at `storePath`.
    static func paths(storePath: String, logDirectory: String?) -> [String] {
        var paths = [storePath, storePath + "-wal", storePath + "-shm"]
        for directory in [logDirectory].compactMap({ $0 }) {
            paths.append(directory)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            paths += names.sorted().map { directory + "/" + $0 }
        }
        return paths.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Applies `protection` to each of `paths`; returns the ones that refused it, with why.
    static func apply(_ protection: FileProtectionType, to paths: [String],
                      setAttributes: ([FileAttributeKey: Any], String) throws -> Void = { try FileManager.default.setAttributes($0, ofItemAtPath: $1) })
        -> [(path: String, reason: String)] {
        paths.compactMap { path in
            do { try setAttributes([.protectionKey: protection], path); return nil } catch { return (path, "\(error)") }
        }
    }
}
