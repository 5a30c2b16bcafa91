import EddyDetection
import EddyVocabulary
import Foundation
import Testing
@testable import EddySimulation

@Suite struct RandomTests {
    @Test func sameSeedSameStream() {
        var a = Xoshiro256StarStar(seed: 42), b = Xoshiro256StarStar(seed: 42), c = Xoshiro256StarStar(seed: 43)
        let xa = (0..<100).map { _ in a.next() }, xb = (0..<100).map { _ in b.next() }, xc = (0..<100).map { _ in c.next() }
        #expect(xa == xb)
        #expect(xa != xc)
    }

    @Test func gaussianMoments() {
        var rng = Xoshiro256StarStar(seed: 7)
        let n = 200_000
        var sum = 0.0, squares = 0.0
        for _ in 0..<n { let x = rng.nextGaussian(); sum += x; squares += x * x }
        let mean = sum / Double(n), variance = squares / Double(n) - mean * mean
        #expect(abs(mean) < 0.01, "mean \(mean)")
        #expect(abs(variance - 1) < 0.02, "variance \(variance)")
    }
}

@Suite struct FFTTests {
    @Test func rejectsNonPowerOfTwo() {
        #expect(throws: FFT.SetupError.lengthNotPowerOfTwo(12)) { try FFT(count: 12) }
    }

    /// Matches a direct DFT on random data, and inverse(forward(x)) = N·x.
    @Test func matchesDirectDFT() throws {
        let n = 32
        let fft = try FFT(count: n)
        var rng = Xoshiro256StarStar(seed: 3)
        let xr = (0..<n).map { _ in rng.nextGaussian() }, xi = (0..<n).map { _ in rng.nextGaussian() }
        var re = xr, im = xi
        fft.transform(real: &re, imag: &im, inverse: false)
        for k in 0..<n {
            var sr = 0.0, si = 0.0
            for j in 0..<n {
                let angle = -2 * Double.pi * Double(k * j) / Double(n)
                sr += xr[j] * cos(angle) - xi[j] * sin(angle)
                si += xr[j] * sin(angle) + xi[j] * cos(angle)
            }
            #expect(abs(re[k] - sr) < 1e-9 && abs(im[k] - si) < 1e-9, "bin \(k)")
        }
        fft.transform(real: &re, imag: &im, inverse: true)
        for j in 0..<n { #expect(abs(re[j] / Double(n) - xr[j]) < 1e-12 && abs(im[j] / Double(n) - xi[j]) < 1e-12) }
    }
}

@Suite struct GustSynthesisTests {
    /// The synthesised load factor has the variance Σ S_w |H|² Δf, which equals the continuous ∫ S_w |H|² df.
    @Test func varianceMatchesSpectrumIntegral() {
        let p = AircraftResponseParameters.forClass(.medium)
        let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: p.nominalAltitudeMeters)
        let h = PlungeResponse(parameters: p, trueAirspeedMetersPerSecond: 230, densityKilogramsPerCubicMeter: rho)
        var gusts = GustSynthesizer(sampleRateHz: 20, response: h, trueAirspeedMetersPerSecond: 230, seed: 5)
        // Continuous integral of S_w |H|² over 0…10 Hz (log trapezoid).
        var integral = 0.0, previous = (f: 0.0, s: 0.0)
        for i in 0...20_000 {
            let f = exp(log(1e-5) + (log(10.0) - log(1e-5)) * Double(i) / 20_000)
            let s = h.magnitudeSquared(frequencyHz: f)
                * VonKarmanSpectrum.verticalPSD(frequencyHz: f, trueAirspeedMetersPerSecond: 230, variance: VonKarmanSpectrum.verticalVariance(edr: 1))
            if i > 0 { integral += 0.5 * (s + previous.s) * (f - previous.f) }
            previous = (f, s)
        }
        #expect(abs(gusts.expectedVariance / integral - 1) < 0.02, "discrete \(gusts.expectedVariance) vs ∫ \(integral)")
        // Empirical variance over three blocks (crossing two cross-fades).
        let n = gusts.blockLength * 3
        var sum = 0.0, squares = 0.0
        for _ in 0..<n { let x = gusts.next(); sum += x; squares += x * x }
        let variance = squares / Double(n) - (sum / Double(n)) * (sum / Double(n))
        #expect(abs(variance / integral - 1) < 0.10, "empirical \(variance) vs ∫ \(integral)")
    }
}

@Suite struct FlightSimulatorTests {
    let scenario = FlightScenario(
        aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.2, durationSeconds: 25), TurbulenceSegment(edr: 0, durationSeconds: 10)],
        accelerometerRateHz: 40, handling: [HandlingInterval(start: 5, end: 9)], seed: 9)

    @Test func truthListsSegmentsAndHandling() {
        let truth = FlightSimulator.truth(for: scenario)
        #expect(truth.turbulence == [TruthInterval(start: 0, end: 25, edr: 0.2), TruthInterval(start: 25, end: 35, edr: 0)])
        #expect(truth.handling == [TruthInterval(start: 5, end: 9, edr: nil)])
    }

    /// Streaming and in-memory runs agree sample for sample; chunks are time-ordered; rates are right.
    @Test func streamingEqualsWholeFlight() {
        let whole = FlightSimulator.simulate(scenario)
        var streamed: [AccelerometerSample] = []
        var lastT = -1.0
        var chunkCount = 0
        FlightSimulator.simulate(scenario) { chunk in
            chunkCount += 1
            for s in chunk.mergedSamples() { #expect(s.t >= lastT); lastT = s.t }
            streamed += chunk.accelerometer
        }
        #expect(chunkCount == 4)
        #expect(streamed == whole.samples.accelerometer)
        #expect(whole.samples.accelerometer.count == 35 * 40)
        #expect(whole.samples.gyroscope.count == 35 * 40)
        #expect(whole.samples.location.count == 35)
        #expect(whole.samples.barometer.count == 35)
    }

    @Test func deterministicFromSeed() {
        let a = FlightSimulator.simulate(scenario).samples
        let b = FlightSimulator.simulate(scenario).samples
        var other = scenario
        other.seed = 10
        let c = FlightSimulator.simulate(other).samples
        #expect(a.accelerometer == b.accelerometer && a.gyroscope == b.gyroscope && a.location == b.location)
        #expect(a.accelerometer != c.accelerometer)
    }

    /// Smooth straight flight: |f| = 1 g; the route advances at the ground speed along the course.
    @Test func gravityAndRoute() {
        let smooth = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0, durationSeconds: 60)],
                                    noiseRMSg: 0, courseDegrees: 0, seed: 2)
        let flight = FlightSimulator.simulate(smooth)
        for s in flight.samples.accelerometer.prefix(100) {
            #expect(abs((s.x * s.x + s.y * s.y + s.z * s.z).squareRoot() - 1) < 1e-9)
        }
        let first = flight.samples.location.first!, last = flight.samples.location.last!
        // 59 s north at 230 m/s: 13,570 m ≈ 0.12204° of latitude.
        #expect(abs((last.latitudeDegrees - first.latitudeDegrees) * 111_195 - 59 * 230) < 20)
        #expect(abs(last.longitudeDegrees - first.longitudeDegrees) < 1e-9)
        // Pressurised cabin: barometer reads ~6,000 ft cabin altitude.
        let cabin = StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: flight.samples.barometer[0].pressureHectopascals)
        #expect(abs(cabin - 6_000) < 50)
    }

    /// A coordinated 30° turn: load factor 1/cos 30° = 1.155 g, yaw rate g tan φ / V.
    @Test func coordinatedTurn() {
        let turn = FlightScenario(aircraftClass: .small, segments: [TurbulenceSegment(edr: 0, durationSeconds: 60)], noiseRMSg: 0,
                                  gyroNoiseRMSRadiansPerSecond: 0, turns: [CoordinatedTurn(start: 10, durationSeconds: 40, bankDegrees: 30)], seed: 4)
        let flight = FlightSimulator.simulate(turn)
        let mid = flight.samples.accelerometer[30 * 50], gyro = flight.samples.gyroscope[30 * 50]
        #expect(abs((mid.x * mid.x + mid.y * mid.y + mid.z * mid.z).squareRoot() - 1 / cos(Double.pi / 6)) < 1e-9)
        let rate = (gyro.x * gyro.x + gyro.y * gyro.y + gyro.z * gyro.z).squareRoot()
        #expect(abs(rate - 9.80665 * tan(Double.pi / 6) / 55) < 1e-9)
        let courses = flight.samples.location.map { $0.courseDegrees! }
        #expect(courses[0] == 90 && courses[59] > 90 + 100)
    }

    /// A flat device reads gravity along its z axis (|z| > cos 15°); a cradle mount does not.
    @Test func mountOrientation() {
        let flat = FlightSimulator.simulate(FlightScenario(segments: [TurbulenceSegment(edr: 0, durationSeconds: 2)], noiseRMSg: 0, flat: true, seed: 3))
        let a = flat.samples.accelerometer[0]
        #expect(abs(a.z) > cos(15 * Double.pi / 180))
        for seed: UInt64 in 1...6 {
            let cradle = FlightSimulator.simulate(FlightScenario(segments: [TurbulenceSegment(edr: 0, durationSeconds: 1)], noiseRMSg: 0, seed: seed))
            #expect(abs(cradle.samples.accelerometer[0].z) < cos(30 * Double.pi / 180) + 1e-12)
        }
    }
}
