import EddySupport
import Foundation
import Testing
@testable import EddyImport

/// Header-name normalisation (`Columns.normalize`) against its definition written the plain way.
@Suite struct ColumnsTests {
    /// The definition: the rules applied one after another with Foundation's replacements (what `normalize` did before
    /// it worked on bytes).
    static func definition(_ name: String) -> String {
        var out = ""
        var lastWasSpace = true
        for scalar in name.lowercased().unicodeScalars {
            switch scalar {
            case "²": out += "2"; lastWasSpace = false
            case "°", "º": out += "deg"; lastWasSpace = false
            case "µ", "μ": out += "u"; lastWasSpace = false
            case " ", "\t", "\"":
                if !lastWasSpace { out += " " }
                lastWasSpace = true
            default:
                if scalar.isASCII { out.unicodeScalars.append(scalar); lastWasSpace = false }
            }
        }
        out = out.replacingOccurrences(of: "^2", with: "2")
        for token in ["( ", " )", " :", " (", "( "] {
            out = out.replacingOccurrences(of: token, with: token.trimmingCharacters(in: .whitespaces))
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    /// Published header names of the supported formats normalise as the importers expect.
    @Test func knownNames() {
        #expect(Columns.normalize("Acceleration x (m/s^2)") == "acceleration x(m/s2)")
        #expect(Columns.normalize("  \"ax (m/s²)\" ") == "ax(m/s2)")
        #expect(Columns.normalize("gFx") == "gfx")
        #expect(Columns.normalize("Time (s) : since start") == "time(s): since start")
        #expect(Columns.normalize("LOCATION Latitude : \t(°)") == "location latitude:(deg)")
        #expect(Columns.normalize("Pressure (µbar)") == "pressure(ubar)")
        #expect(Columns.normalize("Ω rate (°/s)") == "rate(deg/s)")
        #expect(Columns.normalize("ΜT") == "ut")
    }

    /// 200,000 random names drawn from the characters the rules act on (blanks, quotes, brackets, colons, `^2`, upper
    /// case, control bytes and NUL, and in half of them `²`, `°`, `º`, `µ`, `μ`, `Μ`, `İ`, `ß`, the Kelvin sign, `Σ`, `ẞ`, a non-breaking space):
    /// `normalize` gives exactly what the definition gives.
    @Test func agreesWithTheDefinition() {
        let ascii = Array(" \t\"()::^^22aZ(x )\u{0B}\r\u{00}/.-_1")
        let unicode = ascii + Array("²°ºµμΜİß\u{A0}éK\u{212A}ΣẞÅ")
        var rng = SplitMix64(seed: 2026_11_23)
        var mismatches: [String] = []
        for round in 0..<200_000 {
            let alphabet = round % 2 == 0 ? ascii : unicode
            let length = Int.random(in: 0..<14, using: &rng)
            let name = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            if Columns.normalize(name) != Self.definition(name), mismatches.count < 5 { mismatches.append(name) }
        }
        #expect(mismatches.isEmpty, "differ for \(mismatches.map { $0.debugDescription })")
    }
}
