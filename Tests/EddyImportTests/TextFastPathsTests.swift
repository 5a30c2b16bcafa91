import EddySupport
import Foundation
import Testing
@testable import EddyImport

/// The detection fast paths give Foundation's answers.
@Suite struct TextFastPathsTests {
    /// 100,000 random names from `a b / . _ é` and a blank: `baseName` equals `NSString.lastPathComponent` (names with
    /// `//` left out: Foundation traps on some of them, below; all-slash names too: Foundation answers `/` or "").
    @Test func baseNameIsLastPathComponent() {
        let alphabet = Array("ab/./._ é")
        var rng = SplitMix64(seed: 7)
        var mismatches: [String] = []
        for _ in 0..<100_000 {
            let name = String((0..<Int.random(in: 0..<10, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            if name.contains("//") || (!name.isEmpty && name.allSatisfy { $0 == "/" }) { continue }
            if TextFastPaths.baseName(name) != (name as NSString).lastPathComponent, mismatches.count < 5 { mismatches.append(name) }
        }
        #expect(mismatches.isEmpty, "differ for \(mismatches.map { $0.debugDescription })")
    }

    /// The names on which swift-corelibs-foundation's `lastPathComponent` traps (`//` then one non-ASCII character).
    @Test func namesFoundationTrapsOn() {
        #expect(TextFastPaths.baseName("a//é") == "é")
        #expect(TextFastPaths.baseName("//é") == "é")
        #expect(TextFastPaths.baseName("dir//Ü") == "Ü")
        #expect(TextFastPaths.baseName("é//") == "é")
        #expect(TextFastPaths.baseName("//") == "/")
        #expect(TextFastPaths.deletingExtension(TextFastPaths.baseName("exports//é")) == "é")
    }

    /// 20,000 random base names from `a . é _` and a blank: `deletingExtension` equals `NSString.deletingPathExtension`.
    @Test func deletingExtensionIsFoundations() {
        let alphabet = Array("a.é_ ")
        var rng = SplitMix64(seed: 9)
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            let name = String((0..<Int.random(in: 0..<7, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            if TextFastPaths.deletingExtension(name) != (name as NSString).deletingPathExtension, mismatches.count < 5 { mismatches.append(name) }
        }
        #expect(mismatches.isEmpty, "differ for \(mismatches.map { $0.debugDescription })")
    }

    /// 100,000 random cells with spaces, tabs, a non-breaking and an ideographic space, line breaks and control bytes at
    /// either end: `trimmingWhitespace` equals `trimmingCharacters(in: .whitespaces)`.
    @Test func trimmingIsFoundations() {
        let alphabet = Array("ax \t\u{A0}\u{3000}\r\n\u{0B}\u{01}~é")
        var rng = SplitMix64(seed: 8)
        var mismatches: [String] = []
        for _ in 0..<100_000 {
            let cell = String((0..<Int.random(in: 0..<8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            if TextFastPaths.trimmingWhitespace(cell) != cell.trimmingCharacters(in: .whitespaces), mismatches.count < 5 { mismatches.append(cell) }
        }
        #expect(mismatches.isEmpty, "differ for \(mismatches.map { $0.debugDescription })")
    }

    /// 100,000 random texts and needles from `a b \n` : `contains` finds what a plain scan finds (hits at the start, at
    /// the end, overlapping prefixes, needles longer than the text).
    @Test func containsIsAPlainSearch() {
        let alphabet = Array("ab\n")
        var rng = SplitMix64(seed: 10)
        var mismatches: [String] = []
        for _ in 0..<100_000 {
            let text = String((0..<Int.random(in: 0..<12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let needle = String((0..<Int.random(in: 0..<4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let bytes = Array(text.utf8), wanted = Array(needle.utf8)
            let plain = wanted.isEmpty || stride(from: 0, through: bytes.count - wanted.count, by: 1).contains { Array(bytes[$0..<$0 + wanted.count]) == wanted }
            if TextFastPaths.contains(text, needle) != plain, mismatches.count < 5 { mismatches.append("\(text.debugDescription) ∋ \(needle.debugDescription)") }
        }
        #expect(mismatches.isEmpty, "differ for \(mismatches)")
    }
}
