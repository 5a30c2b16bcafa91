import EddyVocabulary
import Foundation
import Testing
@testable import EddySimulation

@Suite struct HandlingProfilesTests {
    /// Unit accelerometer direction at each sample of a smooth, noise-free flight with one handling interval.
    private func directions(_ kind: HandlingKind, start: Double, end: Double, seed: UInt64) -> (t: [Double], f: [SIMD3<Double>], w: [SIMD3<Double>]) {
        let scenario = FlightScenario(
            segments: [TurbulenceSegment(edr: 0, durationSeconds: end + 5)], accelerometerRateHz: 100, noiseRMSg: 0,
            gyroNoiseRMSRadiansPerSecond: 0, handling: [HandlingInterval(start: start, end: end, kind: kind)], seed: seed)
        let samples = FlightSimulator.simulate(scenario).samples
        let f = samples.accelerometer.map { a -> SIMD3<Double> in let v = SIMD3(a.x, a.y, a.z); return v / (v * v).sum().squareRoot() }
        return (samples.accelerometer.map(\.t), f, samples.gyroscope.map { SIMD3($0.x, $0.y, $0.z) })
    }

    private func angle(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { acos(max(-1, min(1, (a * b).sum()))) * 180 / .pi }

    /// A slow pick-up turns the vertical gradually (little in the first 0.5 s, all of it by 3 s); a fast one within
    /// 0.5 s. The gyro agrees with the turn: integrating ḟ = −ω × f reproduces the accelerometer's direction.
    @Test(arguments: [(HandlingKind.slowPickUp, UInt64(3)), (.slowPickUp, 8), (.fastPickUp, 3), (.fastPickUp, 8)])
    func pickUpTiltAndGyroAgree(kind: HandlingKind, seed: UInt64) {
        let start = 10.0, end = 22.0
        let (t, f, w) = directions(kind, start: start, end: end, seed: seed)
        let tilt = FlightSimulator.handlingTiltsDegrees(FlightScenario(
            segments: [TurbulenceSegment(edr: 0, durationSeconds: end + 5)],
            handling: [HandlingInterval(start: start, end: end, kind: kind)], seed: seed)).first ?? 0
        #expect(tilt >= 15 && tilt <= 90, "tilt \(tilt)")
        guard let i0 = t.firstIndex(where: { $0 >= start }), let iHalf = t.firstIndex(where: { $0 >= start + 0.5 }),
              let iRise = t.firstIndex(where: { $0 >= start + 3 }) else { Issue.record("no samples"); return }
        let early = angle(f[i0], f[iHalf]), risen = angle(f[i0], f[iRise])
        if kind == .slowPickUp {
            #expect(early < 0.15 * tilt, "slow: \(early)° of \(tilt)° after 0.5 s")
        } else {
            #expect(early > 0.8 * tilt, "fast: only \(early)° of \(tilt)° after 0.5 s")
        }
        #expect(abs(risen - tilt) < 0.15 * tilt + 3, "after 3 s \(risen)° vs \(tilt)°")
        // Gyro consistency over the first 3 s.
        var predicted = f[i0]
        for i in i0..<iRise {
            let dt = t[i + 1] - t[i]
            let omega = w[i], p = predicted
            let x: Double = omega.y * p.z - omega.z * p.y
            let y: Double = omega.z * p.x - omega.x * p.z
            let z: Double = omega.x * p.y - omega.y * p.x
            predicted -= SIMD3(x, y, z) * dt
            predicted /= (predicted * predicted).sum().squareRoot()
        }
        #expect(angle(predicted, f[iRise]) < 2, "gyro-propagated vs measured: \(angle(predicted, f[iRise]))°")
    }

    /// A slide turns the vertical by its (small) tilt over the interval and ends at rest at the new angle.
    @Test func slideEndsTurned() {
        let (t, f, _) = directions(.slide, start: 10, end: 12.5, seed: 5)
        let tilt = FlightSimulator.handlingTiltsDegrees(FlightScenario(
            segments: [TurbulenceSegment(edr: 0, durationSeconds: 17.5)], handling: [HandlingInterval(start: 10, end: 12.5, kind: .slide)], seed: 5)).first ?? 0
        guard let i0 = t.firstIndex(where: { $0 >= 10 }), let i1 = t.firstIndex(where: { $0 >= 13 }) else { Issue.record("no samples"); return }
        #expect(tilt > 0 && tilt <= 20)
        #expect(abs(angle(f[i0], f[i1]) - tilt) < 0.5, "\(angle(f[i0], f[i1]))° vs \(tilt)°")
        #expect(angle(f[i1], f[f.count - 1]) < 0.1)
    }
}
