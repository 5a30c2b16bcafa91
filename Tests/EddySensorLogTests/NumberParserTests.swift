import Foundation
import Testing
@testable import EddySensorLog

@Suite("Number parser")
struct NumberParserTests {
    private func value(_ text: String) -> Double? {
        if case .value(let v) = NumberParser.parse(text) { return v }
        return nil
    }

    @Test("decimal literals parse to the nearest double", arguments: [
        "0", "-0", "1", "-1.5", "12.25", "0.02", "1795000000.02", ".5", "5.", "+3.25", "1e-05", "1E+16",
        "-0.99876", "123456789012345", "0.1234567890123456789012", "2.2250738585072014e-308", "1.7976931348623157e308",
        "9007199254740993", "  42.5 ", "\t-7\t", "0.000000000000000000000000001", "4.9e-324",
    ])
    func literals(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        #expect(value(text) == Double(trimmed)!, "\(text)")
        if let v = value(text), v == 0 { #expect(v.sign == Double(trimmed)!.sign) }
    }

    @Test("shortest round-trip output of random doubles reads back bit-identical")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let scale = [1e-9, 1e-3, 1, 1e3, 1e9, 1e300][Int.random(in: 0..<6, using: &generator)]
            let x = Double.random(in: -1...1, using: &generator) * scale
            #expect(value(x.description)?.bitPattern == x.bitPattern, "\(x)")
        }
        let bits = Double(bitPattern: 0x3FB9_9999_9999_999A) // 0.1
        #expect(value(bits.description) == 0.1)
    }

    @Test("empty cells are missing, not zero")
    func empty() {
        if case .empty = NumberParser.parse("") {} else { Issue.record("empty string") }
        if case .empty = NumberParser.parse("   ") {} else { Issue.record("blanks") }
    }

    @Test("NaN and infinities are non-finite", arguments: ["nan", "NaN", "-nan", "inf", "-Infinity", "1e400", "-1e999"])
    func nonFinite(text: String) {
        if case .nonFinite = NumberParser.parse(text) {} else { Issue.record("\(text) not classified non-finite") }
    }

    @Test("garbage is invalid", arguments: ["abc", "1.2.3", "--1", "1e", "1e+", ".", "-", "0x10", "1,5", "12a", "1 2"])
    func invalid(text: String) {
        if case .invalid = NumberParser.parse(text) {} else { Issue.record("\(text) not classified invalid") }
    }
}

@Suite("Number parser: one-pass cell path")
struct FastCellTests {
    @Test("agrees with the general parser and stops at the comma", arguments: [
        "0,", "-0.02,", "12.34567", "123456789012345,", "0.00000000000001", "-1795341600.0002,9",
    ])
    func agrees(cell: String) {
        let bytes = Array(cell.utf8)
        let result = bytes.withUnsafeBufferPointer { NumberParser.fastCell($0.baseAddress!, 0, $0.count) }
        let comma = bytes.firstIndex(of: 0x2C) ?? bytes.count
        #expect(result?.cellEnd == comma)
        let text = String(decoding: bytes[..<comma], as: UTF8.self)
        #expect(result?.value == Double(text))
        #expect(result?.value.sign == Double(text)?.sign)
    }

    @Test("leaves everything else to the general parser", arguments: ["", " 1", "1 ", "1e5", "1234567890123456", "0.000000000000001", "abc", "-", ".", "1.2.3", "+1", "nan"])
    func declines(cell: String) {
        let bytes = Array(cell.utf8) + [0]
        let result = bytes.withUnsafeBufferPointer { NumberParser.fastCell($0.baseAddress!, 0, $0.count - 1) }
        #expect(result == nil)
    }
}
