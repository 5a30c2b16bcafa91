import EddySupport
import Foundation
import Testing

@Suite struct JSONNumberTests {
    @Test func nonFiniteNumbersAreNull() {
        for value in [Double.nan, -.nan, .infinity, -.infinity, .signalingNaN] {
            #expect(JSONNumber.text(value) == "null")
            #expect(JSONNumber.text(value, wholeNumbers: .withFraction) == "null")
            #expect(JSONNumber.fixed(value, decimals: 4) == "null")
        }
    }

    @Test func zeroHasNoSign() {
        #expect(JSONNumber.text(0) == "0")
        #expect(JSONNumber.text(-0.0) == "0")
        #expect(JSONNumber.text(-0.0, wholeNumbers: .withFraction) == "0.0")
        #expect(JSONNumber.fixed(-0.0, decimals: 6) == "0")
        #expect(JSONNumber.fixed(-0.000_000_1, decimals: 6) == "0")   // rounds to zero: no "-0"
        #expect(JSONNumber.fixed(-0.000_01, decimals: 4, wholeNumbers: .withFraction) == "0.0")
    }

    @Test func wholeNumbersAreBareOrKeepTheirFraction() {
        #expect(JSONNumber.text(3) == "3")
        #expect(JSONNumber.text(-12) == "-12")
        #expect(JSONNumber.text(1_795_311_780) == "1795311780")
        #expect(JSONNumber.text(999_999_999_999_999) == "999999999999999")
        #expect(JSONNumber.text(1e15) == "1000000000000000.0")   // from 10^15 on: Swift's description
        #expect(JSONNumber.text(3, wholeNumbers: .withFraction) == "3.0")
        #expect(JSONNumber.text(-12, wholeNumbers: .withFraction) == "-12.0")
        #expect(JSONNumber.fixed(40, decimals: 6) == "40")
        #expect(JSONNumber.fixed(1, decimals: 4, wholeNumbers: .withFraction) == "1.0")
    }

    @Test func verySmallAndVeryLargeNumbers() throws {
        #expect(JSONNumber.text(1e-05) == "1e-05")
        #expect(JSONNumber.text(0.0001) == "0.0001")
        #expect(JSONNumber.text(.leastNonzeroMagnitude) == "5e-324")
        #expect(JSONNumber.text(1e16) == "1e+16")
        #expect(JSONNumber.text(.greatestFiniteMagnitude) == "1.7976931348623157e+308")
        #expect(JSONNumber.text(-.greatestFiniteMagnitude) == "-1.7976931348623157e+308")
        #expect(JSONNumber.text(0.1 + 0.2) == "0.30000000000000004")
        #expect(JSONNumber.fixed(0.000_05, decimals: 6) == "0.00005")   // fixed decimals: never an exponent
        #expect(JSONNumber.fixed(1e300, decimals: 4) == JSONNumber.text(1e300))
        for text in ["1e-05", "5e-324", "1e+16", "1.7976931348623157e+308"] {
            #expect(try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8), options: []) is [Any])
        }
    }

    @Test func fixedDecimalsRoundHalfAwayFromZeroAndTrimZeros() {
        #expect(JSONNumber.fixed(0.123_449, decimals: 4) == "0.1234")
        #expect(JSONNumber.fixed(0.123_45, decimals: 4) == "0.1235")
        #expect(JSONNumber.fixed(-0.123_46, decimals: 4) == "-0.1235")
        #expect(JSONNumber.fixed(12.25, decimals: 1) == "12.3")
        #expect(JSONNumber.fixed(0.1, decimals: 4) == "0.1")
        #expect(JSONNumber.fixed(-104.990_250_5, decimals: 6) == "-104.990251")
        #expect(JSONNumber.fixed(0.000_001, decimals: 6) == "0.000001")
        #expect(JSONNumber.fixed(7.5, decimals: 0) == "8")
    }

    @Test func fixedDecimalsMatchTheShortestTextOfTheRoundedValue() {
        // The replay's EDR: the shortest text of (value * 10^4).rounded() / 10^4, which its bytes were made with.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -3...3, using: &generator)
            let rounded = (value * 10_000).rounded() / 10_000
            #expect(JSONNumber.fixed(value, decimals: 4, wholeNumbers: .withFraction) == JSONNumber.text(rounded, wholeNumbers: .withFraction))
        }
    }

    @Test func fixedDecimalsMatchPrintfForCoordinates() {
        // GeoJSON coordinates were `%.6f` with trailing zeros trimmed.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -540...540, using: &generator)
            var text = String(format: "%.6f", value)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            if text == "-0" { text = "0" }
            #expect(JSONNumber.fixed(value, decimals: 6) == text)
        }
    }

    @Test func randomFiniteDoublesRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for index in 0..<50_000 {
            // Any bit pattern (all magnitudes), plus everyday values.
            let value = index.isMultiple(of: 2)
                ? Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
                : Double.random(in: -2e9...2e9, using: &generator)
            guard value.isFinite else { continue }
            for style in [JSONWholeNumbers.bare, .withFraction] {
                let text = JSONNumber.text(value, wholeNumbers: style)
                #expect(Double(text) == value, "\(text) does not read back")
            }
        }
        let everyday: [Double] = [1, -1, 0.5, 1e15 - 1, 2e15, 9_007_199_254_740_994, 0.1, 1.0 / 3]
        for value in everyday {
            #expect(Double(JSONNumber.text(value)) == value)
        }
    }
}

@Suite struct JSONStringTests {
    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        #expect(JSONString.quoted("") == "\"\"")
        #expect(JSONString.quoted("plain") == "\"plain\"")
        #expect(JSONString.quoted("say \"hi\"") == #""say \"hi\"""#)
        #expect(JSONString.quoted(#"C:\path"#) == #""C:\\path""#)
        #expect(JSONString.quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
        #expect(JSONString.quoted("\u{0}\u{1}\u{8}\u{c}\u{1f}") == #""\u0000\u0001\u0008\u000c\u001f""#)
        #expect(JSONString.quoted("\u{7f} /") == "\"\u{7f} /\"")   // DEL and slash need no escape
    }

    @Test func nonASCIIPassesThroughAsUTF8() {
        #expect(JSONString.quoted("é ü 東京 ✈️ 🌪") == "\"é ü 東京 ✈️ 🌪\"")
        var bytes: [UInt8] = []
        JSONString.write("é", into: &bytes)
        #expect(bytes == [0x22, 0xC3, 0xA9, 0x22])
    }

    @Test func everyStringReadsBack() throws {
        var samples = ["odd \"id\"\n\u{1}é", "\\\"\\", "tab\there", String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self), "Zürich ✈ 東京"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            samples.append(String(String.UnicodeScalarView((0..<20).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &generator))
            })))
        }
        for sample in samples {
            var sink = ""
            sink.writeJSONString(sample)
            #expect(sink == JSONString.quoted(sample))
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(sink)]".utf8)) as? [String]
            #expect(parsed == [sample])
        }
    }
}

@Suite struct JSONObjectTests {
    @Test func keysInCallOrderAndValidJSON() throws {
        var inner = JSONObject()
        inner.integer("n", 2)
        var object = JSONObject()
        object.string("type", "minute")
        object.number("t", 3)
        object.fixed("edr", 0.123_456, decimals: 4)
        object.integer("count", -4)
        object.bool("yes", true)
        object.bool("no", false)
        object.null("none")
        object.number("nan", .nan)
        object.raw("inner", inner.text)
        object.raw("list", JSONObject.array(["1", "\"a\""]))
        object.string("key \"q\"", "v")
        let text = object.text
        #expect(text == #"{"type":"minute","t":3,"edr":0.1235,"count":-4,"yes":true,"no":false,"none":null,"nan":null,"inner":{"n":2},"list":[1,"a"],"key \"q\"":"v"}"#)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["edr"] as? Double == 0.1235)
        #expect(parsed["key \"q\""] as? String == "v")
        #expect(JSONObject().text == "{}")
        var lines = JSONObject(wholeNumbers: .withFraction)
        lines.number("t", 3)
        lines.number("z", -0.0)
        lines.fixed("edr", 1, decimals: 4)
        #expect(lines.text == #"{"t":3.0,"z":0.0,"edr":1.0}"#)
    }

    @Test func sinksReceiveTheSameBytes() {
        var bytes: [UInt8] = []
        var text = ""
        for value in [0.5, -0.0, 3, .nan] {
            bytes.writeJSONNumber(value)
            text.writeJSONNumber(value)
            bytes.appendJSONByte(0x2C)
            text.appendJSONByte(0x2C)
        }
        bytes.writeJSONInteger(UInt64.max)
        text.writeJSONInteger(UInt64.max)
        bytes.appendJSONText("é")
        text.appendJSONText("é")
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        #expect(text == "0.5,0,3,null,18446744073709551615é")
    }
}
