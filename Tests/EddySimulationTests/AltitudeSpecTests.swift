import Testing
@testable import EddySimulation

@Suite("eddy simulate altitude options")
struct AltitudeSpecTests {
    @Test("profile time:altitude with gnd")
    func profile() throws {
        let parsed = try SimulationSpec.profile("0:gnd,2m:1500,25m:35000,60m:35000,90m:GND")
        #expect(parsed == [
            .onGround(timeSeconds: 0), AltitudeWaypoint(timeSeconds: 120, pressureAltitudeFeet: 1_500),
            AltitudeWaypoint(timeSeconds: 1_500, pressureAltitudeFeet: 35_000), AltitudeWaypoint(timeSeconds: 3_600, pressureAltitudeFeet: 35_000),
            .onGround(timeSeconds: 5_400),
        ])
    }

    @Test("bad profiles say what is wrong", arguments: [
        ("", "empty"), ("0:1500,10m", "is not time:altitude"), ("0:1500,10m:70000", "-1,000 to 60,000"),
        ("0:1500,10m:abc", "altitude \"abc\""), ("10m:1500,5m:3000", "is not after"), ("0:1500,0:3000", "is not after"),
        ("x:1500", "not a duration"),
    ])
    func badProfiles(text: String, mentions: String) {
        do {
            _ = try SimulationSpec.profile(text)
            Issue.record("\(text) accepted")
        } catch {   // the parser throws SimulationSpecError only (typed)
            #expect(error.option == "--profile")
            #expect(error.description.contains(mentions), "\(error)")
        }
    }

    @Test("a profile may not go below the field nor climb faster than 12,000 ft/min")
    func profileChecks() throws {
        let day = SimulatedAtmosphere(isaDeviationCelsius: 0, qnhHectopascals: 1013.25)
        try SimulationSpec.checkProfile(try SimulationSpec.profile("0:gnd,20m:30000"), fieldElevationFeet: 2_000, atmosphere: day)
        #expect(throws: SimulationSpecError.self) {
            try SimulationSpec.checkProfile(try SimulationSpec.profile("0:1000,20m:30000"), fieldElevationFeet: 2_000, atmosphere: day)
        }
        #expect(throws: SimulationSpecError.self) {
            try SimulationSpec.checkProfile(try SimulationSpec.profile("0:gnd,1m:20000"), fieldElevationFeet: nil, atmosphere: day)
        }
        // Without a field any altitude is allowed (no ground in the scenario).
        try SimulationSpec.checkProfile(try SimulationSpec.profile("0:-500,20m:1000"), fieldElevationFeet: nil, atmosphere: day)
    }

    @Test("numbers, GNSS profile, yes/no, barometer bias")
    func scalars() throws {
        #expect(try SimulationSpec.number("-15", option: "--isa-deviation", range: -40...40, unit: "°C") == -15)
        for bad in ["41", "nan", "x", ""] {
            #expect(throws: SimulationSpecError.self) { try SimulationSpec.number(bad, option: "--isa-deviation", range: -40...40, unit: "°C") }
        }
        #expect(try SimulationSpec.gnssProfile("Phone") == .phone)
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.gnssProfile("rtk") }
        #expect(try SimulationSpec.yesNo("yes", option: "--pressurized") && !(try SimulationSpec.yesNo("no", option: "--pressurized")))
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.yesNo("maybe", option: "--pressurized") }
        #expect(try SimulationSpec.barometerBias("random", seed: 3) == FlightScenario.randomBarometerBiasHectopascals(seed: 3))
        #expect(try SimulationSpec.barometerBias("-0.6", seed: 3) == -0.6)
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.barometerBias("12", seed: 3) }
    }
}
