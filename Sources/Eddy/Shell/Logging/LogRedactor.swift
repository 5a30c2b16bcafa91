import EddySupport
import Foundation
import Synchronization

/// Removes secrets from log text before it is written: the API keys and user ids the engine was started with (exact
/// occurrences), anything after `Bearer `, and every run of 32 or more hex digits (session tokens and server-issued
/// keys are such runs). Shared by every logger of one engine.
package final class LogRedactor: Sendable {
    /// What replaces a secret.
    package static let mask = "‹redacted›"
    /// Secrets shorter than this are not replaced by exact match (a one-letter user id would mangle every line);
    /// the engine never writes a user id into a message itself.
    package static let minimumExactLength = 3
    private let secrets = Mutex<[String]>([])

    /// Creates a redactor with no known secrets.
    package init() {}

    /// Adds a secret to remove from now on (longest first, so a secret that contains another goes whole).
    package func add(_ secret: String) {
        guard secret.unicodeScalars.count >= Self.minimumExactLength else { return }
        secrets.withLock(visibleToThreadSanitizerAs: self) { list in
            guard !list.contains(secret) else { return }
            list.append(secret)
            list.sort { $0.utf8.count > $1.utf8.count }
        }
    }

    /// `text` without the known secrets, bearer tokens and long hex runs.
    package func redact(_ text: String) -> String {
        var out = text
        for secret in secrets.withLock(visibleToThreadSanitizerAs: self, { $0 }) where out.contains(secret) {
            out = out.replacingOccurrences(of: secret, with: Self.mask)
        }
        return Self.redactBearerAndHex(out)
    }

    /// Replaces the word after `Bearer ` and every run of ≥ 32 hex digits.
    static func redactBearerAndHex(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var i = 0
        let bearer = Array("Bearer ".unicodeScalars)
        while i < scalars.count {
            if scalars[i] == "B", i + bearer.count <= scalars.count, Array(scalars[i..<(i + bearer.count)]) == bearer {
                result.append(contentsOf: bearer)
                i += bearer.count
                var j = i
                while j < scalars.count, !scalars[j].properties.isWhitespace, scalars[j] != "\"", scalars[j] != "," { j += 1 }
                if j > i { result.append(contentsOf: LogRedactor.mask.unicodeScalars) }
                i = j
                continue
            }
            if scalars[i].isHexDigit {
                var j = i
                while j < scalars.count, scalars[j].isHexDigit { j += 1 }
                if j - i >= 32 { result.append(contentsOf: LogRedactor.mask.unicodeScalars) } else { result.append(contentsOf: scalars[i..<j]) }
                i = j
                continue
            }
            result.append(scalars[i])
            i += 1
        }
        return String(result)
    }
}

extension Unicode.Scalar {
    fileprivate var isHexDigit: Bool {
        switch value {
        case 0x30...0x39, 0x41...0x46, 0x61...0x66: true
        default: false
        }
    }
}
