import EddyCLIParsing
import EddyH3
import EddySupport
import EddyVocabulary
import Foundation
import Testing

/// The command line's text parsers (moved out of EddyCLI so fuzz targets link them) and the escaped input excerpt.
@Suite("CLI text parsers")
struct CoordinateTextTests {
    @Test func latLonAcceptsFiniteAndRefusesTheRest() throws {
        let (lat, lon) = try CoordinateText.latLon(" 47.25 , -8.5 ")
        #expect(lat == 47.25 && lon == -8.5)
        for bad in ["47", "nan,8", "47,inf", "1e999,0", "a,b", "1,2,3", ""] {
            #expect(throws: InputTextError.self, "\(bad)") { try CoordinateText.latLon(Substring(bad)) }
        }
    }

    @Test func pointsAreFiniteAndInRange() throws {
        let points = try CoordinateText.points("47,8 47.5,8;47.5,8.5", option: "--polygon")
        #expect(points.map(\.latitude) == [47, 47.5, 47.5])
        for bad in ["91,8", "47,181", "nan,8", "47,-inf", "47;8"] {
            #expect(throws: InputTextError.self, "\(bad)") { try CoordinateText.points(bad, option: "--route") }
        }
    }

    @Test func tilesAndCells() throws {
        let tiles = try CoordinateText.tiles("85283473fffffff@35,851f8d27fffffff@-1")
        #expect(tiles.map(\.layer) == [35, -1])
        #expect(tiles[0].h3String == "85283473fffffff")
        #expect(throws: InputTextError.self) { try CoordinateText.tiles("85283473fffffff@1e3") }
        #expect(try CoordinateText.cell("85283473fffffff").rawValue == 0x0852_8347_3fff_ffff)
        #expect(throws: InputTextError.self) { try CoordinateText.cell("ffffffffffffffff") }
    }

    /// Binary input is quoted as a short escaped excerpt, never raw.
    @Test func binaryInputIsEscapedAndShort() {
        let binary = String(decoding: [0x00, 0xFF, 0x1B, 0x5B, 0x32, 0x4A] + Array(repeating: UInt8(0x07), count: 200), as: UTF8.self)
        do {
            _ = try CoordinateText.latLon(Substring(binary))
            Issue.record("binary accepted")
        } catch {
            #expect(!error.message.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "\(error.message.debugDescription)")
            #expect(error.message.contains("\\x00") && error.message.contains("\\x1b"), "\(error.message)")
            #expect(error.message.count < 140, "\(error.message.count)")
        }
    }

    @Test func excerptEscapesAndCuts() {
        #expect(InputExcerpt.escaped("abc") == "abc")
        #expect(InputExcerpt.escaped("a\tb\\c") == "a\\x09b\\\\c")
        #expect(InputExcerpt.escaped(bytes: [0xC3, 0xA9]) == "\\xc3\\xa9")
        let long = InputExcerpt.escaped(String(repeating: "x", count: 100))
        #expect(long == String(repeating: "x", count: 60) + "…")
        // An escape is never cut in half.
        let escapes = InputExcerpt.escaped(bytes: Array(repeating: UInt8(0x01), count: 40))
        #expect(escapes == String(repeating: "\\x01", count: 15) + "…")
    }
}
