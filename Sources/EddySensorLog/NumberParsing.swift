/// Outcome of parsing one CSV cell as a number.
package enum CellParse {
    /// A finite number.
    case value(Double)
    /// The cell is empty (or only blanks): the value is missing.
    case empty
    /// `nan`, `inf`, or a number too large for a Double.
    case nonFinite
    /// Anything else.
    case invalid
}

/// Hand-written parser for the CSV number grammar (docs/sensor-log.md): `[+-]digits[.digits][(e|E)[+-]digits]`,
/// also `.5` and `5.`; blanks around the number are allowed.
///
/// Fast path (Clinger 1990): when the significand has at most 15 digits and the decimal exponent is
/// within ±22, both are exact doubles and one IEEE multiply or divide gives the correctly rounded
/// result. Anything else (17-digit shortest round-trip output, big exponents) goes through the
/// standard library's correctly rounded `Double(String)`. Either way the result is the double nearest
/// to the decimal text, so writer → reader round-trips exactly.
package enum NumberParser {
    /// 10^0 … 10^22, all exactly representable.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The common case in one pass: `[-]digits[.digits]` with at most 15 digits, directly followed by
    /// `,` or the end of the line. Returns the value and the index where the cell ends, or nil when
    /// the cell needs the general parser (blanks, exponent, many digits, empty, not a number).
    @inline(__always)
    static func fastCell(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (value: Double, cellEnd: Int)? {
        guard let (value, stop) = fastCellPrefix(base, start, end), stop == end || base[stop] == 0x2C else { return nil }
        return (value, stop)
    }

    /// `fastCell`'s number without its check of what follows: `[-]digits[.digits]` with 1 to 15 digits from `start`,
    /// and the index of the first byte after it (`end` when the bytes ran out). The caller checks that byte.
    @inline(__always)
    static func fastCellPrefix(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (value: Double, cellEnd: Int)? {
        var i = start
        var negative = false
        if i < end, base[i] == 0x2D { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < end {
            let d = base[i] &- 0x30
            guard d < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        var digits = i - integerStart
        var fractionDigits = 0
        if i < end, base[i] == 0x2E {
            i += 1
            let fractionStart = i
            while i < end {
                let d = base[i] &- 0x30
                guard d < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            fractionDigits = i - fractionStart
            digits += fractionDigits
        }
        guard digits > 0, digits <= 15 else { return nil }
        // At most 15 digits: the mantissa is below 2⁶³ (and 2⁵³), so the signed conversion (one instruction; the
        // unsigned one takes several) gives the same exact double.
        let magnitude = Double(Int64(truncatingIfNeeded: mantissa)) / powersOfTen[fractionDigits]
        return (negative ? -magnitude : magnitude, i)
    }

    /// Parses the bytes `[start, end)` of a buffer.
    @inline(__always)
    package static func parse(_ base: UnsafePointer<UInt8>, _ startIndex: Int, _ endIndex: Int) -> CellParse {
        var start = startIndex
        var end = endIndex
        while start < end, base[start] == 0x20 || base[start] == 0x09 { start += 1 }
        while end > start, base[end - 1] == 0x20 || base[end - 1] == 0x09 { end -= 1 }
        if start == end { return .empty }

        var i = start
        var negative = false
        if base[i] == 0x2D { negative = true; i += 1 } else if base[i] == 0x2B { i += 1 }

        var mantissa: UInt64 = 0
        var significantDigits = 0   // digits accumulated into the mantissa (leading zeros excluded)
        var droppedDigits = false   // more than 19 significant digits: needs the slow path
        var decimalExponent = 0
        var sawDigit = false

        while i < end {
            let d = base[i] &- 0x30
            guard d < 10 else { break }
            sawDigit = true
            if mantissa == 0 && d == 0 {
                // leading zero: no information
            } else if significantDigits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d); significantDigits += 1
            } else {
                decimalExponent += 1; droppedDigits = true
            }
            i += 1
        }
        if i < end, base[i] == 0x2E {
            i += 1
            while i < end {
                let d = base[i] &- 0x30
                guard d < 10 else { break }
                sawDigit = true
                if mantissa == 0 && d == 0 {
                    decimalExponent -= 1
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d); significantDigits += 1; decimalExponent -= 1
                } else {
                    droppedDigits = true
                }
                i += 1
            }
        }
        guard sawDigit else { return nonNumeric(base, start, end) }
        if i < end, base[i] == 0x65 || base[i] == 0x45 {
            i += 1
            var exponentNegative = false
            if i < end, base[i] == 0x2D { exponentNegative = true; i += 1 } else if i < end, base[i] == 0x2B { i += 1 }
            var exponent = 0
            var sawExponentDigit = false
            while i < end {
                let d = base[i] &- 0x30
                guard d < 10 else { break }
                sawExponentDigit = true
                if exponent < 100_000 { exponent = exponent * 10 + Int(d) }
                i += 1
            }
            guard sawExponentDigit else { return .invalid }
            decimalExponent += exponentNegative ? -exponent : exponent
        }
        guard i == end else { return nonNumeric(base, start, end) }

        if mantissa == 0 { return .value(negative ? -0.0 : 0.0) }
        if !droppedDigits, significantDigits <= 15, decimalExponent >= -22, decimalExponent <= 22 {
            var value = Double(mantissa)
            if decimalExponent >= 0 {
                value *= powersOfTen[decimalExponent]
            } else {
                value /= powersOfTen[-decimalExponent]
            }
            return .value(negative ? -value : value)
        }
        return slowPath(base, start, end)
    }

    /// Correctly rounded conversion of an already-validated decimal literal.
    static func slowPath(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> CellParse {
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
        guard let value = Double(text) else { return .invalid }
        return value.isFinite ? .value(value) : .nonFinite
    }

    /// Classifies a cell that is not a decimal literal: NaN / infinity spellings are `.nonFinite`.
    static func nonNumeric(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> CellParse {
        var text = String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self).lowercased()
        if text.hasPrefix("-") || text.hasPrefix("+") { text.removeFirst() }
        return ["nan", "inf", "infinity"].contains(text) ? .nonFinite : .invalid
    }

    /// Convenience for tests and small inputs: parses a Swift string.
    static func parse(_ text: String) -> CellParse {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { parse($0.baseAddress!, 0, $0.count - 1) }
    }
}
