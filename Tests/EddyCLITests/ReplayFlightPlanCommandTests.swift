import EddyTesting
import Foundation
import Testing

/// `eddy replay`'s flight-plan hints (issue 28 deliverable 2): `--cleared-levels`, `--planned-levels` and
/// `--isa-deviation` reach the flight-level inference, negative deviations parse as values, and bad ones are refused
/// naming the option and the form to give.
@Suite("eddy replay flight-plan hints") struct ReplayFlightPlanCommandTests {
    /// The JSBSim 737 fixture: a pressurised cabin, phone GNSS, no ADS-B, level at FL350 in ISA.
    let flight = Package.flight("jsbsim-737-mixed")

    /// The flight-level probabilities of the level fixes (`level_p` of `--track` lines).
    static func levelProbabilities(_ output: ProcessOutput) -> [Double] {
        jsonObjects(output).filter { $0["type"] as? String == "track" }.compactMap { $0["level_p"] as? Double }
    }

    @Test func theClearedLevelMakesTheChoiceSure() throws {
        let plain = try eddy(["replay", flight, "--json", "--track"])
        let cleared = try eddy(["replay", flight, "--json", "--track", "--cleared-levels", "350"])
        #expect(plain.status == 0 && cleared.status == 0, "\(cleared.stderr)")
        let (without, with) = (Self.levelProbabilities(plain), Self.levelProbabilities(cleared))
        #expect(!without.isEmpty && !with.isEmpty)
        // Without hints FL350 in ISA is a 1,000-ft call the climatology cannot make surely; cleared, it can.
        #expect((without.max() ?? 1) < 0.9, "\(without.max() ?? .nan)")
        #expect((with.min() ?? 0) >= 0.9, "\(with.min() ?? .nan)")
        let layers = Set(jsonObjects(cleared).filter { $0["type"] as? String == "track" && $0["level_p"] != nil }.compactMap { $0["layer"] as? Int })
        #expect(layers == [35], "\(layers)")
    }

    @Test func aNegativeISADeviationIsAValue() throws {
        // ISA −2 °C (1σ 1 °C) against the fixture's ISA: still accepted and used — the level fixes' probabilities move.
        let plain = try eddy(["replay", flight, "--json", "--track"])
        let cold = try eddy(["replay", flight, "--json", "--track", "--isa-deviation", "-2:1"])
        #expect(cold.status == 0, "\(cold.stderr)")
        #expect(Self.levelProbabilities(cold) != Self.levelProbabilities(plain))
        let equals = try eddy(["replay", flight, "--json", "--track", "--isa-deviation=-2:1"])
        #expect(Self.levelProbabilities(equals) == Self.levelProbabilities(cold))
    }

    @Test func badHintsAreRefusedSayingWhatToGive() throws {
        let hot = try eddy(["replay", flight, "--isa-deviation", "99"])
        #expect(hot.status != 0 && hot.stderr.contains("give CELSIUS (−60…60) or CELSIUS:SIGMA"), "\(hot.stderr)")
        let level = try eddy(["replay", flight, "--cleared-levels", "0:350,-5:370"])
        #expect(level.status != 0 && level.stderr.contains("in time order"), "\(level.stderr)")
        let planned = try eddy(["replay", flight, "--planned-levels", "350,FL9999"])
        #expect(planned.status != 0 && planned.stderr.contains("not a flight level 0…600"), "\(planned.stderr)")
    }
}
