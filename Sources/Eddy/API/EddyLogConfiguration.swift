import Foundation

/// How much the engine logs (swift-log's levels, most verbose first).
public enum EddyLogLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// Every step: callbacks, each sync request.
    case trace
    /// Sync results, fetched data, detected turbulence.
    case debug
    /// Start, stop, session, uploads, low power.
    case info
    /// Reachability changes.
    case notice
    /// Failed requests and back-off, inconsistencies, location failures (the default).
    case warning
    /// Store failures, recording stopped by the server.
    case error
    /// Nothing the engine writes today; the most severe level.
    case critical

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// Orders levels from trace (least severe) to critical.
    public static func < (a: EddyLogLevel, b: EddyLogLevel) -> Bool { a.rank < b.rank }
}

/// The engine's log: a size-capped rolling file in the app's container (docs/engine.md "Logging").
///
/// Lines go to `directory/eddy.log`; when it would pass `maximumFileBytes` it becomes `eddy.1.log` (the oldest file
/// beyond `fileCount` is deleted), so the log never takes more than `fileCount × maximumFileBytes` on disk.
/// `EddyEngine.exportLogs()` returns one file, oldest line first. API keys, session tokens and user ids never reach
/// the file: the log handler redacts them from every message and metadata value.
public struct EddyLogConfiguration: Sendable, Equatable {
    /// The directory of the log files (created when missing); nil: the engine logs nothing.
    public var directory: String?
    /// The least severe level written. Default `.warning`.
    public var level: EddyLogLevel
    /// Size at which the current file rolls over, bytes. Default 1 MiB.
    public var maximumFileBytes: Int
    /// Files kept, the current one included (at least 1). Default 2.
    public var fileCount: Int

    /// Creates a log configuration (defaults: warning, 2 files × 1 MiB).
    public init(directory: String?, level: EddyLogLevel = .warning, maximumFileBytes: Int = 1_048_576, fileCount: Int = 2) {
        self.directory = directory
        self.level = level
        self.maximumFileBytes = maximumFileBytes
        self.fileCount = fileCount
    }

    /// The default for a store at `storePath`: `eddy-logs/` next to the store file, warning level, 2 × 1 MiB.
    public static func besideStore(_ storePath: String) -> EddyLogConfiguration {
        let folder = URL(fileURLWithPath: storePath).deletingLastPathComponent()
        return EddyLogConfiguration(directory: folder.appendingPathComponent("eddy-logs").path)
    }
}
