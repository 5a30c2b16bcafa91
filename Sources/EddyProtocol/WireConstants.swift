// Wire types shared by the EddySync client and eddy-server (docs/protocol.md, docs/openapi.yaml), one file per envelope
// group. JSON over HTTP(S); times are Unix epoch seconds; EDR is m^(2/3) s^-1; coordinates are WGS-84 degrees.
// This file: the protocol's constants and the client version order.

/// Protocol constants shared by both sides.
package enum EddyWire {
    /// Protocol version this module speaks (path prefix `/v1`).
    package static let version = 1
    /// Path prefix of every API endpoint.
    package static let pathPrefix = "/v1"
    /// Maximum vertices of an area polygon (route corridor or viewport).
    package static let maxPolygonVertices = 250
    /// History windows a fetch may ask for, hours.
    package static let historyWindowsHours: [Double] = [0.5, 1, 2, 4, 6]
    /// Default history window, hours.
    package static let defaultHistoryHours: Double = 2
    /// Header carrying the client version on every request (426 when too old).
    package static let clientVersionHeader = "X-Eddy-Client-Version"
}

/// Semantic version comparison for `clientVersion` (`MAJOR.MINOR.PATCH`, missing parts are 0).
package struct WireVersion: Sendable, Comparable, CustomStringConvertible {
    /// Numeric parts.
    package var parts: [Int]
    /// Parses `1.2.3`; nil when a part is not a non-negative integer or there are more than 3.
    package init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard let value = Int(piece), value >= 0 else { return nil }
            parts.append(value)
        }
        while parts.count < 3 { parts.append(0) }
        self.parts = parts
    }
    /// Lexicographic order of the parts.
    package static func < (lhs: WireVersion, rhs: WireVersion) -> Bool { lhs.parts.lexicographicallyPrecedes(rhs.parts) }
    /// `MAJOR.MINOR.PATCH`.
    package var description: String { parts.map(String.init).joined(separator: ".") }
}
