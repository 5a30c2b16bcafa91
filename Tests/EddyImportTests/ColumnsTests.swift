import EddyCore
import Testing
@testable import EddyImport

/// Header-name normalisation: the byte-level path for ASCII names agrees with the general (Unicode) definition.
@Suite struct ColumnsTests {
    /// The published header names of the supported formats normalise as the importers expect.
    @Test func knownNames() {
        #expect(Columns.normalize("Acceleration x (m/s^2)") == "acceleration x(m/s2)")
        #expect(Columns.normalize("  \"ax (m/s²)\" ") == "ax(m/s2)")
        #expect(Columns.normalize("gFx") == "gfx")
        #expect(Columns.normalize("Time (s) : since start") == "time(s): since start")
        #expect(Columns.normalize("LOCATION Latitude : \t(°)") == "location latitude:(deg)")
    }

    /// 200,000 random ASCII names drawn from the characters the rules act on (blanks, quotes, brackets, colons, `^2`,
    /// upper case, control bytes): the byte-level path gives exactly what the general path gives.
    @Test func asciiPathAgreesWithTheGeneralOne() {
        let alphabet = Array(" \t\"()::^^22aZ(x )\u{0B}\r/.-_1".utf8)
        var rng = SplitMix64(seed: 2026_11_23)
        var mismatches: [String] = []
        for _ in 0..<200_000 {
            let length = Int.random(in: 0..<14, using: &rng)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
            let name = String(decoding: bytes, as: UTF8.self)
            if Columns.normalizeASCII(name) != Columns.normalizeGeneral(name), mismatches.count < 5 { mismatches.append(name) }
        }
        #expect(mismatches.isEmpty, "differ for \(mismatches.map { $0.debugDescription })")
    }

    /// Non-ASCII names still take the general path (`²`, `°`, `µ` and a capital Greek mu map; others drop).
    @Test func unicodeNamesTakeTheGeneralPath() {
        #expect(Columns.normalize("Pressure (µbar)") == "pressure(ubar)")
        #expect(Columns.normalize("Ω rate (°/s)") == "rate(deg/s)")
        #expect(Columns.normalize("ΜT") == "ut")
    }
}
