import Testing
@testable import EddyNavigation
import EddyVocabulary

@Suite("Flight-level inference")
struct FlightLevelInferenceTests {
    typealias Inference = FlightLevelInference

    /// ICAO Annex 2 App. 3: odd thousands eastbound, even westbound; RVSM to FL410; every 2,000 ft above.
    @Test func semicircularRule() {
        #expect(Inference.conforms(levelFeet: 35_000, trackDegrees: 90))
        #expect(!Inference.conforms(levelFeet: 36_000, trackDegrees: 90))
        #expect(Inference.conforms(levelFeet: 36_000, trackDegrees: 270))
        #expect(Inference.conforms(levelFeet: 41_000, trackDegrees: 0))
        #expect(Inference.conforms(levelFeet: 45_000, trackDegrees: 179))
        #expect(!Inference.conforms(levelFeet: 43_000, trackDegrees: 90))
        #expect(Inference.conforms(levelFeet: 43_000, trackDegrees: 180))
        #expect(Inference.conforms(levelFeet: 47_000, trackDegrees: 359))
        #expect(!Inference.conforms(levelFeet: 42_000, trackDegrees: 90) && !Inference.conforms(levelFeet: 42_000, trackDegrees: 270))
        #expect(Inference.conforms(levelFeet: 24_000, trackDegrees: -90))
    }

    /// The rule's weight is 0 near north/south tracks (true vs magnetic), on the North Atlantic tracks and in metric
    /// airspace; the configured weight elsewhere.
    @Test func semicircularExceptions() {
        #expect(Inference.semicircularWeight(0.9, trackDegrees: 90, latitudeDegrees: 47, longitudeDegrees: 8) == 0.9)
        #expect(Inference.semicircularWeight(0.9, trackDegrees: 10, latitudeDegrees: 47, longitudeDegrees: 8) == 0)
        #expect(Inference.semicircularWeight(0.9, trackDegrees: 195, latitudeDegrees: 47, longitudeDegrees: 8) == 0)
        #expect(Inference.semicircularWeight(0.9, trackDegrees: 90, latitudeDegrees: 55, longitudeDegrees: -30) == 0)
        #expect(Inference.semicircularWeight(0.9, trackDegrees: 90, latitudeDegrees: 35, longitudeDegrees: 110) == 0)
        #expect(Inference.semicircularWeight(0.9, trackDegrees: nil, latitudeDegrees: 47, longitudeDegrees: 8) == 0)
    }

    /// The case: GNSS 36,240 ft eastbound, offset +1,300 ± 500 ft: FL350 (odd) against FL370 and the even
    /// levels. With the rule, FL350 is chosen with P ≥ 0.9; without it FL350 still wins but FL340/FL360 share the rest.
    @Test func candidateWeighing() throws {
        let offset = OffsetEstimate(meanFeet: 1_300, sigmaFeet: 500)
        let withRule = Inference.posterior(gnssMeanFeet: 36_240, offsets: [(offset, 1)], floorFeet: 18_000) {
            Inference.conforms(levelFeet: $0, trackDegrees: 90) ? 1 : 0.1
        }
        let best = try #require(withRule.max { $0.probability < $1.probability })
        #expect(best.levelFeet == 35_000)
        #expect(best.probability >= 0.9, "\(best)")
        #expect(abs(withRule.reduce(0) { $0 + $1.probability } - 1) < 1e-9)
        let flat = Inference.posterior(gnssMeanFeet: 36_240, offsets: [(offset, 1)], floorFeet: 18_000) { _ in 1 }
        let flatBest = try #require(flat.max { $0.probability < $1.probability })
        #expect(flatBest.levelFeet == 35_000 && flatBest.probability < 0.9, "\(flatBest)")
        // Bounds follow the probability: confident → the keeping error only; not → the neighbours' distance.
        let confident = Inference.bounds(withRule, chosenFeet: 35_000, keepingSigmaFeet: 50)
        #expect(abs(confident.u90 - 1.645 * 50) < 1, "\(confident)")
        let unsure = Inference.bounds(flat, chosenFeet: 35_000, keepingSigmaFeet: 50)
        #expect(unsure.u90 >= 1_000, "\(unsure)")
    }

    private func fly(_ inference: inout FlightLevelInference, from t0: Double, seconds: Int, gnss: (Double) -> Double, rate: Double,
                     track: Double = 90, offset: OffsetEstimate, hints: FlightLevelHints = FlightLevelHints()) -> FlightLevelChoice? {
        var last: FlightLevelChoice?
        for i in 0..<seconds {
            let t = t0 + Double(i)
            last = inference.update(t: t, gnssFeet: gnss(t), gnssSigmaFeet: 41, gnssCorrelationSeconds: 90, verticalSpeedFeetPerMinute: rate,
                                    trackDegrees: track, latitudeDegrees: 47, longitudeDegrees: 8 + t * 3e-3, offset: offset, hints: hints)
        }
        return last
    }

    /// Level: nothing for the first 30 s, then a choice held; a step climb ends the segment, and the new level is
    /// chosen with the offset the first one showed (so a climatology 900 ft off no longer matters).
    @Test func continuityAndStepClimb() throws {
        var inference = FlightLevelInference(configuration: FlightLevelInferenceConfiguration())
        // True offset +1,200 ft (ISA+9 at FL330); the climatology says +300 ± 600; the crew entered FL330 as cleared.
        let climatology = OffsetEstimate(meanFeet: 300, sigmaFeet: 600)
        var hints = FlightLevelHints()
        hints.clearedLevels = [.init(t: 0, levelFeet: 33_000)]
        #expect(fly(&inference, from: 0, seconds: 29, gnss: { _ in 34_200 }, rate: 0, offset: climatology, hints: hints) == nil)
        let first = try #require(fly(&inference, from: 29, seconds: 300, gnss: { _ in 34_200 }, rate: 0, offset: climatology, hints: hints))
        #expect(first.levelFeet == 33_000 && first.probability >= 0.9, "\(first)")
        // Without the remembered offset, FL350 and FL370 would be a coin toss at GNSS 36,270 ft.
        let alone = Inference.posterior(gnssMeanFeet: 36_270, offsets: [(climatology, 1)], floorFeet: 18_000) {
            Inference.conforms(levelFeet: $0, trackDegrees: 90) ? 1 : 0.1
        }
        #expect((alone.max { $0.probability < $1.probability }?.probability ?? 1) < 0.6)
        let learned = try #require(inference.learnedOffset(at: 330, pressureFeet: 33_000, prior: climatology, latitudeDegrees: 47, longitudeDegrees: 9))
        #expect(abs(learned.meanFeet - 1_200) < 1 && learned.sigmaFeet < 100, "\(learned)")
        // Climb 2,000 ft at 1,000 ft/min: no choice while climbing.
        #expect(fly(&inference, from: 329, seconds: 120, gnss: { 34_200 + ($0 - 329) * 1_000 / 60 * 1.036 }, rate: 1_000, offset: climatology) == nil)
        // Level at FL350 (GNSS 36,270): the remembered offset says FL350 even though the climatology alone says FL360.
        let second = try #require(fly(&inference, from: 449, seconds: 120, gnss: { _ in 36_270 }, rate: 0, offset: climatology))
        #expect(second.levelFeet == 35_000 && second.probability >= 0.9, "\(second)")
    }

    /// An unsure level's doubt is carried, neither dropped nor inflated: the climb after it takes the chosen level's
    /// offset with bounds that reach the other candidate, and the next level keeps the same choice and about the same
    /// probability (before, the climb fell back on the climatology; and combining the climatology in again at every
    /// level pulled P up a little each time).
    @Test func anUnsureLevelsDoubtCarriesThroughAStepClimb() throws {
        var inference = FlightLevelInference(configuration: FlightLevelInferenceConfiguration())
        // True offset +1,200 ft at FL330 eastbound; the climatology says +300 ± 600: FL330 or FL350, FL330 likelier.
        let climatology = OffsetEstimate(meanFeet: 300, sigmaFeet: 600)
        let first = try #require(fly(&inference, from: 0, seconds: 329, gnss: { _ in 34_200 }, rate: 0, offset: climatology))
        #expect(first.levelFeet == 33_000 && first.probability > 0.5 && first.probability < 0.9, "\(first)")
        let learned = try #require(inference.learnedOffset(at: 330, pressureFeet: 33_000, prior: climatology, latitudeDegrees: 47, longitudeDegrees: 9))
        #expect(abs(learned.meanFeet - 1_200) < 1, "\(learned)")
        let bounds = try #require(inference.unsureBounds(sigmaFeet: 50, offset: climatology, pressureFeet: 33_000))
        #expect(bounds.u90 >= 2_000 && bounds.u68 <= bounds.u90, "\(bounds)")
        // A host hint that sharpens the prior is new evidence: the unsure mixture gives way to it.
        #expect(inference.unsureBounds(sigmaFeet: 50, offset: OffsetEstimate(meanFeet: 1_100, sigmaFeet: 200), pressureFeet: 33_000) == nil)
        #expect(inference.learnedOffset(at: 330, pressureFeet: 33_000, prior: OffsetEstimate(meanFeet: 1_100, sigmaFeet: 200),
                                        latitudeDegrees: 47, longitudeDegrees: 9) == nil)
        // A descent is not new evidence: the climatology's spread shrinks with height (600 ft at FL330 is 390 ft at
        // 23,000 ft), and the doubt stays — the bounds still reach the other candidate, the chosen offset still carried.
        let lower = 23_000.0
        let scale = AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: lower)
            / AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: 33_000)
        let climatologyLower = OffsetEstimate(meanFeet: 300 * scale, sigmaFeet: 600 * scale)
        let descending = try #require(inference.unsureBounds(sigmaFeet: 50, offset: climatologyLower, pressureFeet: lower))
        #expect(descending.u90 >= 1_500, "\(descending)")
        #expect(inference.learnedOffset(at: 900, pressureFeet: lower, prior: climatologyLower, latitudeDegrees: 47, longitudeDegrees: 9) != nil)
        #expect(fly(&inference, from: 329, seconds: 120, gnss: { 34_200 + ($0 - 329) * 1_000 / 60 * 1.036 }, rate: 1_000, offset: climatology) == nil)
        let second = try #require(fly(&inference, from: 449, seconds: 300, gnss: { _ in 36_270 }, rate: 0, offset: climatology))
        #expect(second.levelFeet == 35_000 && second.probability < 0.9 && abs(second.probability - first.probability) < 0.1,
                "\(first) → \(second)")
    }

    /// Hints: the cleared level decides between two candidates the GNSS cannot tell apart; an ISA deviation moves the
    /// atmosphere's prior by the anomaly at the level.
    @Test func hints() throws {
        var plain = FlightLevelInference(configuration: FlightLevelInferenceConfiguration())
        let offset = OffsetEstimate(meanFeet: 0, sigmaFeet: 800)
        // GNSS halfway between FL350 and FL370 (both odd: eastbound): a coin toss without hints.
        let unsure = try #require(fly(&plain, from: 0, seconds: 90, gnss: { _ in 36_000 }, rate: 0, offset: offset))
        #expect(unsure.probability < 0.9)
        var cleared = FlightLevelInference(configuration: FlightLevelInferenceConfiguration())
        var hints = FlightLevelHints()
        hints.clearedLevels = [.init(t: 0, levelFeet: 37_000)]
        let sure = try #require(fly(&cleared, from: 0, seconds: 90, gnss: { _ in 36_000 }, rate: 0, offset: offset, hints: hints))
        #expect(sure.levelFeet == 37_000 && sure.probability >= 0.9, "\(sure)")

        let july = 1_784_095_200.0
        let climate = OffsetEstimate.atmospherePrior(latitudeDegrees: 47, unixSeconds: july, mslFeet: 36_000, qnhHectopascals: nil,
                                                     isaSigmaCelsius: 10, qnhSigmaHectopascals: 12, temperature: nil, at: 0)
        let temperature = FlightLevelHints.Temperature(isaDeviationCelsius: 15, sigmaCelsius: 2, t: 0)
        let hinted = OffsetEstimate.atmospherePrior(latitudeDegrees: 47, unixSeconds: july, mslFeet: 36_000, qnhHectopascals: nil,
                                                    isaSigmaCelsius: 10, qnhSigmaHectopascals: 12, temperature: temperature, at: 0)
        // The hint read as a column-uniform ISA+15 puts the offset at ≈ 15 × 139 ft above the surface's: the combined
        // prior lies between the climatology's and that, and is narrower than either.
        let surface = AtmosphereClimatology.offset(latitudeDegrees: 47, unixSeconds: july, mslFeet: 0, qnhHectopascals: nil).meanFeet
        let uniform = surface + 15 * AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: 36_000 - climate.meanFeet)
        #expect(hinted.meanFeet > min(climate.meanFeet, uniform) + 1 && hinted.meanFeet < max(climate.meanFeet, uniform) - 1,
                "\(climate) → \(hinted), uniform \(uniform)")
        #expect(hinted.sigmaFeet < climate.sigmaFeet)
        // Its σ grows with age: 0.25 °C an hour.
        let old = OffsetEstimate.atmospherePrior(latitudeDegrees: 47, unixSeconds: july, mslFeet: 36_000, qnhHectopascals: nil,
                                                 isaSigmaCelsius: 10, qnhSigmaHectopascals: 12, temperature: temperature, at: 8 * 3_600)
        #expect(old.sigmaFeet > hinted.sigmaFeet)
    }
}
