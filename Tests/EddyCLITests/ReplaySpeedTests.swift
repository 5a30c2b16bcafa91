import EddyTesting
import Foundation
import Testing

/// `eddy replay FLIGHT --engine --speed FACTOR`: pacing against the wall clock (the soak's 10x real time).
@Suite("eddy replay --engine --speed", .serialized)
struct ReplaySpeedTests {
    let flight = Package.flight("sim-medium-mixed")

    @Test("--speed needs --engine and a positive finite factor", arguments: [
        (["--speed", "10"], "--speed needs --engine"),
        (["--engine", "--speed", "0"], "--speed must be a number above 0"),
        (["--engine", "--speed=-3"], "--speed must be a number above 0"),
        (["--engine", "--speed", "nan"], "--speed must be a number above 0"),
    ])
    func refused(arguments: [String], message: String) throws {
        let result = try eddy(["replay", flight] + arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("offline, a paced replay prints what an unpaced one prints and takes at least duration / speed")
    func pacedOfflineIsTheSame() throws {
        let plain = try eddy(["replay", flight, "--engine", "--json"])
        let speed = 400.0
        let started = Date()
        let paced = try eddy(["replay", flight, "--engine", "--json", "--speed", "\(Int(speed))"])
        let wall = Date().timeIntervalSince(started)
        #expect(paced.status == 0, "\(paced.stderr)")
        #expect(paced.stdout == plain.stdout)
        // The flight's samples span its summary's t_first…t_last; pacing cannot finish sooner than that / speed.
        let summary = try #require(jsonObjects(paced).last)
        let span = try #require(summary["t_last"] as? Double) - (summary["t_first"] as? Double ?? 0)
        #expect(span > 60)
        #expect(wall >= span / speed * 0.95, "\(wall) s for \(span) s of flight at \(speed)x")
    }
}
