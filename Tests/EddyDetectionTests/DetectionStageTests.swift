import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyNavigation
@testable import EddyVocabulary

@Suite struct BandPassFilterTests {
    let filter = BandPassFilter(lowHz: 0.1, highHz: 2, sampleRateHz: 25)

    /// Butterworth: −3 dB (|B|² = 0.5) at both edges, ≈ 1 mid-band, 4th-order roll-off outside.
    @Test func magnitudeResponse() {
        #expect(abs(filter.magnitudeSquared(frequencyHz: 0.1) - 0.5) < 0.01)
        #expect(abs(filter.magnitudeSquared(frequencyHz: 2) - 0.5) < 0.01)
        #expect(abs(filter.magnitudeSquared(frequencyHz: 0.5) - 1) < 0.01)
        #expect(filter.magnitudeSquared(frequencyHz: 0.01) < 1e-7)   // (0.01/0.1)^8
        #expect(filter.magnitudeSquared(frequencyHz: 8) < 1e-4)
    }

    /// Filtering sinusoids gives the amplitudes the response predicts; DC is removed.
    @Test func timeDomainMatchesResponse() {
        for f in [0.05, 0.5, 1.0, 3.0] {
            var bp = filter
            var peak = 0.0
            for i in 0..<(25 * 200) {
                let y = bp.process(1 + sin(2 * Double.pi * f * Double(i) / 25))
                if i > 25 * 150 { peak = max(peak, abs(y)) }
            }
            #expect(abs(peak - filter.magnitudeSquared(frequencyHz: f).squareRoot()) < 0.02, "f \(f): peak \(peak)")
        }
    }
}

@Suite struct EDRModelTests {
    /// The model variance I equals the variance of synthetic EDR = 1 gusts averaged to 25 Hz and band-passed.
    @Test func unitVarianceMatchesSyntheticGusts() {
        for cls in [AircraftClass.medium, .small] {
            let p = AircraftResponseParameters.forClass(cls)
            let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: p.nominalAltitudeMeters)
            let v = p.nominalTrueAirspeedMetersPerSecond
            let filter = BandPassFilter(lowHz: p.bandLowHz, highHz: p.bandHighHz, sampleRateHz: 25)
            let model = EDRModel(filter: filter, parameters: p, responseGain: 1, trueAirspeedMetersPerSecond: v, densityKilogramsPerCubicMeter: rho)
            var gusts = GustSynthesizer(sampleRateHz: 50, response: PlungeResponse(parameters: p, trueAirspeedMetersPerSecond: v, densityKilogramsPerCubicMeter: rho),
                                        trueAirspeedMetersPerSecond: v, seed: 17)
            var bp = filter
            var squares = 0.0, count = 0
            for i in 0..<(gusts.blockLength * 2 / 2) {
                let y = bp.process((gusts.next() + gusts.next()) / 2)
                if i > 25 * 60 { squares += y * y; count += 1 }
            }
            let measured = squares / Double(count)
            #expect(abs(measured / model.unitVariance - 1) < 0.1, "\(cls): measured \(measured) model \(model.unitVariance)")
            #expect(model.degreesOfFreedom > 5 && model.medianBiasFactor > 1 && model.medianBiasFactor < 1.06)
        }
    }

    /// σ_Δn for EDR 0.10 is about 0.035 g (737 at FL350) and 0.07 g (C172 at 5,000 ft) unfiltered (research §1.4);
    /// the band-passed variance is a fixed fraction of it, and I scales with gain².
    @Test func responseGainScalesVariance() {
        let p = AircraftResponseParameters.forClass(.medium)
        let filter = BandPassFilter(lowHz: p.bandLowHz, highHz: p.bandHighHz, sampleRateHz: 25)
        let a = EDRModel(filter: filter, parameters: p, responseGain: 1, trueAirspeedMetersPerSecond: 230, densityKilogramsPerCubicMeter: 0.38)
        let b = EDRModel(filter: filter, parameters: p, responseGain: 0.8, trueAirspeedMetersPerSecond: 230, densityKilogramsPerCubicMeter: 0.38)
        #expect(abs(b.unitVariance / a.unitVariance - 0.64) < 1e-12)
        let sigmaAt010 = (a.unitVariance * 0.01).squareRoot()
        #expect(sigmaAt010 > 0.02 && sigmaAt010 < 0.035, "band-passed σΔn at EDR 0.1: \(sigmaAt010)")
    }

    /// Models are integrated once per distinct inputs and kept: the kept model is the integrated one, a model pushed out
    /// of the table by 40 others is integrated again to the same bits, and inputs differing in one bit are not confused.
    @Test func aKeptModelIsTheIntegratedOne() {
        let p = AircraftResponseParameters.forClass(.medium)
        let filter = BandPassFilter(lowHz: p.bandLowHz, highHz: p.bandHighHz, sampleRateHz: 25)
        func model(_ v: Double) -> EDRModel {
            EDRModel(filter: filter, parameters: p, responseGain: 1, trueAirspeedMetersPerSecond: v, densityKilogramsPerCubicMeter: 0.41)
        }
        let first = model(201.25)
        #expect(model(201.25) == first)
        let neighbour = model(201.25.nextUp)
        #expect(neighbour.trueAirspeedMetersPerSecond == 201.25.nextUp && neighbour != first)
        for i in 0..<40 { _ = model(150 + Double(i)) }
        let again = model(201.25)
        #expect(again == first)
        #expect(again.unitVariance.bitPattern == first.unitVariance.bitPattern && again.degreesOfFreedom.bitPattern == first.degreesOfFreedom.bitPattern)
    }
}

@Suite struct EstimatorTests {
    /// A pure synthetic Δn at EDR 0.3 (no noise, level device, no gates) gives per-second EDR near 0.3.
    @Test func estimatorOnPureLoadFactor() {
        let p = AircraftResponseParameters.forClass(.medium)
        let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: p.nominalAltitudeMeters)
        var gusts = GustSynthesizer(sampleRateHz: 50, response: PlungeResponse(parameters: p, trueAirspeedMetersPerSecond: 230, densityKilogramsPerCubicMeter: rho),
                                    trueAirspeedMetersPerSecond: 230, seed: 23)
        var config = DetectionConfiguration(aircraftClass: .medium)
        config.sensorNoiseRMSg = 0
        var pipeline = NavigatedDetection(configuration: config)
        var events: [DetectionEvent] = []
        let rotation = Rotation3(axis: [1, 0.3, 0], angleRadians: 1.1)
        for i in 0..<(50 * 660) {
            let t = Double(i) / 50
            if i % 50 == 0 {
                pipeline.process(.location(LocationSample(t: t, latitudeDegrees: 0, longitudeDegrees: 0, altitudeMeters: p.nominalAltitudeMeters,
                                                          speedMetersPerSecond: 230, courseDegrees: 90)), into: &events)
            }
            let f = rotation.apply([0, 0, 1 + 0.3 * p.responseGain * gusts.next()])   // the class's calibrated response
            pipeline.process(.accelerometer(AccelerometerSample(t: t, x: f.x, y: f.y, z: f.z)), into: &events)
        }
        let medians = events.minutes.map(\.edrMedian)
        #expect(medians.count >= 9)
        var sorted = medians
        let median = Statistics.median(&sorted)
        #expect(abs(median / 0.3 - 1) < 0.1, "median of minute medians \(median)")
        for m in events.minutes { #expect(m.edrPeak >= m.edrMedian && m.validSeconds >= 30 && m.validSeconds <= 60) }
    }
}

@Test func aSampleTimeCanBeSetWhateverItsKind() {
    var samples: [SensorSample] = [
        .accelerometer(AccelerometerSample(t: 1, x: 0, y: 0, z: 1)), .gyroscope(GyroscopeSample(t: 1, x: 0, y: 0, z: 0)),
        .barometer(BarometerSample(t: 1, pressureHectopascals: 1000)), .location(LocationSample(t: 1, latitudeDegrees: 2, longitudeDegrees: 3)),
    ]
    for i in samples.indices { samples[i].t += 0.5 }
    #expect(samples.map(\.t) == [1.5, 1.5, 1.5, 1.5])
    #expect(samples[3] == .location(LocationSample(t: 1.5, latitudeDegrees: 2, longitudeDegrees: 3)))
}
