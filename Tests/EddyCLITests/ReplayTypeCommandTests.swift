import EddyTesting
import Foundation
import Testing

/// `eddy replay --type`: fly another ICAO type than meta.json's (issue 28). A glider of no designated type (`GLID`)
/// flies the generic glider: a light wing that the same air moves more, so the same accelerations mean less EDR.
@Suite("eddy replay --type") struct ReplayTypeCommandTests {
    let flight = Package.flight("jsbsim-c172-mixed")

    static func medianTileEDR(_ output: ProcessOutput) -> Double {
        let values = jsonObjects(output).filter { $0["type"] as? String == "tile" }.compactMap { $0["edr_median"] as? Double }.sorted()
        return values.isEmpty ? .nan : values[values.count / 2]
    }

    @Test func aGliderOfNoDesignatedTypeFliesTheGenericGlider() throws {
        let asLogged = try eddy(["replay", flight, "--json"])
        let asGlider = try eddy(["replay", flight, "--json", "--type", "GLID"])
        #expect(asLogged.status == 0 && asGlider.status == 0, "\(asGlider.stderr)")
        let summary = try #require(jsonObjects(asGlider).last)
        #expect(summary["aircraft_type"] as? String == "GLID" && summary["aircraft_class"] as? String == "small")
        #expect(jsonObjects(asLogged).last?["aircraft_type"] as? String == "C172")
        let (c172, glider) = (Self.medianTileEDR(asLogged), Self.medianTileEDR(asGlider))
        #expect(glider < 0.7 * c172, "median tile EDR as GLID \(glider), as C172 \(c172)")
        let readable = try eddy(["replay", flight, "--type", "glid"])
        #expect(readable.stdout.contains("GLID by --type, not meta.json's C172"), "\(readable.stdout.prefix(300))")
        let engine = try eddy(["replay", flight, "--engine", "--type", "GLID"])
        #expect(engine.status == 0 && engine.stdout.contains("GLID") && engine.stdout.contains("--type"), "\(engine.stdout.suffix(600))")
    }

    @Test func anUnknownTypeOrOneOfAnotherClassIsAClearError() throws {
        let unknown = try eddy(["replay", flight, "--type", "XYZ9"])
        #expect(unknown.status != 0 && unknown.stderr.contains("unknown ICAO aircraft type designator \"XYZ9\""), "\(unknown.stderr)")
        let conflict = try eddy(["replay", flight, "--type", "B738", "--class", "small"])
        #expect(conflict.status != 0 && conflict.stderr.contains("--type B738 is a medium aircraft but --class says small"), "\(conflict.stderr)")
    }
}
