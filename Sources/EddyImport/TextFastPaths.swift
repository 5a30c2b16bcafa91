import Foundation

/// Text helpers that run on every header cell and file name during format detection: Foundation's answers, faster
/// (docs/reliability.md §7: import detection cost), and for path names without Foundation's trap.
package enum TextFastPaths {
    /// `text.trimmingCharacters(in: .whitespaces)`; returns `text` itself when it starts and ends with a printable
    /// ASCII byte other than a space (no whitespace to trim), else asks Foundation.
    static func trimmingWhitespace(_ text: String) -> String {
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F { return text }
        if utf8.isEmpty { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A path's last component, as `NSString.lastPathComponent` gives it (`a/b/` → `b`, `/` → `/`), without calling
    /// it: swift-corelibs-foundation traps on a path ending in `//` and one non-ASCII character (`dir//é`), a name a
    /// zip entry, a folder file or the command line can carry (docs/reliability.md §7). All slashes give `/`.
    package static func baseName(_ path: String) -> String {
        let scalars = path.unicodeScalars
        var end = scalars.endIndex
        while end > scalars.startIndex, scalars[scalars.index(before: end)] == "/" { end = scalars.index(before: end) }
        if end == scalars.startIndex { return path.isEmpty ? "" : "/" }
        let kept = scalars[..<end]
        guard let slash = kept.lastIndex(of: "/") else { return String(kept) }
        return String(kept[kept.index(after: slash)...])
    }

    /// A file name without its extension, as `NSString.deletingPathExtension` gives it for a base name (`a.csv` → `a`, `a.` → `a`;
    /// `.hidden` and `..` kept whole), without calling it (the same trap as above).
    package static func deletingExtension(_ name: String) -> String {
        let scalars = name.unicodeScalars
        guard name != "..", let dot = scalars.lastIndex(of: "."), dot != scalars.startIndex else { return name }
        return String(scalars[..<dot])
    }

    /// Whether `text` holds `needle`, byte for byte (UTF-8; no Unicode equivalence, which Foundation's `contains` would
    /// apply: the needles here are ASCII column names and IGC record tags).
    package static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text, needle = needle
        return text.withUTF8 { haystack in needle.withUTF8 { contains(haystack, $0) } }
    }

    /// Whether `haystack` holds the bytes of `needle`.
    package static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let needleStart = needle.baseAddress, !needle.isEmpty else { return true }
        guard let start = haystack.baseAddress, haystack.count >= needle.count else { return false }
        // memchr for the first byte, memcmp for the rest (C's, so fuzzing instrumentation does not trace every byte).
        let last = haystack.count - needle.count
        var offset = 0
        while offset <= last {
            guard let hit = memchr(start + offset, Int32(needleStart.pointee), last - offset + 1) else { return false }
            let position = UnsafeRawPointer(start).distance(to: UnsafeRawPointer(hit))
            if memcmp(start + position, needleStart, needle.count) == 0 { return true }
            offset = position + 1
        }
        return false
    }
}
