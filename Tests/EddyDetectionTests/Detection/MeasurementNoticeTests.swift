import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

extension Array where Element == DetectionEvent {
    /// The notices, in order.
    var notices: [MeasurementNotice] { compactMap { if case .notice(let n) = $0 { n } else { nil } } }
    /// The ended notices of one kind name.
    func ended(_ name: String) -> [MeasurementNotice] { notices.filter { $0.phase == .ended && $0.kindName == name } }
}

/// Median of a non-empty list.
private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Adds a constant offset (rad/s per device axis) to every gyro sample.
private func addGyroOffset(_ offset: SIMD3<Double>) -> (inout [SensorSample]) -> Void {
    { samples in
        for i in samples.indices {
            if case .gyroscope(var g) = samples[i] {
                g.x += offset.x; g.y += offset.y; g.z += offset.z
                samples[i] = .gyroscope(g)
            }
        }
    }
}

@Suite struct MeasurementNoticeTests {
    /// Every reason comes as one `began` and one `ended` notice per episode, never per sample.
    @Test func oneNoticePerEpisode() {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.2, durationSeconds: 400)], seed: 2)
        let events = detect(scenario) { samples in
            samples.removeAll { if case .location = $0 { return true } else { return false } }
        }
        let location = events.notices.filter { $0.kind == .noLocation }
        #expect(location.map(\.phase) == [.began, .ended])
        #expect(location.last?.start == 0 && location.last?.end.map { $0 >= 399 } == true)
        #expect(location.last.map { $0.count >= 399 && $0.secondsCost >= 399 } == true)
        // Minutes are still measured without location (at the class nominal speed), tiles are not.
        #expect(events.minutes.count >= 5)
        #expect(events.tiles.isEmpty)
    }

    /// A clean simulated flight raises no notice at all.
    @Test func cleanFlightHasNoNotice() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.2, durationSeconds: 300)], seed: 4)
        #expect(detect(scenario).notices.isEmpty)
    }

    /// 1 and 2 Hz accelerometer logs: "rate below minimum" with the minimum (5 Hz for jets), and no severity at all.
    @Test(arguments: [1, 2])
    func lowRate(rateHz: Int) {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 600)], seed: 7)
        var config = DetectionConfiguration(aircraftClass: .medium)
        config.tileIndexer = gridIndexer
        let keepEvery = 50 / rateHz
        var index = 0
        let events = detect(scenario, configuration: config) { samples in
            samples.removeAll { sample in
                switch sample {
                case .accelerometer, .gyroscope:
                    defer { index += 1 }
                    return (index / 2) % keepEvery != 0   // accelerometer and gyro alternate at 50 Hz
                default: return false
                }
            }
        }
        #expect(events.minutes.isEmpty)
        #expect(events.tiles.isEmpty)
        let rate = events.ended("sample_rate_below_minimum")
        #expect(rate.count == 1)
        if case .sampleRateBelowMinimum(let measured, let minimum)? = rate.first?.kind {
            #expect(minimum == 5)
            #expect(abs(measured - Double(rateHz)) < 0.2 * Double(rateHz), "measured \(measured) Hz")
        } else {
            Issue.record("no rate notice: \(events.notices)")
        }
        #expect(rate.first.map { $0.secondsCost > 500 } == true)
        #expect(events.ended("time_gap").isEmpty)
    }

    /// Accelerometer in m/s² or mg, and `t` in milliseconds: the matching notice, and nothing measured.
    @Test(arguments: ["m/s2", "mg", "ms"])
    func unitsLookWrong(unit: String) {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 300)], seed: 9)
        let events = detect(scenario) { samples in
            for i in samples.indices {
                switch (samples[i], unit) {
                case (.accelerometer(var a), "m/s2"):
                    a.x *= 9.80665; a.y *= 9.80665; a.z *= 9.80665; samples[i] = .accelerometer(a)
                case (.accelerometer(var a), "mg"):
                    a.x *= 1000; a.y *= 1000; a.z *= 1000; samples[i] = .accelerometer(a)
                case (_, "ms"):
                    var sample = samples[i]; sample.t *= 1000; samples[i] = sample
                default: break
                }
            }
        }
        #expect(events.minutes.isEmpty)
        let name = ["m/s2": "units_acceleration_m_s2", "mg": "units_acceleration_mg", "ms": "units_time_ms"][unit] ?? ""
        let notice = events.ended(name)
        #expect(notice.count == 1, "\(events.notices.map(\.kindName))")
        switch notice.first?.kind {
        case .unitsLookWrong(.accelerationInMetersPerSecondSquared(let m))?: #expect(abs(m - 9.8) < 0.5)
        case .unitsLookWrong(.accelerationInMilliG(let m))?: #expect(abs(m - 1000) < 50)
        case .unitsLookWrong(.timeInMilliseconds(let step))?: #expect(abs(step - 20) < 2)
        default: Issue.record("wrong kind: \(String(describing: notice.first))")
        }
    }

    /// A 130 s hole in the data is one time-gap notice with its start and length.
    @Test func timeGap() {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 600)], seed: 19)
        let events = detect(scenario) { samples in samples.removeAll { $0.t >= 200 && $0.t < 330 } }
        let gaps = events.ended("time_gap")
        #expect(gaps.count == 1)
        #expect(gaps.first.map { abs($0.start - 200) < 0.1 && abs(($0.end ?? 0) - 330) < 0.1 && $0.count == 1 } == true)
        if case .timeGap(let longest)? = gaps.first?.kind { #expect(abs(longest - 130) < 0.1) }
    }
}

@Suite struct DeviceMountTests {
    /// A flat rigid logger: in a cradle it is "lying on a seat" (notice device flat, nothing measured); as a fixed
    /// mount it is measured, within the turbulence acceptance (±10 % median of minute medians).
    @Test func flatLogger() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 720)], flat: true, seed: 5)
        var cradle = DetectionConfiguration(aircraftClass: .small)
        cradle.tileIndexer = gridIndexer
        let refused = detect(scenario, configuration: cradle)
        #expect(refused.minutes.isEmpty)
        let flat = refused.ended("device_flat")
        #expect(flat.count == 1 && flat.first?.kind == .deviceFlat(mount: .cradle))
        #expect(flat.first.map { $0.secondsCost > 650 } == true)

        var fixed = cradle
        fixed.mount = .fixed
        let measured = detect(scenario, configuration: fixed)
        #expect(measured.notices.isEmpty, "\(measured.notices)")
        #expect(!measured.positions.contains { $0.horizontal })
        let inside = minutes(measured.minutes, inside: 0, 720)
        #expect(inside.count >= 10)
        let m = median(inside.map(\.edrMedian))
        #expect(abs(m / 0.3 - 1) <= 0.10, "median \(m)")
        #expect(!measured.tiles.isEmpty)
    }

    /// A fixed mount is never taken out of position by manoeuvres (turns, the 0.3 g of a pull-up / push-over).
    @Test func fixedMountIgnoresManoeuvres() {
        let scenario = FlightScenario(
            aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.1, durationSeconds: 600)], flat: true,
            turns: [CoordinatedTurn(start: 100, durationSeconds: 120, bankDegrees: 45), CoordinatedTurn(start: 350, durationSeconds: 100, bankDegrees: -60)],
            seed: 12)
        var fixed = DetectionConfiguration(aircraftClass: .small)
        fixed.mount = .fixed
        // A push-over and pull-up: ±0.4 g along the aircraft's vertical at 0.5 Hz for 10 s (device lies flat: its z).
        let events = detect(scenario, configuration: fixed) { samples in
            for i in samples.indices {
                if case .accelerometer(var a) = samples[i], a.t >= 500, a.t < 510 {
                    a.z += 0.4 * sin(2 * .pi * 0.5 * a.t) * (a.z < 0 ? -1 : 1)
                    a.x += 0.3 * sin(2 * .pi * 1.1 * a.t)   // and a transverse jolt beyond the 0.25 g handling limit
                    samples[i] = .accelerometer(a)
                }
            }
        }
        #expect(events.positions.count == 2, "\(events.positions)")   // initial, calibrated; never lost
        #expect(events.positions.last?.inPosition == true)
    }
}

@Suite struct GyroBiasTests {
    /// Estimator alone: straight-flight blocks with oscillating rates converge on the offset; turn blocks are ignored.
    @Test func estimatorConverges() {
        var estimator = GyroBiasEstimator(ticksPerSecond: 25)
        let offset = SIMD3<Double>(0.05, -0.035, 0.087)
        var rng = Xoshiro256StarStar(seed: 3)
        for tick in 0..<(25 * 120) {
            let t = Double(tick) / 25
            let turbulence = SIMD3<Double>(0.1 * sin(2 * .pi * 0.4 * t), 0.08 * sin(2 * .pi * 0.7 * t + 1), 0.03 * rng.nextGaussian())
            // 40–70 s: a turn (not straight) at 0.1 rad/s yaw: must not move the estimate.
            let turning = t >= 40 && t < 70
            let rate = offset + turbulence + (turning ? SIMD3(0, 0, 0.1) : .zero)
            estimator.add(gyroMean: rate, accelerationMean: [0, 0, 1 + 0.05 * rng.nextGaussian()], straight: !turning)
        }
        #expect(estimator.ready)
        let error = estimator.bias - offset
        #expect((error * error).sum().squareRoot() < 0.5 * .pi / 180, "error \(error)")
    }

    /// A steady device on the ground (parked) gives the offset within seconds.
    @Test func steadyDevice() {
        var estimator = GyroBiasEstimator(ticksPerSecond: 25)
        let offset = SIMD3<Double>(-0.07, 0.04, 0.02)
        var rng = Xoshiro256StarStar(seed: 4)
        for _ in 0..<(25 * 6) {
            let noise = SIMD3<Double>(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian()) * 0.0015
            estimator.add(gyroMean: offset + noise, accelerationMean: [0, 0.1, 0.99], straight: false, onGround: true)
        }
        #expect(estimator.ready)
        let error = estimator.bias - offset
        #expect((error * error).sum().squareRoot() < 0.001)
    }

    /// In the air a coordinated roll-in in smooth air is a steady rotation (specific force fixed in the device frame):
    /// it is not taken for an offset, so it cannot un-gate the roll-in of a turn (a perfect gyro keeps a zero estimate).
    @Test func steadyRotationInTheAirIsNotAnOffset() {
        var estimator = GyroBiasEstimator(ticksPerSecond: 25)
        let rollRate = SIMD3<Double>(0.17, 0, 0)   // ≈ 10 °/s
        for _ in 0..<(25 * 8) {
            estimator.add(gyroMean: rollRate, accelerationMean: [0, 0, 1], straight: false, turning: false, onGround: false)
        }
        #expect(estimator.blocksUsed == 0)
        #expect(estimator.correction == .zero)
    }

    /// A 2–5 °/s offset per axis on a simulated flight: the same minutes as without it (within the acceptance's ±10 %
    /// on the median), no hard-turn gate, the offset reported; a real turn is still gated.
    @Test(arguments: [AircraftClass.small, .medium])
    func offsetDoesNotGate(aircraftClass: AircraftClass) {
        let scenario = FlightScenario(
            aircraftClass: aircraftClass,
            segments: [TurbulenceSegment(edr: 0.15, durationSeconds: 300), TurbulenceSegment(edr: 0.3, durationSeconds: 300)],
            seed: 21)
        let offsetDegrees = SIMD3<Double>(2, -3.5, 5)
        let offset = offsetDegrees * (.pi / 180)
        let clean = detect(scenario)
        var uncorrected = DetectionConfiguration(aircraftClass: aircraftClass)
        uncorrected.estimateGyroBias = false
        // Without the estimator the offset (6.4 °/s) gates the whole flight: the bug this guards against.
        #expect(detect(scenario, configuration: uncorrected, transform: addGyroOffset(offset)).minutes.isEmpty)
        let biased = detect(scenario, transform: addGyroOffset(offset))
        #expect(clean.minutes.count >= 8)
        #expect(biased.minutes.count >= clean.minutes.count - 1 && biased.minutes.count <= clean.minutes.count, "\(biased.minutes.count) vs \(clean.minutes.count)")
        for (start, end, edr) in [(0.0, 300.0, 0.15), (300.0, 600.0, 0.3)] {
            let a = minutes(clean.minutes, inside: start, end).map(\.edrMedian)
            let b = minutes(biased.minutes, inside: start, end).map(\.edrMedian)
            guard !a.isEmpty, !b.isEmpty else { Issue.record("no minutes in \(start)–\(end)"); continue }
            #expect(abs(median(b) / edr - 1) <= 0.10 && abs(median(b) / median(a) - 1) <= 0.10, "\(median(b)) vs \(median(a))")
        }
        let notice = biased.ended("gyro_offset")
        #expect(notice.count == 1)
        if case .gyroOffset(let estimate)? = notice.first?.kind {
            let error = estimate - offsetDegrees
            #expect((error * error).sum().squareRoot() < 0.5, "estimate \(estimate)")
        }
    }

    /// With the offset, a real turn (30° bank, small class: 5.9 °/s) is still gated and does not corrupt the estimate.
    @Test func realTurnStillGated() {
        let scenario = FlightScenario(
            aircraftClass: .small, segments: [TurbulenceSegment(edr: 0, durationSeconds: 600)],
            turns: [CoordinatedTurn(start: 150, durationSeconds: 120, bankDegrees: 30)], seed: 8)
        let offsetDegrees = SIMD3<Double>(-4, 2, 3)
        let events = detect(scenario, transform: addGyroOffset(offsetDegrees * (.pi / 180)))
        // The minutes wholly inside the turn (180–240, 240–300 with the 20 s settle) have no valid second.
        #expect(!events.minutes.contains { $0.t == 240 || $0.t == 300 }, "\(events.minutes.map(\.t))")
        #expect(events.minutes.contains { $0.t >= 360 })
        for m in events.minutes { #expect(m.severity == .none) }
        if case .gyroOffset(let estimate)? = events.ended("gyro_offset").first?.kind {
            let error = estimate - offsetDegrees
            #expect((error * error).sum().squareRoot() < 0.5, "estimate \(estimate)")
        } else {
            Issue.record("no gyro offset notice")
        }
    }
}

@Suite struct GroundGateTests {
    /// A fix without speed does not lift the ground gate: the position filter's velocity stands in.
    @Test func fixWithoutSpeedKeepsTheGroundGate() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.4, durationSeconds: 300)],
                                      groundSpeedMetersPerSecond: 20, seed: 3)
        let events = detect(scenario) { samples in
            for i in samples.indices {
                if case .location(var fix) = samples[i] { fix.speedMetersPerSecond = nil; fix.courseDegrees = nil; samples[i] = .location(fix) }
            }
        }
        #expect(events.minutes.isEmpty)
        #expect(events.notices.isEmpty, "\(events.notices)")
    }

    /// A stale fix does not keep its speed: after the age limit the ground speed is unknown (not measured as on the
    /// ground), and "no location" says why.
    @Test func staleFixDoesNotKeepItsSpeed() {
        let scenario = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.4, durationSeconds: 400)],
                                      groundSpeedMetersPerSecond: 20, seed: 3)
        let events = detect(scenario) { samples in
            samples.removeAll { if case .location(let fix) = $0 { return fix.t > 100 } else { return false } }
        }
        // On the ground until 100 s (the last fix), unknown from 103 s: measured after the 20 s settle and 10 s window.
        #expect(!events.minutes.contains { $0.t <= 120 })
        #expect(events.minutes.count >= 3)
        let location = events.ended("no_location")
        #expect(location.count == 1)
        #expect(location.first.map { abs($0.start - 103) <= 1 } == true, "\(location)")
    }
}
