import EddyVocabulary
import Foundation
import Testing
@testable import EddySimulation

/// The simulator's manoeuvres (docs/simulation.md "Manoeuvres"): load factors, speeds, truth, option parsing.
@Suite struct ManoeuvreSimulationTests {
    static func flight(_ aircraftClass: AircraftClass = .small, seconds: Double, speed: Double? = nil,
                       _ manoeuvres: [Manoeuvre]) -> SimulatedFlight {
        FlightSimulator.simulate(FlightScenario(
            aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: 0, durationSeconds: seconds)],
            groundSpeedMetersPerSecond: speed, seed: 3, manoeuvres: manoeuvres))
    }

    /// |specific force| (the load factor in a coordinated manoeuvre) averaged over [from, to), g.
    static func meanMagnitude(_ f: SimulatedFlight, _ from: Double, _ to: Double) -> Double {
        let inside = f.samples.accelerometer.filter { $0.t >= from && $0.t < to }
        return inside.reduce(0) { $0 + ($1.x * $1.x + $1.y * $1.y + $1.z * $1.z).squareRoot() } / Double(max(1, inside.count))
    }

    @Test func steepTurnHoldsOneOverCosBankAndTurnsThrough360() {
        let f = Self.flight(seconds: 120, [Manoeuvre(kind: .steepTurn, start: 10, value: 60)])
        let interval = f.truth.manoeuvres[0]
        #expect(interval.kind == .steepTurn && interval.start == 10)
        // Roll-in 4 s at 15°/s, then n = 1/cos 60° = 2 g.
        #expect(abs(Self.meanMagnitude(f, 16, interval.end - 6) - 2) < 0.01)
        #expect(abs(Self.meanMagnitude(f, 0, 9) - 1) < 0.01)
        // The track turns through ≈ 360° (course back near the start, having passed the opposite heading).
        let courses = f.samples.location.filter { $0.t >= 10 && $0.t <= interval.end + 1 }.compactMap(\.courseDegrees)
        let opposite = courses.contains { abs($0 - 270) < 20 }
        #expect(opposite)
        if let last = courses.last { #expect(min(abs(last - 90), 360 - abs(last - 90)) < 25, "course \(last)") }
    }

    @Test func parabolaIsTwentySecondsNearZeroG() {
        let f = Self.flight(.large, seconds: 100, speed: 220, [Manoeuvre(kind: .parabola, start: 10, value: 1.8)])
        #expect(abs(Self.meanMagnitude(f, 10 + 6, 10 + 19) - 1.8) < 0.01)
        #expect(Self.meanMagnitude(f, 10 + 26, 10 + 46) < 0.01)
        #expect(abs(Self.meanMagnitude(f, 10 + 56, 10 + 64) - 1.8) < 0.01)
        #expect(abs(Self.meanMagnitude(f, 85, 100) - 1) < 0.01)
    }

    @Test func pullUpReachesItsLoadAndLevelsOff() {
        let f = Self.flight(seconds: 40, [Manoeuvre(kind: .pullUp, start: 10, value: 2)])
        let peak = f.samples.accelerometer.map { ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot() }.max() ?? 0
        #expect(abs(peak - 2) < 0.02)
        // ∫(n − 1) dt = 0 over the manoeuvre: the path is level again.
        #expect(abs(Self.meanMagnitude(f, 10, 22) - 1) < 0.01)
    }

    @Test func stallBuffetIsNarrowBandAtItsFrequency() {
        let f = Self.flight(seconds: 30, [Manoeuvre(kind: .stall, start: 10, value: 5)])
        // Buffet 30–50 % of 14 s; measure the vertical specific force's power at 5 Hz vs 3 Hz and 7 Hz (Goertzel-like DFT).
        // 14.2–16.2 s: inside the buffet, before the break; whole cycles of 3, 5 and 7 Hz, mean removed.
        let magnitudes = f.samples.accelerometer.filter { $0.t >= 14.2 && $0.t < 16.2 - 1e-9 }
            .map { (t: $0.t, m: ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot()) }
        let mean = magnitudes.reduce(0) { $0 + $1.m } / Double(magnitudes.count)
        func power(_ hz: Double) -> Double {
            var re = 0.0, im = 0.0
            for s in magnitudes {
                re += (s.m - mean) * cos(2 * .pi * hz * s.t); im += (s.m - mean) * sin(2 * .pi * hz * s.t)
            }
            return re * re + im * im
        }
        #expect(power(5) > 20 * power(3) && power(5) > 20 * power(7), "\(power(3)) \(power(5)) \(power(7))")
        // The break (n ≈ 0.5) and the recovery pull (≈ 1.8 g) follow.
        let after = f.samples.accelerometer.filter { $0.t >= 16 && $0.t < 22 }.map { ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot() }
        #expect((after.min() ?? 1) < 0.56 && (after.max() ?? 1) > 1.75)
    }

    @Test func groundRollsSetTheSpeedAndBump() {
        let takeoff = Self.flight(.medium, seconds: 80, [Manoeuvre(kind: .takeoffRoll, start: 10, value: 256)])
        let speeds = takeoff.samples.location.map { $0.speedMetersPerSecond ?? -1 }
        #expect(speeds[5] == 0)                          // lined up
        #expect(abs(speeds[10 + 20] - 40) < 0.01)        // 75 m/s over 37.5 s: 2 m/s²
        #expect(speeds[79] > 75)                          // airborne, accelerating
        #expect(takeoff.samples.truth[20].onGround && !takeoff.samples.truth[60].onGround)
        // Runway bumps: the vertical specific force varies by centi-g on the roll, not while lined up.
        func rms(_ f: SimulatedFlight, _ from: Double, _ to: Double) -> Double {
            let m = f.samples.accelerometer.filter { $0.t >= from && $0.t < to }.map { ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot() }
            let mean = m.reduce(0, +) / Double(m.count)
            return (m.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(m.count)).squareRoot()
        }
        let rolling = rms(takeoff, 30, 45)
        #expect(rolling > 0.02 && rolling < 0.3, "\(rolling)")
        #expect(rms(takeoff, 0, 9) < 0.005)
        let landing = Self.flight(.small, seconds: 60, [Manoeuvre(kind: .landingRoll, start: 10)])
        let landingSpeeds = landing.samples.location.map { $0.speedMetersPerSecond ?? -1 }
        #expect(abs(landingSpeeds[5] - 31) < 0.01 && abs(landingSpeeds[50] - 8) < 0.01)
        #expect(landing.truth.manoeuvres == [ManoeuvreInterval(kind: .landingRoll, start: 10, end: 21.5)])
        let taxi = Self.flight(.small, seconds: 60, [Manoeuvre(kind: .taxi, start: 0, durationSeconds: 60)])
        #expect(taxi.samples.location.allSatisfy { $0.speedMetersPerSecond == 8 })
        #expect(rms(taxi, 5, 55) > 0.01)
    }

    @Test func aerotowPullsForwardWithSurges() {
        let f = Self.flight(seconds: 200, speed: 33, [Manoeuvre(kind: .aerotow, start: 0, value: 0.08)])
        // Along the device's calibrated axes the tow force is a rotated x component: |f| = √(1 + fx²).
        let m = Self.meanMagnitude(f, 20, 170)
        #expect(abs(m - (1 + 0.15 * 0.15 + 0.08 * 0.08).squareRoot()) < 0.005, "\(m)")
    }

    @Test func withoutManoeuvresNothingChanges() {
        let plain = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.2, durationSeconds: 30)], seed: 8)
        var empty = plain
        empty.manoeuvres = []
        let a = FlightSimulator.simulate(plain), b = FlightSimulator.simulate(empty)
        #expect(a.samples.accelerometer == b.samples.accelerometer && a.truth.manoeuvres.isEmpty)
        let again = Self.flight(seconds: 60, [Manoeuvre(kind: .stall, start: 10)])
        #expect(again.samples.accelerometer == Self.flight(seconds: 60, [Manoeuvre(kind: .stall, start: 10)]).samples.accelerometer)
    }

    @Test func optionParsing() throws {
        let parsed = try SimulationSpec.manoeuvres(["steep-turn@600:60", "parabola@5m,taxi@0::3m", "stall@400:4:20s"])
        #expect(parsed == [
            Manoeuvre(kind: .taxi, start: 0, durationSeconds: 180),
            Manoeuvre(kind: .parabola, start: 300),
            Manoeuvre(kind: .stall, start: 400, durationSeconds: 20, value: 4),
            Manoeuvre(kind: .steepTurn, start: 600, value: 60),
        ])
        for (text, mentions) in [
            ("loop@10", "is not a manoeuvre"), ("steep-turn", "kind@start"), ("steep-turn@10:90", "bank"),
            ("pull-up@10:5", "from 1.1 to 3.8 g"), ("taxi@0::0", "more than 0"), ("stall@x", "not a duration"),
        ] {
            do {
                _ = try SimulationSpec.manoeuvres([text])
                Issue.record("\(text) accepted")
            } catch {   // SimulationSpecError only (typed)
                #expect(error.option == "--manoeuvre" && error.description.contains(mentions), "\(error)")
            }
        }
    }
}
