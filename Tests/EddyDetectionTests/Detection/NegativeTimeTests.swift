import EddySimulation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

/// Samples before the log's time origin (negative `t`) are legal: an export whose sensors start at different moments
/// gives them. They used to crash `closeSecond` with a negative ring-buffer slot (issue 12).
@Suite struct NegativeTimeTests {
    @Test(arguments: [-3_600.0, -125.3, -0.02, 0.0, 7.5])
    func aFlightShiftedBeforeTheOriginIsMeasuredLikeTheSameFlightAfterIt(offsetSeconds: Double) {
        let scenario = FlightScenario(aircraftClass: .medium, segments: [TurbulenceSegment(edr: 0.25, durationSeconds: 600)], seed: 7)
        let reference = detect(scenario)
        let shifted = detect(scenario) { samples in
            for i in samples.indices { samples[i].t += offsetSeconds }
        }
        // Whole minutes move with the shift only when it is a whole number of minutes; compare what does not depend
        // on minute boundaries: the measured minutes' count and their EDR spread stay in the same range.
        #expect(!shifted.minutes.isEmpty)
        #expect(abs(shifted.minutes.count - reference.minutes.count) <= 1)
        let referenceMedian = reference.minutes.map(\.edrMedian).sorted()[reference.minutes.count / 2]
        let shiftedMedian = shifted.minutes.map(\.edrMedian).sorted()[shifted.minutes.count / 2]
        #expect(abs(shiftedMedian / referenceMedian - 1) < 0.2)
    }

    @Test func aFirstSampleAtAnyTimeAndEqualStampsAcrossStreamsDoNotCrash() {
        var pipeline = NavigatedDetection(configuration: DetectionConfiguration(aircraftClass: .small))
        var events: [DetectionEvent] = []
        for t in [-1e9, -86_400.5, -1.0, -1.0, 0, 0] {
            pipeline.process(.accelerometer(AccelerometerSample(t: t, x: 0, y: -0.8, z: -0.6)), into: &events)
            pipeline.process(.gyroscope(GyroscopeSample(t: t, x: 0, y: 0, z: 0)), into: &events)
            pipeline.process(.barometer(BarometerSample(t: t, pressureHectopascals: 900)), into: &events)
            pipeline.process(.location(LocationSample(t: t, latitudeDegrees: 47, longitudeDegrees: 8, altitudeMeters: 1000)), into: &events)
        }
        pipeline.finish(into: &events)
        #expect(events.positions.first?.inPosition == false)
    }
}
