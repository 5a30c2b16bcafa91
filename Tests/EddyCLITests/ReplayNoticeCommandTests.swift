import EddyTesting
import Foundation
import Testing

/// `eddy replay` says why nothing was measured (exit 0, the reason printed), and takes `--mount`.
@Suite("eddy replay: notices and --mount", .serialized)
struct ReplayNoticeCommandTests {
    let flat = Package.flight("sim-flat")

    @Test func flatCradleSaysWhyAndFixedMountMeasures() throws {
        let cradle = try eddy(["replay", flat])
        #expect(cradle.status == 0, "\(cradle.stderr)")
        #expect(cradle.stdout.contains("(none: device lies flat in a cradle mount"), "\(cradle.stdout)")
        #expect(cradle.stdout.contains("device_flat:"))

        let fixed = try eddy(["replay", flat, "--mount", "fixed"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout.contains("Mount    fixed"))
        #expect(!fixed.stdout.contains("device_flat"))
        #expect(!fixed.stdout.contains("(none: device lies flat"))

        let json = try eddy(["replay", flat, "--json"])
        let summary = try #require(json.lines.last)
        #expect(summary.contains("\"kind\":\"device_flat\"") && summary.contains("\"seconds_not_measured_by_reason\":{\"device_flat\":"), "\(summary)")
        let fixedJSON = try eddy(["replay", flat, "--json", "--mount", "fixed"])
        let fixedSummary = try #require(fixedJSON.lines.last)
        #expect(fixedSummary.contains("\"mount\":\"fixed\"") && !fixedSummary.contains("\"notices\""), "\(fixedSummary)")

        let bad = try eddy(["replay", flat, "--mount", "dashboard"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("cradle") && bad.stderr.contains("fixed"), "\(bad.stderr)")
    }

    /// The engine forwards each notice to the host as `didReceiveMeasurementNotice`.
    @Test func engineForwardsNotices() throws {
        let output = try eddy(["replay", flat, "--engine", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let notices = output.lines.filter { $0.contains("\"callback\":\"didReceiveMeasurementNotice\"") }
        #expect(notices.contains { $0.contains("\"phase\":\"began\"") && $0.contains("\"kind\":\"device_flat\"") }, "\(notices)")
        #expect(notices.contains { $0.contains("\"phase\":\"ended\"") && $0.contains("\"kind\":\"device_flat\"") })
        #expect(output.lines.last?.contains("\"didReceiveMeasurementNotice\":") == true)

        let fixed = try eddy(["replay", flat, "--engine", "--mount", "fixed"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(!fixed.stdout.contains("device lies flat"))
        #expect(fixed.stdout.contains("detectedTurbulence"), "\(fixed.stdout)")
    }
}
