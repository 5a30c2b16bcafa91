import Testing
@testable import EddyDetection
@testable import EddyNavigation
import EddyVocabulary

@Suite struct SampleReorderBufferTests {
    private func accel(_ t: Double) -> DetectionInput { .accelerometer(AccelerometerSample(t: t, x: 0, y: 0, z: 1)) }
    private func gyro(_ t: Double) -> DetectionInput { .gyroscope(GyroscopeSample(t: t, x: 0.1, y: 0, z: 0)) }
    /// A second source: barometer readings as navigation took them (what another thread's stream becomes).
    private func pressure(_ t: Double) -> DetectionInput {
        .barometer(BarometerSample(t: t, pressureHectopascals: 1000 + t), NavigatedPressure(accepted: true, warning: nil))
    }

    /// Pushes `sample`, then takes every released sample into `out` (what the engine does per sample).
    private func push(_ sample: DetectionInput, _ buffer: inout SampleReorderBuffer, _ out: inout [DetectionInput]) {
        buffer.push(sample)
        while let ready = buffer.popReleased() { out.append(ready) }
    }

    @Test func twoSkewedStreamsComeOutInTimeOrder() {
        var buffer = SampleReorderBuffer(windowSeconds: 2)
        var out: [DetectionInput] = []
        // The second stream runs 1.5 s ahead of the motion stream (accelerometer and gyro interleaved).
        var motion = (0..<500).map { $0 % 2 == 0 ? accel(Double($0) * 0.02) : gyro(Double($0) * 0.02) }
        var readings = (0..<11).map { pressure(Double($0)) }
        let everything = motion + readings
        while !motion.isEmpty || !readings.isEmpty {
            if let f = readings.first, f.t <= (motion.first?.t ?? .infinity) + 1.5 {
                push(readings.removeFirst(), &buffer, &out)
            } else {
                push(motion.removeFirst(), &buffer, &out)
            }
        }
        #expect(out.count < 511, "the last 2 s are still held")
        let newest = everything.map(\.t).max() ?? 0
        #expect(out.allSatisfy { $0.t <= newest - 2 }, "nothing released before a sample 2 s newer arrived")
        while let held = buffer.popHeld() { out.append(held) }
        #expect(out.count == 511)
        #expect(zip(out, out.dropFirst()).allSatisfy { $0.t <= $1.t })
        // Every sample comes out once and unchanged (the barometer readings' payloads came back from their slots).
        #expect(out.sorted { $0.t < $1.t || ($0.t == $1.t && "\($0)" < "\($1)") }
            == everything.sorted { $0.t < $1.t || ($0.t == $1.t && "\($0)" < "\($1)") })
        #expect(buffer.lateCount == 0)
        #expect(buffer.count == 0)
        #expect(buffer.popHeld() == nil && buffer.popReleased() == nil)
    }

    @Test func tiesKeepArrivalOrderAndLateSamplesPassThrough() {
        var buffer = SampleReorderBuffer(windowSeconds: 1)
        var out: [DetectionInput] = []
        push(pressure(1), &buffer, &out)
        push(accel(1), &buffer, &out)
        push(accel(3), &buffer, &out)
        #expect(out == [pressure(1), accel(1)])
        push(accel(0.5), &buffer, &out)   // older than what was released
        #expect(out.last == accel(0.5))
        #expect(buffer.lateCount == 1)
        #expect(buffer.count == 1, "accel(3) still waits")
        #expect(buffer.popHeld() == accel(3))
    }

    @Test func aLongFlightKeepsItsStorageSmall() {
        // 5 minutes at 100 Hz plus 1 Hz readings: the storage is compacted as it goes, and the order holds.
        var buffer = SampleReorderBuffer(windowSeconds: 2)
        var released = 0
        var last = -Double.infinity
        var ordered = true
        for i in 0..<30_000 {
            let t = Double(i) * 0.01
            buffer.push(accel(t))
            if i % 100 == 50 { buffer.push(pressure(t - 0.5)) }
            while let ready = buffer.popReleased() {
                ordered = ordered && ready.t >= last
                last = ready.t
                released += 1
            }
        }
        #expect(ordered)
        #expect(buffer.count <= 205, "about 2 s held: \(buffer.count)")
        while buffer.popHeld() != nil { released += 1 }
        #expect(released == 30_300)
        #expect(buffer.lateCount == 0)
    }
}
