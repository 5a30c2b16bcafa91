import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

/// Manoeuvres are not turbulence (issue 12 deliverable 5): simulated manoeuvre flights in smooth air give no
/// light-or-worse minute or tile; the gate does not touch real turbulence. docs/detection.md §5 "Manoeuvres".
@Suite struct ManoeuvreTests {
    /// One campaign flight: the manoeuvre, its class and what the device had.
    struct Flight: CustomStringConvertible {
        var scenario: FlightScenario
        var withLocation: Bool
        var description: String {
            let m = scenario.manoeuvres.map { "\($0.kind.rawValue)@\(Int($0.start)):\($0.value.map { String(format: "%.2f", $0) } ?? "-")" }
            return "seed \(scenario.seed) \(scenario.aircraftClass.rawValue) \(m.joined(separator: ",")) gyro=\(scenario.includeGyroscope) gps=\(withLocation) mount=\(scenario.flat ? "fixed" : "cradle")"
        }
    }

    /// Flight `index` of the campaign: manoeuvres in turn, each flown by the classes that fly it, short flights around
    /// it (2 min of calibration and smooth air before, 2.5 min after); gyro, GPS and mount drawn from the seed.
    static func flight(_ index: Int) -> Flight {
        let seed = UInt64(9_000 + index)
        var rng = Xoshiro256StarStar(seed: seed)
        let kinds: [ManoeuvreKind] = [.steepTurn, .stall, .aerotow, .pullUp, .parabola, .takeoffRoll, .landingRoll, .taxi]
        let kind = kinds[index % kinds.count]
        var aircraftClass = AircraftClass.small
        var speed: Double?
        var altitude: Double?
        var value: Double?
        var manoeuvres: [Manoeuvre] = []
        let start = 120.0
        switch kind {
        case .steepTurn:
            value = 45 + 15 * rng.nextUniform()
            // Sometimes a 720°: two turns back to back.
            manoeuvres.append(Manoeuvre(kind: .steepTurn, start: start, value: value))
            if rng.nextUniform() < 0.3 { manoeuvres.append(Manoeuvre(kind: .steepTurn, start: start + 45, value: value)) }
        case .stall:
            value = 3 + 5 * rng.nextUniform()   // buffet 3–8 Hz, some inside the light-aircraft band
            if rng.nextUniform() < 0.5 { speed = 30 }   // a glider
            manoeuvres.append(Manoeuvre(kind: .stall, start: start, value: value))
        case .aerotow:
            speed = 33   // a glider behind a tug at ≈ 65 kt
            value = 0.03 + 0.07 * rng.nextUniform()
            manoeuvres.append(Manoeuvre(kind: .aerotow, start: start, value: value))
        case .pullUp:
            if rng.nextUniform() < 0.5 {
                value = 1.6 + 0.6 * rng.nextUniform()
            } else {
                aircraftClass = rng.nextUniform() < 0.5 ? .medium : .large
                value = 1.2 + 0.3 * rng.nextUniform()   // within transport practice (limit 2.5 g)
            }
            manoeuvres.append(Manoeuvre(kind: .pullUp, start: start, value: value))
        case .parabola:
            aircraftClass = .large   // an A310 Zero-G at FL200–FL250, ≈ 220 m/s
            speed = 220; altitude = 22_000
            value = 1.8
            manoeuvres.append(Manoeuvre(kind: .parabola, start: start, value: value))
            if rng.nextUniform() < 0.5 { manoeuvres.append(Manoeuvre(kind: .parabola, start: start + 130, value: value)) }
        case .takeoffRoll, .landingRoll, .taxi:
            aircraftClass = [AircraftClass.small, .medium, .large][Int(rng.nextUniform() * 3) % 3]
            value = 64 + 192 * rng.nextUniform()   // ISO 8608 class B to C: a rough runway
            manoeuvres.append(Manoeuvre(kind: kind, start: kind == .landingRoll ? start : 30, value: value))
            if kind == .taxi { manoeuvres[0].durationSeconds = 150 }
        }
        let ground = kind.isGround
        // Independent draws: a third without gyro, a third without GPS, 40 % rigid loggers lying flat (fixed mount: never
        // out of position). Ground flights draw their GPS from a stream of their own, so the airborne flights are the
        // ones flown before ground rolls without GPS joined the campaign (docs/detection.md §5).
        let withGyro = rng.nextUniform() >= 1.0 / 3
        var groundDraw = Xoshiro256StarStar(seed: seed ^ 0x6A0_0D5E_ED)
        let withLocation = ground ? groundDraw.nextUniform() >= 1.0 / 3 : rng.nextUniform() >= 1.0 / 3
        let fixed = rng.nextUniform() < 0.4
        var scenario = FlightScenario(
            aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: 0, durationSeconds: 1)],
            includeGyroscope: withGyro, flat: fixed, altitudeFeet: altitude, groundSpeedMetersPerSecond: speed, seed: seed,
            manoeuvres: manoeuvres)
        let end = FlightSimulator.truth(for: scenario).manoeuvres.map(\.end).max() ?? start
        scenario.segments = [TurbulenceSegment(edr: 0, durationSeconds: (end + 150).rounded(.up))]
        return Flight(scenario: scenario, withLocation: withLocation)
    }

    /// Runs a campaign flight; returns its minutes and tiles that are light or worse, and the events. `gate` false
    /// switches the manoeuvre gate and the ground-roll rules (with the ground-vibration cue) off (for comparison only).
    static func run(_ flight: Flight, gate: Bool = true) -> (bad: [String], events: [DetectionEvent]) {
        var configuration = DetectionConfiguration(aircraftClass: flight.scenario.aircraftClass)
        configuration.tileIndexer = gridIndexer
        if flight.scenario.flat { configuration.mount = .fixed }
        if !gate {
            configuration.manoeuvreGate = false
            configuration.rotationSpeedKnots = configuration.groundSpeedGateKnots
            configuration.brakingMetersPerSecondSquared = .infinity
            configuration.groundVibrationLowShare = 0
        }
        // `EDDY_GROUND_VIBRATION=0`: the ground-vibration cue alone off (for comparison).
        if ProcessInfo.processInfo.environment["EDDY_GROUND_VIBRATION"] == "0" { configuration.groundVibrationLowShare = 0 }
        let events = detect(flight.scenario, configuration: configuration, transform: flight.withLocation ? nil : { samples in
            samples.removeAll { if case .location = $0 { true } else { false } }
        })
        var bad: [String] = []
        for m in events.minutes where m.severity >= .light {
            bad.append("minute \(m.t): \(m.severity.name) median " + String(format: "%.3f", m.edrMedian))
        }
        for r in events.tiles where SeverityScale.severity(edr: r.edrMedian, viewer: flight.scenario.aircraftClass) >= .light {
            bad.append(String(format: "tile %.0f–%.0f: median %.3f", r.enterTime, r.exitTime, r.edrMedian))
        }
        return (bad, events)
    }

    /// The campaign's size: `EDDY_MANOEUVRE_FLIGHTS` (`make campaign-manoeuvres` runs 1,000), else the acceptance's 100
    /// (≈ 45 s in a debug build on the 2-core machine).
    static var campaignSize: Int {
        ProcessInfo.processInfo.environment["EDDY_MANOEUVRE_FLIGHTS"].flatMap(Int.init).map { max(1, min(10_000, $0)) } ?? 100
    }

    @Test func campaignInSmoothAir() {
        // `EDDY_MANOEUVRE_WITHOUT_GATE=1`: the same campaign with the gate off, counted and printed, not checked.
        let gate = ProcessInfo.processInfo.environment["EDDY_MANOEUVRE_WITHOUT_GATE"] != "1"
        var badFlights = 0, minutes = 0, tiles = 0, badMinutes = 0, badTiles = 0
        var highest: [ManoeuvreKind: Double] = [:]
        for index in 0..<Self.campaignSize {
            let flight = Self.flight(index)
            let (bad, events) = Self.run(flight, gate: gate)
            minutes += events.minutes.count
            tiles += events.tiles.count
            badMinutes += bad.filter { $0.hasPrefix("minute") }.count
            badTiles += bad.filter { $0.hasPrefix("tile") }.count
            if !bad.isEmpty { badFlights += 1 }
            // The highest minute or tile median relative to the class's light threshold, per manoeuvre.
            let light = SeverityScale.mediumClassThresholds[0] * SeverityScale.thresholdFactor(for: flight.scenario.aircraftClass)
            let top = (events.minutes.map(\.edrMedian) + events.tiles.map(\.edrMedian)).max() ?? 0
            let kind = flight.scenario.manoeuvres[0].kind
            highest[kind] = max(highest[kind] ?? 0, top / light)
            if gate { #expect(bad.isEmpty, "\(flight): \(bad.joined(separator: "; "))") }
        }
        print("manoeuvre campaign\(gate ? "" : " WITHOUT the gate"): flights \(Self.campaignSize), minutes \(minutes), tiles \(tiles), "
              + "light-or-worse minutes \(badMinutes), tiles \(badTiles), flights with any \(badFlights)")
        print("highest median / light threshold: " + highest.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.rawValue) " + String(format: "%.3f", $0.value) }.joined(separator: ", "))
        // The campaign must measure something (else "0 light" would say nothing).
        #expect(minutes >= Self.campaignSize)
    }

    /// Without the gate the same manoeuvres do read as turbulence: the campaign can fail.
    /// (A rigid logger without gyro: no other gate hides them.)
    @Test(arguments: [0, 1, 3, 4, 5, 6])
    func withoutTheGateManoeuvresReadAsTurbulence(index: Int) {
        var flight = Self.flight(index)
        flight.withLocation = flight.scenario.manoeuvres[0].kind.isGround   // else the GNSS track-rate gate catches turns
        flight.scenario.flat = true
        flight.scenario.includeGyroscope = false
        var configuration = DetectionConfiguration(aircraftClass: flight.scenario.aircraftClass)
        configuration.tileIndexer = gridIndexer
        configuration.mount = .fixed
        configuration.manoeuvreGate = false
        configuration.rotationSpeedKnots = configuration.groundSpeedGateKnots
        configuration.brakingMetersPerSecondSquared = .infinity
        let events = detect(flight.scenario, configuration: configuration, transform: flight.withLocation ? nil : { samples in
            samples.removeAll { if case .location = $0 { true } else { false } }
        })
        let peak = (events.minutes.map(\.edrPeak) + events.tiles.map(\.edrPeak)).max() ?? 0
        let light = SeverityScale.mediumClassThresholds[0] * SeverityScale.thresholdFactor(for: flight.scenario.aircraftClass)
        #expect(peak >= light, "\(flight): peak \(peak) without the gate")
    }

    /// Sustained turning without gyro and without GPS: the load factor alone gates it, with a notice; a shallow turn
    /// (18°, n − 1 = 0.051 g, under the 0.06 g threshold) is not gated and still reads `none`.
    @Test(arguments: [(AircraftClass.small, 45.0), (.medium, 30), (.medium, 18), (.small, 18)])
    func turningWithoutGyroOrGPS(aircraftClass: AircraftClass, bank: Double) {
        let scenario = FlightScenario(
            aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: 0, durationSeconds: 900)], includeGyroscope: false,
            turns: [CoordinatedTurn(start: 120, durationSeconds: 240, bankDegrees: bank), CoordinatedTurn(start: 480, durationSeconds: 240, bankDegrees: -bank)],
            seed: 31)
        let events = detect(scenario, transform: { samples in samples.removeAll { if case .location = $0 { true } else { false } } })
        #expect(events.minutes.count >= 4)
        #expect(events.minutes.allSatisfy { $0.severity == .none }, "\(events.minutes.map(\.edrMedian))")
        let notices = events.compactMap { if case .notice(let n) = $0, case .manoeuvre = n.kind { n } else { nil } }
        guard 1 / cos(bank * .pi / 180) - 1 > 0.06 else {
            #expect(notices.isEmpty)
            return
        }
        #expect(notices.contains { $0.phase == .began && $0.start >= 120 && $0.start < 130 }, "\(notices)")
        // The notice carries the load factor reached while the change was gated: beyond the 0.06 g threshold, not
        // beyond 1/cos φ.
        let held = 1 / cos(bank * .pi / 180)
        if case .manoeuvre(let n) = notices.last?.kind { #expect(n > 1.06 && n < held + 0.02, "load factor \(n)") }
    }

    /// A log that starts inside a steep turn (or on a bumpy taxiway) does not make the gate stick: after it, minutes are
    /// measured again, none light.
    @Test(arguments: [ManoeuvreKind.steepTurn, .taxi])
    func gateReleasesAfterStartingInATurn(kind: ManoeuvreKind) {
        let scenario = FlightScenario(
            aircraftClass: .small, segments: [TurbulenceSegment(edr: 0, durationSeconds: 420)], includeGyroscope: false, seed: 12,
            manoeuvres: [Manoeuvre(kind: kind, start: 0, durationSeconds: 60, value: kind == .steepTurn ? 60 : 256)])
        let events = detect(scenario, transform: { samples in samples.removeAll { if case .location = $0 { true } else { false } } })
        let after = events.minutes.filter { $0.t >= 180 }
        #expect(after.count >= 3, "\(events.minutes)")
        #expect(after.allSatisfy { $0.severity == .none && $0.validSeconds >= 55 })
    }

    /// Turbulence that starts abruptly (smooth → severe) or at the first sample is measured from its start: the gate
    /// learns turbulence's level from the upper band all the time, so nothing can stick.
    @Test(arguments: [AircraftClass.small, .medium, .large])
    func abruptTurbulenceIsNotAManoeuvre(aircraftClass: AircraftClass) {
        for segments in [[TurbulenceSegment(edr: 0, durationSeconds: 180), TurbulenceSegment(edr: 0.6, durationSeconds: 300)],
                         [TurbulenceSegment(edr: 0.45, durationSeconds: 300)]] {
            let scenario = FlightScenario(aircraftClass: aircraftClass, segments: segments, includeGyroscope: false, seed: 44)
            let events = detect(scenario, transform: { samples in samples.removeAll { if case .location = $0 { true } else { false } } })
            let notices = events.compactMap { if case .notice(let n) = $0, case .manoeuvre = n.kind { n } else { nil } }
            #expect(notices.isEmpty, "\(aircraftClass) \(segments.map(\.edr)): \(notices)")
            let start = segments.count == 2 ? 180.0 : 0
            #expect(minutes(events.minutes, inside: start, start + 300).count >= 3)
        }
    }

    /// A take-off roll between 50 kt and rotation speed is on the ground: gated, and said (`ground_roll`).
    @Test func takeoffRollIsGroundUntilRotation() {
        let scenario = FlightScenario(
            aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0, durationSeconds: 300)], seed: 5,
            manoeuvres: [Manoeuvre(kind: .takeoffRoll, start: 20, value: 256)])
        let events = detect(scenario)
        let notices = events.compactMap { if case .notice(let n) = $0, case .groundRoll = n.kind { n } else { nil } }
        let ended = notices.first { $0.phase == .ended }
        // 50 kt is reached 12.9 s into the roll, rotation (145 kt) at 37.5 s.
        #expect(ended != nil)
        if let ended { #expect(abs(ended.start - (20 + 12.9)) <= 2 && abs((ended.end ?? 0) - (20 + 37.5)) <= 2, "\(ended)") }
    }

    /// The gate leaves turbulence alone: the accuracy scenario's segment medians with and without it agree within 2 %
    /// (acceptance: ±10 %), at every EDR, for both classes.
    @Test(arguments: [AircraftClass.small, .medium, .large])
    func turbulenceUnchanged(aircraftClass: AircraftClass) {
        let scenario = AccuracyTests.scenario(aircraftClass, seed: aircraftClass == .medium ? 101 : aircraftClass == .small ? 202 : 303)
        var off = DetectionConfiguration(aircraftClass: aircraftClass)
        off.manoeuvreGate = false
        let withEvents = detect(scenario)
        let with = withEvents.minutes
        let without = detect(scenario, configuration: off).minutes
        let gated = withEvents.compactMap { if case .notice(let n) = $0, n.phase == .ended, case .manoeuvre = n.kind { n } else { nil } }
        print("turbulence \(aircraftClass.rawValue): manoeuvre episodes \(gated.count), seconds \(gated.reduce(0) { $0 + $1.count }), "
              + "at \(gated.map { Int($0.start) })")
        for interval in FlightSimulator.truth(for: scenario).turbulence where (interval.edr ?? 0) > 0 {
            var a = minutes(with, inside: interval.start, interval.end).map(\.edrMedian)
            var b = minutes(without, inside: interval.start, interval.end).map(\.edrMedian)
            #expect(a.count >= 9 && b.count >= 9)
            guard !a.isEmpty, !b.isEmpty else { continue }
            let ma = Statistics.median(&a), mb = Statistics.median(&b)
            print("turbulence \(aircraftClass.rawValue) " + String(format: "EDR %.2f: median with gate %.4f, without %.4f (%+.2f %%), minutes %d / %d",
                         interval.edr ?? 0, ma, mb, (ma / mb - 1) * 100, a.count, b.count))
            #expect(abs(ma / mb - 1) <= 0.02, "EDR \(interval.edr ?? 0): \(ma) with the gate, \(mb) without")
        }
    }

    /// The tow-surge test runs for gliders and small aircraft of unknown type, never for a known powered type (the
    /// JSBSim DHC-6's severe segment) nor for the larger classes.
    @Test(arguments: [
        (AircraftClass.small, "AS21", true), (.small, "ls8", true), (.small, nil, true), (.small, "ZZZZ", true),
        (.small, "C172", false), (.small, "DHC6", false), (.medium, nil, false), (.large, "B744", false),
    ] as [(AircraftClass, String?, Bool)])
    func surgeTestOnlyWhereTowsHappen(aircraftClass: AircraftClass, designator: String?, surgeTest: Bool) {
        let configuration = DetectionConfiguration(aircraftClass: aircraftClass, typeDesignator: designator)
        #expect(configuration.manoeuvreSurgeCorrelation.isFinite == surgeTest)
    }
}
