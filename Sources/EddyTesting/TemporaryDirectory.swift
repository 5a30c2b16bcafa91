public import Foundation

/// A fresh directory under the system's temporary directory for one test; `remove()` deletes it with its contents.
public struct TemporaryDirectory: Sendable {
    /// Where it is.
    public let url: URL

    /// Creates `<tmp>/<prefix>-<UUID>`.
    public init(prefix: String = "eddy-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Path of a file inside it.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// File names inside it, sorted.
    public func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }

    /// Deletes it and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
