package import EddySupport
import Foundation
package import Logging

/// The engine's swift-log handler: formats a line (UTC time, level, message, sorted metadata), removes secrets with
/// the engine's `LogRedactor`, and queues it on the `RollingLogFile` (no I/O on the caller's thread).
package struct EngineLogHandler: LogHandler {
    /// Where lines go.
    package let file: RollingLogFile
    /// What removes secrets.
    package let redactor: LogRedactor
    /// Metadata added to every line of this handler.
    package var metadata: Logger.Metadata = [:]
    /// The least severe level written.
    package var logLevel: Logger.Level
    /// The wall clock lines are stamped with.
    package let clock: any EpochClock

    /// Creates a handler.
    package init(file: RollingLogFile, redactor: LogRedactor, level: Logger.Level, clock: any EpochClock) {
        self.file = file
        self.redactor = redactor
        self.logLevel = level
        self.clock = clock
    }

    /// One metadata value.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one event (the logger already checked the level).
    package func log(event: LogEvent) {
        var line = "\(Date(timeIntervalSince1970: clock.now()).ISO8601Format()) \(event.level.rawValue.uppercased()) \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in merged.keys.sorted() {
            if let value = merged[key] { line += " \(key)=\(value)" }
        }
        file.append(redactor.redact(line))
    }
}

extension EddyLogLevel {
    /// The swift-log level.
    var swiftLogLevel: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
