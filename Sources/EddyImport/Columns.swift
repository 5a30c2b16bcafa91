import Foundation

/// A header row with names normalised for matching: lower case, `²`→`2`, `^2`→`2`, `°`→`deg`, `µ`→`u`, other
/// non-ASCII dropped (mojibake of `²` and `°` included), runs of blanks collapsed, blanks around `(`/`)`/`:` removed.
struct Columns {
    /// The names as written.
    let names: [String]
    /// The normalised names.
    let normalized: [String]
    /// The header's line number in its file.
    let line: Int

    init(_ names: [String], line: Int = 1) {
        self.names = names
        self.line = line
        normalized = names.map(Self.normalize)
    }

    /// Normalises one name: lower case; `²` → `2`, `°`/`º` → `deg`, `µ`/`μ` → `u`, other non-ASCII dropped; blanks (space,
    /// tab, `"`) collapsed to one space; then `^2` → `2`, a space after `(` or before `)`, `:`, `(` removed, a trailing
    /// space dropped. ASCII is lower-cased byte by byte, other scalars by their Unicode lower-case mapping.
    /// Spaces are single after the first pass, so removing one never changes another's neighbours: one pass does what
    /// sequential replacements would (checked against that definition on random names, ColumnsTests).
    static func normalize(_ name: String) -> String {
        var collapsed: [UInt8] = []
        collapsed.reserveCapacity(name.utf8.count)
        var lastWasSpace = true
        func append(_ byte: UInt8) {
            if byte == 0x20 || byte == 0x09 || byte == 0x22 {
                if !lastWasSpace { collapsed.append(0x20) }
                lastWasSpace = true
            } else {
                collapsed.append(byte); lastWasSpace = false
            }
        }
        for scalar in name.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
                continue
            }
            // String.lowercased() maps scalar by scalar; the few that matter map to ASCII or to `μ` (`Μ`).
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                switch lower {
                case "²": append(0x32)
                case "°", "º": append(0x64); append(0x65); append(0x67)
                case "µ", "μ": append(0x75)
                default: if lower.isASCII { append(UInt8(lower.value)) }
                }
            }
        }
        // `^2` → `2`, and a space after `(` or before `)`, `:`, `(` dropped, in one pass: a space's next byte is never a
        // dropped `^` that matters (`^` and the `2` after it are no marks), and its previous is the last byte kept.
        var out: [UInt8] = []
        out.reserveCapacity(collapsed.count)
        let count = collapsed.count
        for i in 0..<count {
            let byte = collapsed[i]
            let next: UInt8? = i + 1 < count ? collapsed[i + 1] : nil
            if byte == 0x5E, next == 0x32 { continue }
            if byte == 0x20, next == nil || next == 0x29 || next == 0x3A || next == 0x28 || out.last == 0x28 { continue }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Index of the first column whose normalised name is one of `candidates` (normalised too), or -1.
    func index(_ candidates: String...) -> Int {
        for candidate in candidates {
            let wanted = Self.normalize(candidate)
            if let found = normalized.firstIndex(of: wanted) { return found }
        }
        return -1
    }

    /// Index of the first column whose normalised name starts with `prefix` (normalised), or -1.
    func index(prefix: String) -> Int {
        let wanted = Self.normalize(prefix)
        return normalized.firstIndex { $0.hasPrefix(wanted) } ?? -1
    }

    /// The unit in parentheses at the end of a column's normalised name (`m/s2`, `g`, `rad/s`), or "".
    func unit(_ index: Int) -> String {
        guard index >= 0 else { return "" }
        let name = normalized[index]
        guard let open = name.lastIndex(of: "("), let close = name.lastIndex(of: ")"), open < close else { return "" }
        return String(name[name.index(after: open)..<close])
    }

    /// Throws `missingColumns` naming what is missing, when any index is -1.
    func require(_ pairs: [(String, Int)], file: String, format: ImportFormat) throws(ImportError) {
        let missing = pairs.filter { $0.1 < 0 }.map(\.0)
        guard missing.isEmpty else {
            throw ImportError(kind: .missingColumns, file: file, line: line,
                              message: "the header lacks \(missing.joined(separator: ", ")) (has: \(names.prefix(12).joined(separator: ", "))\(names.count > 12 ? ", …" : ""))",
                              advice: "Enable that sensor in \(format.displayName) and export again, or pass the right --format")
        }
    }

    /// Throws `mixedUnits` when the three axis columns of one quantity name different units.
    func requireSameUnit(_ indices: [Int], what: String, file: String) throws(ImportError) {
        let units = Set(indices.filter { $0 >= 0 }.map(unit))
        guard units.count <= 1 else {
            throw ImportError(kind: .mixedUnits, file: file, line: line, message: "\(what) columns have different units (\(units.sorted().joined(separator: ", ")))",
                              advice: "Export again with one unit for all axes")
        }
    }
}
