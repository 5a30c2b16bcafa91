import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

@Suite struct CalibrationTests {
    /// Handling at 200–215 s: in_position false within 2 s of the start, true again within 15 s of the end,
    /// with and without a gyroscope; then no minute or tile measurement overlaps the handling or its settle time.
    @Test(arguments: [true, false])
    func handlingTimeline(gyroscope: Bool) {
        let scenario = FlightScenario(
            aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.15, durationSeconds: 600)],
            includeGyroscope: gyroscope, handling: [HandlingInterval(start: 200, end: 215)], seed: 31)
        var config = DetectionConfiguration(aircraftClass: .medium)
        config.tileIndexer = gridIndexer
        let events = detect(scenario, configuration: config)
        let positions = events.positions
        #expect(positions.first == PositionEvent(t: 0, inPosition: false, horizontal: false, inNoise: false))
        let calibrated = positions.first { $0.inPosition }
        #expect(calibrated != nil && calibrated!.t <= 12 && !calibrated!.horizontal)
        let lost = positions.first { !$0.inPosition && $0.t > 100 }
        #expect(lost != nil && lost!.t >= 200 && lost!.t <= 202, "lost at \(String(describing: lost?.t))")
        let back = positions.first { $0.inPosition && $0.t > 200 }
        #expect(back != nil && back!.t > 215 && back!.t <= 230, "back at \(String(describing: back?.t))")
        // Nothing measured from the handling start to 15 s (back in position) + 30 s (settle) after its end.
        let quietStart = 200.0, quietEnd = 215.0 + 15 + 30
        for m in events.minutes { #expect(m.t <= quietStart || m.t - 70 >= quietEnd, "minute ending \(m.t)") }
        for tile in events.tiles { #expect(tile.exitTime <= quietStart || tile.enterTime >= quietEnd, "tile \(tile.enterTime)–\(tile.exitTime)") }
        // But the rest of the flight is measured.
        #expect(events.minutes.count >= 6)
        #expect(events.tiles.count >= 8)
    }

    /// A device lying flat is horizontal and measures nothing.
    @Test func flatDeviceMeasuresNothing() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 300)], flat: true, seed: 5)
        var config = DetectionConfiguration(aircraftClass: .small)
        config.tileIndexer = gridIndexer
        let events = detect(scenario, configuration: config)
        #expect(events.positions.contains { $0.inPosition && $0.horizontal })
        #expect(events.minutes.isEmpty)
        #expect(events.tiles.isEmpty)
    }

    /// Calibrator alone: steady input calibrates after 10 s; a 40° tilt held is detected as a move and re-calibrated.
    @Test func tiltIsAMoveAndRecalibrates() {
        let config = DetectionConfiguration(aircraftClass: .medium)
        var calibrator = MountCalibrator(tickSeconds: 0.04, configuration: config)
        func tick(_ v: SIMD3<Double>) -> Bool {
            calibrator.update(CalibrationTick(meanAcceleration: v, hasAccelerometer: true, gyroMeanSquare: 0, gyroPeakSquare: 0, withinTickVariance: 0))
        }
        let a = SIMD3<Double>(0, -0.8, -0.6)
        var changedAt: [Int] = []
        for i in 0..<400 { if tick(a) { changedAt.append(i) } }
        #expect(changedAt.count == 1 && calibrator.inPosition && changedAt[0] >= 240 && changedAt[0] <= 260)
        // Slowly tilt by 40° over 8 s (no gyro, small transverse acceleration), then hold.
        let axis = SIMD3<Double>(1, 0, 0)
        var lostAt: Int?, backAt: Int?
        for i in 0..<1_000 {
            let angle = min(1, Double(i) / 200) * 40 * Double.pi / 180
            let v = Rotation3(axis: axis, angleRadians: angle).apply(a)
            if tick(v) {
                if !calibrator.inPosition, lostAt == nil { lostAt = i }
                if calibrator.inPosition, backAt == nil { backAt = i }
            }
        }
        #expect(lostAt != nil && lostAt! < 200, "lost at tick \(String(describing: lostAt))")
        // Back in position within 15 s (375 ticks) of the end of the tilt (the handling acceptance bound).
        #expect(backAt != nil && backAt! > 200 && backAt! < 200 + 375, "back at tick \(String(describing: backAt))")
        let expected = Rotation3(axis: axis, angleRadians: 40 * Double.pi / 180).apply(a)
        #expect(((calibrator.mountDirection * expected).sum()) > cos(Double.pi / 180))
    }

    /// Strong vibration across the vertical sets in_noise (and stops measurement); it clears when it stops.
    @Test func vibrationIsNoise() {
        var calibrator = MountCalibrator(tickSeconds: 0.04, configuration: DetectionConfiguration(aircraftClass: .small))
        func tick(_ variance: Double) { _ = calibrator.update(CalibrationTick(meanAcceleration: [0, 0, 1], hasAccelerometer: true, gyroMeanSquare: nil, gyroPeakSquare: 0, withinTickVariance: variance)) }
        for _ in 0..<300 { tick(1e-6) }
        #expect(calibrator.inPosition && !calibrator.inNoise && calibrator.horizontal)
        for _ in 0..<100 { tick(0.01) }
        #expect(calibrator.inNoise)
        for _ in 0..<200 { tick(1e-6) }
        #expect(!calibrator.inNoise)
    }
}

@Suite struct GatingTests {
    /// Ground speed below 50 kt: nothing is measured even in strong turbulence.
    @Test func onGround() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.4, durationSeconds: 300)], groundSpeedMetersPerSecond: 20, seed: 3)
        #expect(detect(scenario).minutes.isEmpty)
        var airborne = scenario
        airborne.groundSpeedMetersPerSecond = 30
        #expect(detect(airborne).minutes.count >= 3)
    }

    /// Hard turns (small aircraft, 30° bank: 5.9°/s) are gated, and roll-in / roll-out never read as turbulence.
    @Test(arguments: [AircraftClass.small, .medium])
    func turnsAreGatedAndSmooth(aircraftClass: AircraftClass) {
        let scenario = FlightScenario(
            aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: 0, durationSeconds: 900)],
            turns: [CoordinatedTurn(start: 150, durationSeconds: 120, bankDegrees: 30), CoordinatedTurn(start: 500, durationSeconds: 200, bankDegrees: -25)],
            seed: 8)
        let minutes = detect(scenario).minutes
        // 15 minutes flown; the first (calibration) and those in the turns plus 20 s settle are not measured.
        #expect(minutes.count >= (aircraftClass == .small ? 6 : 10))
        for m in minutes { #expect(m.severity == .none && m.edrPeak < 0.05, "minute \(m.t): peak \(m.edrPeak)") }
        if aircraftClass == .small {
            // The minute fully inside the first turn (180–240 s) has no valid second.
            #expect(!minutes.contains { $0.t == 240 })
        }
    }

    /// Without gyroscope the GNSS track rate gates the hard turn.
    @Test func turnGatedByTrackRate() {
        let scenario = FlightScenario(
            aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.1, durationSeconds: 400)], includeGyroscope: false,
            turns: [CoordinatedTurn(start: 100, durationSeconds: 200, bankDegrees: 30)], seed: 8)
        let minutes = detect(scenario).minutes
        #expect(!minutes.contains { $0.t > 120 && $0.t <= 300 })
        #expect(minutes.contains { $0.t == 120 } || minutes.contains { $0.t >= 360 })
    }
}

@Suite struct RobustnessTests {
    /// Non-finite values and absurd times from a host are ignored; a long data gap is bridged and measurement resumes.
    @Test func badSamplesAndGaps() {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 600)], seed: 19)
        var injected = 0
        let events = detect(scenario) { samples in
            guard let first = samples.first, first.t == 300 else { return }
            samples.insert(.accelerometer(AccelerometerSample(t: 300, x: .nan, y: 0, z: 1)), at: 0)
            samples.insert(.gyroscope(GyroscopeSample(t: 300, x: .infinity, y: 0, z: 0)), at: 0)
            samples.insert(.accelerometer(AccelerometerSample(t: 1e300, x: 0, y: 0, z: 1)), at: 0)
            injected += 3
        }
        #expect(injected == 3)
        let clean = detect(scenario)
        #expect(events.minutes == clean.minutes)

        // Drop 200–330 s of data (a 130 s gap): nothing is reported across it, measurement resumes after.
        let gapped = detect(scenario) { samples in samples.removeAll { $0.t >= 200 && $0.t < 330 } }
        #expect(!gapped.minutes.contains { $0.t > 200 && $0.t - 60 < 330 })
        #expect(gapped.minutes.contains { $0.t >= 420 })
        #expect(gapped.minutes.contains { $0.t <= 200 })
    }
}

@Suite struct SixDegreeOfFreedomTurbulenceTests {
    /// Severe turbulence as a 6-DOF aircraft feels it (JSBSim 737 / C172 at POE 6: up to 0.15 g across the vertical,
    /// body rates up to 0.19 rad/s oscillating at 0.2–1 Hz) is neither handling nor a hard turn: it is measured.
    /// Without gyro too, where the tilt-trend test acts (docs/detection.md §2): only the accelerometer tests (transverse
    /// load, tilt, tilt trend) can act then. (The small class at EDR 0.5 with these loads is taken out of position five
    /// times by the existing tests, trend or not; EDR 0.3 is severe for it.)
    @Test(arguments: [(AircraftClass.medium, true, 0.5), (.medium, false, 0.5), (.small, false, 0.3)])
    func severeLateralMotionIsMeasured(aircraftClass: AircraftClass, gyro: Bool, edr: Double) {
        // Known mount, so the extra loads and rates can be put on the aircraft's longitudinal / lateral axes
        // (device-frame axes of the aircraft are the rows of the mount rotation).
        let mount = Rotation3(axis: [1, 0.4, 0.2], angleRadians: 1.0)
        let scenario = FlightScenario(aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: edr, durationSeconds: 420)],
                                      includeGyroscope: gyro, seed: 55, mountRotation: mount)
        var rng = Xoshiro256StarStar(seed: 99)
        let configuration = DetectionConfiguration(aircraftClass: aircraftClass)
        let plain = detect(scenario, configuration: configuration)
        let shaken = detect(scenario, configuration: configuration) { samples in
            for i in samples.indices {
                switch samples[i] {
                case .accelerometer(var a):
                    // Longitudinal / lateral loads: 0.1 g at 0.3 Hz and 0.7 Hz, plus 0.03 g random per sample.
                    let extra = mount.r0 * (0.1 * sin(2 * .pi * 0.3 * a.t) + 0.03 * rng.nextGaussian())
                        + mount.r1 * (0.1 * sin(2 * .pi * 0.7 * a.t + 1) + 0.03 * rng.nextGaussian())
                    a.x += extra.x; a.y += extra.y; a.z += extra.z
                    samples[i] = .accelerometer(a)
                case .gyroscope(var g):
                    // Oscillating roll and pitch rates, 0.15 rad/s peak each (≈ 8.6°/s instantaneous).
                    let extra = mount.r0 * (0.15 * sin(2 * .pi * 0.25 * g.t)) + mount.r1 * (0.15 * sin(2 * .pi * 0.6 * g.t + 2))
                    g.x += extra.x; g.y += extra.y; g.z += extra.z
                    samples[i] = .gyroscope(g)
                default: break
                }
            }
        }
        #expect(shaken.positions.count == 2, "\(shaken.positions)")   // initial + calibrated, never lost
        #expect(shaken.minutes.count == plain.minutes.count && shaken.minutes.count >= 5)
        for (a, b) in zip(shaken.minutes, plain.minutes) { #expect(abs(a.edrMedian / b.edrMedian - 1) < 0.1) }
    }

    /// The tilt trend's documented cost, and why it is judged only without gyro (docs/detection.md §2): a sideslip
    /// entered in 1 s (a side force of 0.12 g, 6.8° of tilt: below the 8° tilt test, held to the end) turns the force in
    /// the device frame as a slide does. Without gyro the trend takes the device out of position; with a gyro (showing
    /// the 9° yaw of the entry about the aircraft's vertical) the trend is not judged and the rotation test sees no
    /// device rotation against the force: it stays in position.
    @Test(arguments: [false, true])
    func sideslipTripsTheTiltTrendOnlyWithoutGyro(gyro: Bool) {
        let mount = Rotation3(axis: [1, 0.4, 0.2], angleRadians: 1.0)
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.05, durationSeconds: 240)],
                                      includeGyroscope: gyro, seed: 7, mountRotation: mount)
        let entry = 150.0
        func progress(_ t: Double) -> Double { let u = min(1, max(0, t - entry)); return u * u * (3 - 2 * u) }
        func rate(_ t: Double) -> Double { let u = t - entry; return u > 0 && u < 1 ? 6 * u * (1 - u) : 0 }
        let events = detect(scenario) { samples in
            for i in samples.indices {
                switch samples[i] {
                case .accelerometer(var a):
                    let extra = mount.r1 * (0.12 * progress(a.t))
                    a.x += extra.x; a.y += extra.y; a.z += extra.z
                    samples[i] = .accelerometer(a)
                case .gyroscope(var g):
                    let extra = mount.r2 * (0.157 * rate(g.t))   // 9° of yaw over the entry
                    g.x += extra.x; g.y += extra.y; g.z += extra.z
                    samples[i] = .gyroscope(g)
                default: break
                }
            }
        }
        let calibrated = events.positions.first { $0.inPosition }
        #expect(calibrated.map { $0.t < entry } == true, "calibrated before the slip: \(events.positions)")
        let lostAfterEntry = events.positions.filter { $0.t >= entry && !$0.inPosition }
        if gyro {
            #expect(lostAfterEntry.isEmpty, "with gyro the slip is not handling: \(events.positions)")
        } else {
            #expect(lostAfterEntry.first.map { $0.t < entry + 2 } == true, "without gyro the trend fires within 2 s: \(events.positions)")
        }
        let calibrationTime = calibrated?.t ?? 0
        let lostBeforeEntry = events.positions.filter { $0.t > calibrationTime && $0.t < entry && !$0.inPosition }
        #expect(lostBeforeEntry.isEmpty, "no false alarm before the slip: \(lostBeforeEntry)")
    }
}
