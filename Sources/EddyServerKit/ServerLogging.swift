#if Tools
import EddySupport
import Foundation
package import Logging

/// How `eddy-server serve` writes its log (`--log-format`): swift-log's text lines, or one JSON object a line for log
/// collectors (docs/fleet-server.md "Logs").
package enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-27T15:43:09+0000 info eddy-server : key=value message` (swift-log's `StreamLogHandler`).
    case text
    /// `{"time":"2026-11-27T15:43:09.123Z","level":"info","label":"eddy-server","message":"…","key":"value"}`.
    case json
}

/// A log handler writing one JSON object a line to standard error: `time` (ISO 8601, UTC, milliseconds), `level`,
/// `label`, `message`, then the metadata (handler, provider, call; later ones win) as string fields. Metadata never
/// holds a secret: API keys and tokens are not logged anywhere (the access log redacts them from query strings).
package struct JSONLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Where lines go (standard error; a test's buffer).
    let write: @Sendable (String) -> Void
    /// Handler metadata.
    package var metadata: Logger.Metadata = [:]
    /// The metadata provider (request ids).
    package var metadataProvider: Logger.MetadataProvider?
    /// The lowest level written.
    package var logLevel: Logger.Level = .info

    /// A handler for `label` writing to standard error.
    package init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider) { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// A handler for `label` handing each line (with its newline) to `write`.
    package init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    /// Handler metadata by key.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line.
    package func log(event: LogEvent) {
        var merged = metadata
        merged.merge(metadataProvider?.get() ?? [:]) { $1 }
        merged.merge(event.metadata ?? [:]) { $1 }
        // Strings escaped by the JSON writer of EddySupport (the one the wire format uses).
        var line = "{\"time\":"
        line.writeJSONString(Self.timestamp(Date()))
        for (key, value) in [("level", event.level.rawValue), ("label", label), ("message", event.message.description)] {
            line.appendJSONText(",\"\(key)\":")
            line.writeJSONString(value)
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) where !["time", "level", "label", "message"].contains(key) {
            line.appendJSONText(",")
            line.writeJSONString(key)
            line.appendJSONText(":")
            line.writeJSONString("\(value)")
        }
        write(line + "}\n")
    }

    /// `2026-11-27T15:43:09.123Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// Query parameters whose values the access log never shows.
enum SecretQuery {
    /// Parameter names that can carry an API key or a session token (`/map?key=`).
    static let names: Set<String> = ["key", "apikey", "api_key", "token", "access_token"]

    /// `query` with the value of every secret parameter replaced by `***`.
    static func redacted(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "="), names.contains(pair[..<equals].lowercased()) else { return String(pair) }
            return pair[..<equals] + "=***"
        }.joined(separator: "&")
    }
}
#endif
