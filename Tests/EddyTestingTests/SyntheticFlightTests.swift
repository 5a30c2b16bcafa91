import EddySimulation
import EddyTesting
import EddyVocabulary
import Testing

@Suite struct SyntheticFlightTests {
    static let start = 1_800_000_000.0

    /// 25 s light chop then 25 s moderate: long enough for three simulator chunks, short enough to be fast.
    static func flight(seed: UInt64 = 7) -> SyntheticFlight {
        SyntheticFlight(
            segments: [TurbulenceSegment(edr: 0.05, durationSeconds: 25), TurbulenceSegment(edr: 0, durationSeconds: 0),
                       TurbulenceSegment(edr: 0.35, durationSeconds: 25)],
            startEpochSeconds: start, seed: seed)
    }

    @Test func samplesAreTimeOrderedAndShiftedToTheEpochStart() {
        let flight = Self.flight()
        let samples = flight.samples()
        #expect(samples.first?.t == Self.start)
        #expect(samples.allSatisfy { $0.t >= Self.start && $0.t < Self.start + 50 })
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.t <= $1.t })
        var last: [String: Double] = [:]
        var strictlyIncreasing = true
        for sample in samples {
            let key: String
            switch sample {
            case .accelerometer: key = "a"
            case .gyroscope: key = "g"
            case .barometer: key = "b"
            case .location: key = "l"
            }
            if let previous = last[key], sample.t <= previous { strictlyIncreasing = false }
            last[key] = sample.t
        }
        #expect(strictlyIncreasing)
        #expect(flight.endEpochSeconds == Self.start + 50)
    }

    @Test func sampleRatesFollowTheScenario() {
        var accelerometer: [Double] = [], gyroscope = 0, barometer = 0
        var locations: [LocationSample] = []
        Self.flight().forEachSample { sample in
            switch sample {
            case .accelerometer(let a): accelerometer.append(a.t)
            case .gyroscope: gyroscope += 1
            case .barometer: barometer += 1
            case .location(let l): locations.append(l)
            }
        }
        #expect(accelerometer.count == 50 * 50)
        #expect(gyroscope == 50 * 50)
        #expect(barometer == 50)
        #expect(locations.count == 50)
        let intervals = zip(accelerometer, accelerometer.dropFirst()).map { $1 - $0 }
        #expect(intervals.allSatisfy { abs($0 - 0.02) < 1e-5 })
        #expect(zip(locations, locations.dropFirst()).allSatisfy { abs($1.t - $0.t - 1) < 1e-6 })
        let withoutGyro = SyntheticFlight(
            scenario: FlightScenario(segments: [TurbulenceSegment(edr: 0.1, durationSeconds: 4)], accelerometerRateHz: 100,
                                     includeGyroscope: false, includeBarometer: false),
            startEpochSeconds: Self.start)
        let counts = withoutGyro.samples().reduce(into: [0, 0]) { counts, sample in
            if case .accelerometer = sample { counts[0] += 1 } else { counts[1] += 1 }
        }
        #expect(counts == [400, 4])   // 100 Hz accelerometer, 1 Hz location only
    }

    @Test func streamingIsTheSimulatorsOutputShiftedInBoundedChunks() {
        let flight = Self.flight()
        let reference = FlightSimulator.simulate(flight.scenario).samples.mergedSamples()
        var streamed: [SensorSample] = []
        var chunks = 0, largestChunk = 0
        flight.forEachChunk { chunk in
            chunks += 1
            largestChunk = max(largestChunk, chunk.accelerometer.count)
            streamed.append(contentsOf: chunk.mergedSamples())
        }
        #expect(chunks == 5)                      // 50 s in 10 s chunks
        #expect(largestChunk == 500)              // one chunk holds at most 10 s of 50 Hz
        #expect(streamed.count == reference.count)
        #expect(zip(streamed, reference).allSatisfy { abs($0.t - ($1.t + Self.start)) < 1e-6 })
        #expect(streamed == flight.samples())     // deterministic from the seed
    }

    @Test func truthIsInEpochSecondsAndMatchesTheFeltTurbulence() {
        let flight = Self.flight()
        #expect(flight.truthSegments == [
            .init(startEpochSeconds: Self.start, endEpochSeconds: Self.start + 25, edr: 0.05),
            .init(startEpochSeconds: Self.start + 25, endEpochSeconds: Self.start + 50, edr: 0.35),
        ])
        #expect(flight.trueEDR(atEpochSeconds: Self.start + 10) == 0.05)
        #expect(flight.trueEDR(atEpochSeconds: Self.start + 25) == 0.35)
        #expect(flight.trueEDR(atEpochSeconds: Self.start + 50) == nil)
        #expect(flight.trueEDR(atEpochSeconds: Self.start - 1) == nil)
        // The stronger segment shakes the accelerometer harder (variance of |f|, device-orientation free).
        var light: [Double] = [], moderate: [Double] = []
        flight.forEachSample { sample in
            guard case .accelerometer(let a) = sample else { return }
            let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
            if a.t < Self.start + 25 { light.append(magnitude) } else { moderate.append(magnitude) }
        }
        #expect(variance(moderate) > 4 * variance(light))
    }

    @Test func throwingFromTheBodyStopsTheStream() {
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) {
            try Self.flight().forEachSample { _ in
                seen += 1
                if seen == 100 { throw Stop() }
            }
        }
        #expect(seen == 100)
    }

    @Test func convenienceInitPlacesTheFlight() {
        let flight = SyntheticFlight(
            segments: [TurbulenceSegment(edr: 0.1, durationSeconds: 20)], aircraftClass: .large, startEpochSeconds: Self.start,
            startLatitude: 40, startLongitude: -100, courseDegrees: 0, altitudeFeet: 31_000, groundSpeedMetersPerSecond: 230)
        var fixes: [LocationSample] = []
        flight.forEachSample { if case .location(let fix) = $0 { fixes.append(fix) } }
        #expect(fixes.count == 20)
        #expect(fixes.first?.latitudeDegrees == 40 && fixes.first?.longitudeDegrees == -100)
        #expect(fixes.allSatisfy { $0.altitudeMeters == 31_000 * 0.3048 && $0.speedMetersPerSecond == 230 && $0.courseDegrees == 0 })
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $1.latitudeDegrees > $0.latitudeDegrees })   // northbound
        #expect(flight.scenario.aircraftClass == .large)
    }

    @Test func handlingIntervalsAreShifted() {
        let flight = SyntheticFlight(
            scenario: FlightScenario(segments: [TurbulenceSegment(edr: 0, durationSeconds: 30)],
                                     handling: [HandlingInterval(start: 10, end: 14)]),
            startEpochSeconds: Self.start)
        #expect(flight.handlingIntervals == [(Self.start + 10)...(Self.start + 14)])
    }
}

func variance(_ values: [Double]) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
}
