// Bit layout and validity rules follow uber/h3 v4.5.0 src/h3lib/include/h3Index.h and
// src/h3lib/lib/h3Index.c (algorithm), Apache-2.0.

/// A 64-bit H3 index (for this module: a cell). Bit-identical with the reference library.
public struct H3Index: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    /// The raw 64-bit value.
    public var rawValue: UInt64

    /// Wraps a raw 64-bit value without validation.
    @inlinable
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Parses hexadecimal as the reference prints it (lower- or upper-case, optional `0x`, surrounding
    /// whitespace allowed). Returns nil for anything else, including values over 64 bits. No cell validation.
    public init?(string: String) {
        var s = Substring(string)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeLast() }
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        guard !s.isEmpty else { return nil }
        while s.count > 1, s.first == "0" { s.removeFirst() }
        guard s.utf8.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in s.utf8 {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = (value << 4) | digit
        }
        self.rawValue = value
    }

    /// Lower-case hexadecimal without prefix or padding, as the reference's `h3ToString`.
    public var description: String {
        String(rawValue, radix: 16, uppercase: false)
    }

    /// Orders by raw value.
    @inlinable
    public static func < (lhs: H3Index, rhs: H3Index) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes from a hexadecimal string (the exchange format for H3 ids).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = H3Index(string: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a hexadecimal H3 index")
        }
        self = value
    }

    /// Encodes as a lower-case hexadecimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The null index (0), which is never a valid cell.
    public static let null = H3Index(rawValue: 0)

    /// Resolution field (0–15); meaningful for valid cells.
    @inlinable
    public var resolution: Int { Int((rawValue >> 52) & 0xF) }

    /// Base cell field (0–121 for valid cells).
    @inlinable
    public var baseCell: Int { Int((rawValue >> 45) & 0x7F) }

    /// Mode field (1 for cells).
    @inlinable
    public var mode: Int { Int((rawValue >> 59) & 0xF) }

    /// Indexing digit at resolution `r` (1–15); 7 means unused.
    @inlinable
    public func digit(_ r: Int) -> Int { Int((rawValue >> UInt64((15 - r) * 3)) & 7) }
}

// MARK: - Bit helpers (internal)

/// All digits 7, mode/resolution/base cell zero (`H3_INIT`).
let kH3Init: UInt64 = 35_184_372_088_831

/// Whether a base cell is one of the 12 pentagons.
@inline(__always)
func isBaseCellPentagon(_ bc: Int) -> Bool {
    bc >= 0 && bc < kNumBaseCells && baseCellDataTable.withUnsafeBufferPointer { $0[bc * 7 + 4] } != 0
}

@inline(__always)
func h3GetDigit(_ h: UInt64, _ r: Int) -> Int { Int((h >> UInt64((15 - r) * 3)) & 7) }

@inline(__always)
func h3SetDigit(_ h: inout UInt64, _ r: Int, _ d: Int) {
    let shift = UInt64((15 - r) * 3)
    h = (h & ~(7 << shift)) | (UInt64(d) << shift)
}

@inline(__always)
func h3GetResolution(_ h: UInt64) -> Int { Int((h >> 52) & 0xF) }

@inline(__always)
func h3SetResolution(_ h: inout UInt64, _ res: Int) {
    h = (h & ~(UInt64(0xF) << 52)) | (UInt64(res) << 52)
}

@inline(__always)
func h3GetBaseCell(_ h: UInt64) -> Int { Int((h >> 45) & 0x7F) }

@inline(__always)
func h3SetBaseCell(_ h: inout UInt64, _ bc: Int) {
    h = (h & ~(UInt64(0x7F) << 45)) | (UInt64(bc) << 45)
}

@inline(__always)
func h3SetMode(_ h: inout UInt64, _ mode: Int) {
    h = (h & ~(UInt64(0xF) << 59)) | (UInt64(mode) << 59)
}

/// First non-zero digit, or 0 (reference `_h3LeadingNonZeroDigit`).
@inline(__always)
func leadingNonZeroDigit(_ h: UInt64) -> Int {
    let res = h3GetResolution(h)
    var r = 1
    while r <= res {
        let d = h3GetDigit(h, r)
        if d != 0 { return d }
        r += 1
    }
    return 0
}

/// Rotates all digits 60° ccw.
@inline(__always)
func h3Rotate60ccw(_ h: UInt64) -> UInt64 {
    var h = h
    let res = h3GetResolution(h)
    var r = 1
    while r <= res {
        h3SetDigit(&h, r, rotateDigit60ccw(h3GetDigit(h, r)))
        r += 1
    }
    return h
}

/// Rotates all digits 60° cw.
@inline(__always)
func h3Rotate60cw(_ h: UInt64) -> UInt64 {
    var h = h
    let res = h3GetResolution(h)
    var r = 1
    while r <= res {
        h3SetDigit(&h, r, rotateDigit60cw(h3GetDigit(h, r)))
        r += 1
    }
    return h
}

/// Rotates 60° ccw about a pentagon centre, skipping the deleted k sub-sequence.
func h3RotatePent60ccw(_ h: UInt64) -> UInt64 {
    var h = h
    var found = false
    let res = h3GetResolution(h)
    var r = 1
    while r <= res {
        h3SetDigit(&h, r, rotateDigit60ccw(h3GetDigit(h, r)))
        if !found && h3GetDigit(h, r) != 0 {
            found = true
            if leadingNonZeroDigit(h) == 1 { h = h3Rotate60ccw(h) }
        }
        r += 1
    }
    return h
}

/// Rotates 60° cw about a pentagon centre, skipping the deleted k sub-sequence.
func h3RotatePent60cw(_ h: UInt64) -> UInt64 {
    var h = h
    var found = false
    let res = h3GetResolution(h)
    var r = 1
    while r <= res {
        h3SetDigit(&h, r, rotateDigit60cw(h3GetDigit(h, r)))
        if !found && h3GetDigit(h, r) != 0 {
            found = true
            if leadingNonZeroDigit(h) == 1 { h = h3Rotate60cw(h) }
        }
        r += 1
    }
    return h
}

/// Whether a raw index is a valid cell (reference `isValidCell`).
@inline(__always)
func isValidCellRaw(_ h: UInt64) -> Bool {
    if (h >> 56) != 0b0000_1000 { return false }
    let res = h3GetResolution(h)
    let bc = h3GetBaseCell(h)
    if bc >= kNumBaseCells { return false }
    // any 7 in digits 1...res
    let mhi: UInt64 = 0b100100100100100100100100100100100100100100100
    let mlo: UInt64 = mhi >> 2
    let shift = UInt64(3 * (15 - res))
    var g = (h >> shift) << shift
    g = g & mhi & (~g &- mlo)
    if g != 0 { return false }
    // all 7 after res
    if res < 15 {
        let s2 = UInt64(19 + 3 * res)
        let a = ((~h) << s2) >> s2
        if a != 0 { return false }
    }
    // deleted subsequence for pentagon base cells
    if isBaseCellPentagon(bc) {
        let low = (h << 19) >> 19
        if low != 0 {
            let first = 63 - low.leadingZeroBitCount
            if first % 3 == 0 { return false }
        }
    }
    return true
}

/// Whether a raw cell is a pentagon (reference `isPentagon`).
@inline(__always)
func isPentagonRaw(_ h: UInt64) -> Bool {
    isBaseCellPentagon(h3GetBaseCell(h)) && leadingNonZeroDigit(h) == 0
}
