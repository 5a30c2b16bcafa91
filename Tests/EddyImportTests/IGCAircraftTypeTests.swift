import EddySensorLog
import EddyVocabulary
import Foundation
import Testing
@testable import EddyImport

/// IGC loggers are glider loggers: without `--type`, the glider-type header names the type when it is a designator Eddy
/// knows, else the flight is `GLID` (a glider of no designated type), and the import says why (issue 28).
@Suite struct IGCAircraftTypeTests {
    static func igc(header: String?) -> [UInt8] {
        var text = "AXXX001\nHFDTEDATE:251126,01\n"
        if let header { text += "HFGTYGLIDERTYPE:\(header)\n" }
        text += "B1200004700000N00800000EA0150001600\nB1200014700010N00800010EA0150201602\n"
        return Array(text.utf8)
    }

    static func importType(header: String?, options: ImportOptions = ImportOptions()) throws -> (type: String?, notes: [String]) {
        let directory = TempDirectory()
        let source = directory.write("flight.igc", igc(header: header))
        let out = TempDirectory()
        let summary = try FlightImport.run(source: source, to: out.path, options: options)
        return (try FlightLogReader.readAll(directory: out.path).meta.aircraft.type, summary.notes)
    }

    @Test(arguments: [
        (nil as String?, "GLID", "has no glider-type header"),
        ("", "GLID", "glider-type header (HFGTY) is empty"),
        ("ASK21", "GLID", "says \"ASK21\", not an ICAO designator"),
        ("ls4", "LS4", "LS4 (Rolladen-Schneider LS4) from the glider-type header"),
    ])
    func theGliderTypeHeaderOrGLID(header: String?, type: String, note: String) throws {
        let result = try Self.importType(header: header)
        #expect(result.type == type)
        #expect(result.notes.contains { $0.contains(note) }, "\(result.notes)")
        if type == "GLID" { #expect(result.notes.contains { $0.contains("pass --type") }) }
    }

    @Test func anExplicitTypeOrALargerClassIsKept() throws {
        #expect(try Self.importType(header: "", options: ImportOptions(aircraftType: "DUOD")).type == "DUOD")
        #expect(try Self.importType(header: nil, options: ImportOptions(aircraftClass: .medium)).type == nil)
    }
}
