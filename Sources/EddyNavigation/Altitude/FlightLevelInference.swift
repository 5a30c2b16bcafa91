import EddyVocabulary
import Foundation

/// Settings of the flight-level inference (docs/altitude.md "Flight-level inference"); every default is explained there.
package struct FlightLevelInferenceConfiguration: Sendable, Equatable {
    /// Whether a level aircraft on a GNSS-derived altitude gets a flight level chosen at all.
    package var enabled = true
    /// Weight of the semicircular rule, 0…1: a level against the rule for the track has prior 1 − weight (1 for one
    /// that follows it). 0 switches the rule off.
    package var semicircularWeight = 0.9
    /// Lowest pressure altitude, feet, at which levels are flight levels (18,000 ft: the highest transition altitude in
    /// use, North America; below it a level aircraft may fly a QNH altitude, which is no flight level).
    package var floorFeet = 18_000.0
    /// Tracked vertical speed below which the aircraft may be level, ft/min.
    package var levelRateFeetPerMinute = 300.0
    /// How long the vertical speed must stay below that before the aircraft counts as level, seconds.
    package var levelSeconds = 30.0
    /// Tracked vertical speed that ends the level segment when it lasts `leaveSeconds`, ft/min.
    package var leaveRateFeetPerMinute = 400.0
    /// How long the vertical speed must stay above `leaveRateFeetPerMinute` to end the segment, seconds (a gust or
    /// an autopilot's oscillation is not a climb).
    package var leaveSeconds = 10.0
    /// GNSS altitude change from the segment's mean that ends the level segment, feet.
    package var leaveFeet = 400.0
    /// 1σ of an aircraft's pressure altitude about the level it holds (altimetry system error and flight technical
    /// error: RVSM's MASPS allow a mean ASE of 80 ft and ASE + 3σ of 200 ft), feet.
    package var keepingSigmaFeet = 65.0
    /// Probability from which a chosen level is not flagged `layer_uncertain`.
    package var confidentProbability = 0.9
    /// Prior factor of the level the crew says ATC cleared.
    package var clearedLevelFactor = 30.0
    /// Prior factor of a planned cruise level.
    package var plannedLevelFactor = 3.0
    /// Hysteresis of the choice: the level chosen at the previous fix of the same segment stays chosen unless another is
    /// this many times likelier (continuity; it does not raise the probability reported).
    package var continuityFactor = 3.0
    /// 1σ of the offset below which no level is inferred, feet: with a fresh fleet offset the continuous estimate
    /// and the flight-level hold already place a level aircraft (issue 11: ≥ 98 % of tiles in the true layer).
    package var preciseOffsetSigmaFeet = 150.0

    /// The defaults.
    package init() {}
}

/// What the host knows about the flight's levels and air (docs/altitude.md "Host hints"); times in the samples' base.
package struct FlightLevelHints: Sendable, Equatable {
    /// A level cleared from a time on.
    package struct ClearedLevel: Sendable, Equatable {
        /// From when, seconds (samples' time base).
        package var t: Double
        /// The level, feet (FL350 = 35,000).
        package var levelFeet: Double
        /// Creates one.
        package init(t: Double, levelFeet: Double) { self.t = t; self.levelFeet = levelFeet }
    }

    /// The ISA deviation at cruise (flight plan, or outside air temperature − ISA at the level), with its 1σ and time.
    package struct Temperature: Sendable, Equatable {
        /// ISA deviation, °C.
        package var isaDeviationCelsius: Double
        /// Its 1σ when given, °C (grows by 0.25 °C an hour after `t`).
        package var sigmaCelsius: Double
        /// When it held, seconds (samples' time base).
        package var t: Double
        /// Creates one.
        package init(isaDeviationCelsius: Double, sigmaCelsius: Double, t: Double) {
            self.isaDeviationCelsius = isaDeviationCelsius; self.sigmaCelsius = sigmaCelsius; self.t = t
        }
    }

    /// Planned cruise levels, feet.
    package var plannedLevelsFeet: [Double] = []
    /// Cleared levels in time order (the latest at or before a fix applies).
    package var clearedLevels: [ClearedLevel] = []
    /// The latest ISA deviation.
    package var temperature: Temperature?

    /// No hints.
    package init() {}

    /// The cleared level in force at `t`.
    package func clearedLevelFeet(at t: Double) -> Double? {
        clearedLevels.last(where: { $0.t <= t })?.levelFeet
    }
}

/// A chosen flight level: the level, the probability that the aircraft holds it, and the 68/90 % bounds of the
/// pressure altitude that follow from the candidates' probabilities.
package struct FlightLevelChoice: Sendable, Equatable {
    /// The level, feet.
    package var levelFeet: Double
    /// Its posterior probability.
    package var probability: Double
    /// Bounds of the pressure altitude about the level, feet.
    package var uncertainty: Uncertainty
}

/// A Gaussian estimate of the GNSS − pressure altitude offset, feet.
package struct OffsetEstimate: Sendable, Equatable {
    /// Mean, feet.
    package var meanFeet: Double
    /// 1σ, feet.
    package var sigmaFeet: Double
    /// Creates one.
    package init(meanFeet: Double, sigmaFeet: Double) { self.meanFeet = meanFeet; self.sigmaFeet = sigmaFeet }

    /// Inverse-variance combination of independent estimates (nil when there are none).
    package static func combined(_ estimates: [OffsetEstimate]) -> OffsetEstimate? {
        let usable = estimates.filter { $0.sigmaFeet.isFinite && $0.sigmaFeet > 0 && $0.meanFeet.isFinite }
        guard !usable.isEmpty else { return nil }
        let weight = usable.reduce(0) { $0 + 1 / ($1.sigmaFeet * $1.sigmaFeet) }
        let mean = usable.reduce(0) { $0 + $1.meanFeet / ($1.sigmaFeet * $1.sigmaFeet) } / weight
        return OffsetEstimate(meanFeet: mean, sigmaFeet: (1 / weight).squareRoot())
    }

    /// The atmosphere's prior at a position and time: the climatology, moved by the host's ISA deviation when there is
    /// one (the hint sets the anomaly at the level; the climatology the column's shape); without a position, ISA with
    /// the QNH (or 1013.25 hPa) and `isaSigmaCelsius` (or the hint).
    package static func atmospherePrior(
        latitudeDegrees: Double?, unixSeconds: Double, mslFeet: Double, qnhHectopascals: Double?, isaSigmaCelsius: Double,
        qnhSigmaHectopascals: Double, temperature: FlightLevelHints.Temperature?, at t: Double
    ) -> OffsetEstimate {
        let hint = temperature.map { hint in
            (hint.isaDeviationCelsius, (hint.sigmaCelsius * hint.sigmaCelsius + pow(0.25 * max(0, t - hint.t) / 3_600, 2)).squareRoot())
        }
        guard let latitudeDegrees else {
            let qnhFeet = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: qnhHectopascals ?? 1013.25)
            let perDegree = AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, mslFeet + qnhFeet))
            let qnh = 27.3 * (qnhHectopascals == nil ? qnhSigmaHectopascals : 0.3)
            let temperature = perDegree * (hint?.1 ?? isaSigmaCelsius)
            return OffsetEstimate(meanFeet: -qnhFeet + perDegree * (hint?.0 ?? 0), sigmaFeet: (temperature * temperature + qnh * qnh).squareRoot())
        }
        let climate = AtmosphereClimatology.offset(latitudeDegrees: latitudeDegrees, unixSeconds: unixSeconds, mslFeet: mslFeet,
                                                   qnhHectopascals: qnhHectopascals)
        let own = OffsetEstimate(meanFeet: climate.meanFeet, sigmaFeet: climate.sigmaFeet)
        guard let hint else { return own }
        // The hint as a column-uniform ISA deviation (the 4 ft per 1,000 ft per °C rule), with the error of that
        // assumption where the climatology's column is not uniform (its column-equivalent deviation against its
        // deviation at the level) and 1.5 °C more; then combined with the climatology as a second estimate.
        let perDegree = AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, mslFeet - climate.meanFeet))
        let surface = AtmosphereClimatology.offset(latitudeDegrees: latitudeDegrees, unixSeconds: unixSeconds, mslFeet: 0,
                                                   qnhHectopascals: qnhHectopascals).meanFeet
        let shape = (climate.meanFeet - surface) / perDegree - climate.isaDeviationCelsius
        let temperature = perDegree * (hint.1 * hint.1 + shape * shape + 1.5 * 1.5).squareRoot()
        let pressure = 27.3 * (qnhHectopascals == nil ? AtmosphereClimatology.surfacePressureSigmaHectopascals(latitudeDegrees: latitudeDegrees) : 0.3)
        let uniform = OffsetEstimate(meanFeet: surface + perDegree * hint.0, sigmaFeet: (temperature * temperature + pressure * pressure).squareRoot())
        return OffsetEstimate.combined([own, uniform]) ?? own
    }
}

/// Chooses the flight level a level aircraft holds when its altitude comes from GNSS (docs/altitude.md
/// "Flight-level inference"): Bayes over the candidate levels with the offset's distribution as the likelihood and
/// the semicircular rule, the host's cleared and planned levels and continuity as the prior. Remembers the offset the
/// level showed (with every candidate's when the choice was unsure), for the climbs, descents and levels that follow.
/// Pure.
package struct FlightLevelInference: Sendable {
    /// The settings.
    package var configuration: FlightLevelInferenceConfiguration
    private var quietSince = Double.nan
    private var fastSince = Double.nan
    private var segmentStart = Double.nan
    private var gnssSum = 0.0
    private var gnssCount = 0.0
    private var chosenFeet = Double.nan
    /// Whether the current segment has made a confident choice (then only confident ones are remembered: a segment's
    /// last seconds, as the aircraft starts to leave the level, must not spoil what it showed).
    private var segmentConfident = false
    /// What a level segment showed: the offset its chosen level implies (`offset`, at `pressureFeet`, the level), the
    /// choice's probability, every candidate level with its probability (`levels`), and the σ of the atmosphere's prior
    /// it was weighed against (`priorSigmaFeet`).
    private struct Remembered {
        var offset: OffsetEstimate
        var t: Double
        var pressureFeet: Double
        var latitude: Double?
        var longitude: Double?
        var probability = 1.0
        var levels: [(levelFeet: Double, probability: Double)] = []
        var priorSigmaFeet = Double.infinity
    }
    /// The offset the latest level showed.
    private var learned: Remembered?
    /// The one remembered when the current segment began (this segment's own evidence must not count twice).
    private var carried: Remembered?

    /// An inference with no segment yet.
    package init(configuration: FlightLevelInferenceConfiguration) { self.configuration = configuration }

    /// Ends the current level segment (not level, or not a GNSS-derived altitude).
    package mutating func leaveLevel() {
        quietSince = .nan; fastSince = .nan; segmentStart = .nan; gnssSum = 0; gnssCount = 0; chosenFeet = .nan
        segmentConfident = false
    }

    /// One fix: the choice when the aircraft is level, nil otherwise. `offset` is the offset's distribution without
    /// the remembered one (this segment's own evidence must not count twice).
    package mutating func update(
        t: Double, gnssFeet: Double, gnssSigmaFeet: Double, gnssCorrelationSeconds: Double, verticalSpeedFeetPerMinute: Double,
        trackDegrees: Double?, latitudeDegrees: Double?, longitudeDegrees: Double?, offset: OffsetEstimate, hints: FlightLevelHints
    ) -> FlightLevelChoice? {
        let c = configuration
        let rate = abs(verticalSpeedFeetPerMinute)
        guard offset.sigmaFeet >= c.preciseOffsetSigmaFeet else { leaveLevel(); return nil }
        if segmentStart.isFinite {
            fastSince = rate > c.leaveRateFeetPerMinute ? (fastSince.isFinite ? fastSince : t) : .nan
            if t - fastSince >= c.leaveSeconds || abs(gnssFeet - gnssSum / gnssCount) > c.leaveFeet { leaveLevel() }
        }
        if !segmentStart.isFinite {
            guard rate < c.levelRateFeetPerMinute else { quietSince = .nan; return nil }
            if !quietSince.isFinite { quietSince = t }
            guard t - quietSince >= c.levelSeconds else { return nil }
            segmentStart = t
            carried = learned
        }
        gnssSum += gnssFeet
        gnssCount += 1
        let mean = gnssSum / gnssCount
        // The GNSS error is Gauss–Markov: a mean over T keeps τ/(τ + T) of its variance.
        let span = t - segmentStart
        let gnss = gnssSigmaFeet * (gnssCorrelationSeconds / (gnssCorrelationSeconds + span)).squareRoot()
        // The offset's distribution: the atmosphere's (and the fleet's), with what the previous level showed.
        let components = carriedComponents(carried, to: t, gnssFeet: mean, offset: offset, latitudeDegrees: latitudeDegrees,
                                           longitudeDegrees: longitudeDegrees)
        let prior = components.max { $0.1 < $1.1 }?.0 ?? offset
        guard mean - prior.meanFeet >= c.floorFeet - 500 else { return nil }
        let weight = Self.semicircularWeight(c.semicircularWeight, trackDegrees: trackDegrees,
                                             latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
        let spread = gnss * gnss + c.keepingSigmaFeet * c.keepingSigmaFeet
        let offsets = components.map {
            (OffsetEstimate(meanFeet: $0.0.meanFeet, sigmaFeet: ($0.0.sigmaFeet * $0.0.sigmaFeet + spread).squareRoot()), $0.1)
        }
        let posterior = Self.posterior(
            gnssMeanFeet: mean, offsets: offsets,
            floorFeet: c.floorFeet, prior: { level in
                var factor = weight > 0 && trackDegrees != nil
                    ? (Self.conforms(levelFeet: level, trackDegrees: trackDegrees ?? 0) ? 1 : 1 - weight) : 1
                if let cleared = hints.clearedLevelFeet(at: t), abs(cleared - level) < 1 { factor *= c.clearedLevelFactor }
                if hints.plannedLevelsFeet.contains(where: { abs($0 - level) < 1 }) { factor *= c.plannedLevelFactor }
                return factor
            })
        // Continuity is hysteresis: the previous fix's level stays chosen unless another is `continuityFactor` times
        // likelier; the probability reported is the evidence's, not raised by having chosen it before.
        guard let best = posterior.max(by: {
            $0.probability * (abs($0.levelFeet - chosenFeet) < 1 ? c.continuityFactor : 1)
                < $1.probability * (abs($1.levelFeet - chosenFeet) < 1 ? c.continuityFactor : 1)
        }) else { return nil }
        chosenFeet = best.levelFeet
        let choice = FlightLevelChoice(levelFeet: best.levelFeet, probability: best.probability,
                                       uncertainty: Self.bounds(posterior, chosenFeet: best.levelFeet, keepingSigmaFeet: c.keepingSigmaFeet))
        let confident = best.probability >= c.confidentProbability
        guard confident || !segmentConfident else { return choice }
        segmentConfident = confident
        learned = Remembered(offset: OffsetEstimate(meanFeet: mean - best.levelFeet, sigmaFeet: spread.squareRoot()), t: t,
                             pressureFeet: best.levelFeet, latitude: latitudeDegrees, longitude: longitudeDegrees,
                             probability: best.probability,
                             levels: Self.posterior(gnssMeanFeet: mean, offsets: offsets, floorFeet: c.floorFeet) { _ in 1 }.filter { $0.probability >= 1e-3 },
                             priorSigmaFeet: offset.sigmaFeet)
        return choice
    }

    /// The offset's distribution as mixture components (offset, weight): `offset` alone without a previous level; after
    /// a confident one, its offset carried to `t` combined with `offset` (one Gaussian); after an unsure one
    /// (P < `confidentProbability`), every candidate level's offset carried to `t`, weighted by the probability the
    /// offset's distribution alone gave it — those already weighed the atmosphere's prior, so it is not weighed again
    /// (repeated at every level it would pull the choice a little further each time), and the level priors (rule,
    /// hints, continuity) are applied afresh at each level. An unsure one is dropped when the prior has since become
    /// much sharper (a host hint, a fleet offset): that is new evidence its probabilities never saw.
    private func carriedComponents(_ remembered: Remembered?, to t: Double, gnssFeet: Double, offset: OffsetEstimate,
                                   latitudeDegrees: Double?, longitudeDegrees: Double?) -> [(offset: OffsetEstimate, weight: Double)] {
        guard let remembered else { return [(offset, 1)] }
        let unsure = remembered.probability < configuration.confidentProbability
        if superseded(remembered, prior: offset, pressureFeet: gnssFeet - remembered.offset.meanFeet) { return [(offset, 1)] }
        guard unsure else {
            let carried = Self.carry(remembered, to: t, pressureFeet: gnssFeet - remembered.offset.meanFeet, latitudeDegrees: latitudeDegrees,
                                     longitudeDegrees: longitudeDegrees)
            return [(OffsetEstimate.combined([offset] + [carried].compactMap { $0 }) ?? offset, 1)]
        }
        let levels = remembered.levels
        let shown = remembered.offset.meanFeet + remembered.pressureFeet   // the segment's mean GNSS altitude
        return levels.compactMap { level in
            var one = remembered
            one.offset.meanFeet = shown - level.levelFeet
            one.pressureFeet = level.levelFeet
            return Self.carry(one, to: t, pressureFeet: gnssFeet - one.offset.meanFeet, latitudeDegrees: latitudeDegrees,
                              longitudeDegrees: longitudeDegrees).map { ($0, level.probability) }
        }
    }

    /// The offset a confident level showed, carried to `t`, `pressureFeet` and the position: scaled with the height
    /// (∝ ∫ dh/T_ISA), its σ grown by 3 °C of column shape over the height change, 0.25 °C an hour and 1 °C per
    /// 200 km (synoptic temperature gradients at cruise levels). Nil before a confident level.
    /// Nil too when an unsure one has given way to a sharper `prior` (`unsureBounds`).
    package func learnedOffset(at t: Double, pressureFeet: Double, prior: OffsetEstimate, latitudeDegrees: Double?,
                               longitudeDegrees: Double?) -> OffsetEstimate? {
        guard let learned, !superseded(learned, prior: prior, pressureFeet: pressureFeet) else { return nil }
        return Self.carry(learned, to: t, pressureFeet: pressureFeet, latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
    }

    /// After an unsure level (P < `confidentProbability`), the 68/90 % bounds of a pressure altitude taken with its
    /// chosen level's offset (`learnedOffset`), whose Gaussian part has 1σ `sigmaFeet`: the other candidates' offsets
    /// are as far off as their levels. Nil after a confident level or none, or when the atmosphere's prior `offset` has
    /// since become much sharper than the one the level was weighed against (the same rule as for carrying it) at
    /// `pressureFeet`, the altitude now.
    package func unsureBounds(sigmaFeet: Double, offset: OffsetEstimate, pressureFeet: Double) -> Uncertainty? {
        guard let learned, learned.probability < configuration.confidentProbability,
              !superseded(learned, prior: offset, pressureFeet: pressureFeet) else { return nil }
        return Self.bounds(learned.levels, chosenFeet: learned.pressureFeet, keepingSigmaFeet: sigmaFeet)
    }

    /// Whether an unsure remembered level has given way to new evidence: the atmosphere's prior `offset` at
    /// `pressureFeet` is much sharper (< 0.8×) than the one its probabilities were weighed against, once that one is
    /// scaled to the same height — the spread of offsets grows with height, so a descent alone must not count as
    /// evidence (it did: a descent from an unsure FL350 dropped the mixture at FL280 and kept the chosen level's
    /// offset, 2,000 ft off, with a 200-ft bound).
    private func superseded(_ remembered: Remembered, prior offset: OffsetEstimate, pressureFeet: Double) -> Bool {
        guard remembered.probability < configuration.confidentProbability else { return false }
        let scale = AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, pressureFeet))
            / AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, remembered.pressureFeet))
        return offset.sigmaFeet < 0.8 * remembered.priorSigmaFeet * scale
    }

    private static func carry(_ learned: Remembered, to t: Double, pressureFeet: Double, latitudeDegrees: Double?,
                              longitudeDegrees: Double?) -> OffsetEstimate? {
        let before = AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, learned.pressureFeet))
        let now = AtmosphereClimatology.offsetFeetPerCelsius(pressureAltitudeFeet: max(1_000, pressureFeet))
        var kilometres = 0.0
        if let a = learned.latitude, let b = learned.longitude, let c = latitudeDegrees, let d = longitudeDegrees {
            kilometres = distanceKilometres(a, b, c, d)
        }
        let celsius = 0.25 * max(0, t - learned.t) / 3_600 + kilometres / 200
        let shape = 0.004 * abs(pressureFeet - learned.pressureFeet) * 3
        let sigma = (learned.offset.sigmaFeet * learned.offset.sigmaFeet + shape * shape + pow(now * celsius, 2)).squareRoot()
        return OffsetEstimate(meanFeet: learned.offset.meanFeet * now / before, sigmaFeet: sigma)
    }

    /// Whether a level follows the semicircular rule (ICAO Annex 2, App. 3) for a track, degrees: odd thousands for
    /// 000–179°, even for 180–359°; above FL410 every 2,000 ft (FL450, 490, … eastbound; FL430, 470, … westbound).
    package static func conforms(levelFeet: Double, trackDegrees: Double) -> Bool {
        let level = Int((levelFeet / 1_000).rounded())
        let eastbound = (trackDegrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) < 180
        if level > 41 { return (level - 41) % 4 == (eastbound ? 0 : 2) }
        return (level % 2 == 1) == eastbound
    }

    /// The semicircular rule's weight at a position and track: 0 where the rule does not hold or cannot be told —
    /// the North Atlantic organised tracks (40–70° N, 60–10° W: both directions at all levels), metric-level
    /// airspace (China: 18–53° N, 73–135° E, a coarse box), and tracks within 20° of north or south (Eddy has true
    /// track; the rule is on magnetic track, and the declination reaches ±20° on airline routes).
    package static func semicircularWeight(_ weight: Double, trackDegrees: Double?, latitudeDegrees: Double?, longitudeDegrees: Double?) -> Double {
        guard let trackDegrees, trackDegrees.isFinite else { return 0 }
        let track = (trackDegrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        if min(track, abs(track - 180), 360 - track) < 20 { return 0 }
        if let lat = latitudeDegrees, let lon = longitudeDegrees {
            if lat >= 40, lat <= 70, lon >= -60, lon <= -10 { return 0 }
            if lat >= 18, lat <= 53, lon >= 73, lon <= 135 { return 0 }
        }
        return min(1, max(0, weight))
    }

    /// Posterior probabilities of the flight levels (1,000-ft steps from `floorFeet` to 60,000 ft, within ±5σ of a
    /// component): the likelihood of the mean GNSS altitude for each level under the offset's mixture,
    /// Σ wᵢ N(gnss − level; meanᵢ, σᵢ), times `prior`.
    package static func posterior(gnssMeanFeet: Double, offsets: [(OffsetEstimate, Double)], floorFeet: Double, prior: (Double) -> Double)
        -> [(levelFeet: Double, probability: Double)] {
        let reaches = offsets.map { (gnssMeanFeet - $0.0.meanFeet - 5 * $0.0.sigmaFeet, gnssMeanFeet - $0.0.meanFeet + 5 * $0.0.sigmaFeet) }
        guard let lowest = reaches.map(\.0).min(), let highest = reaches.map(\.1).max() else { return [] }
        let low = max(floorFeet, (lowest / 1_000).rounded(.down) * 1_000)
        let high = min(60_000, (highest / 1_000).rounded(.up) * 1_000)
        guard low <= high else { return [] }
        var result: [(levelFeet: Double, probability: Double)] = []
        var level = (low / 1_000).rounded(.up) * 1_000
        while level <= high {
            var likelihood = 0.0
            for (offset, weight) in offsets {
                let z = (gnssMeanFeet - offset.meanFeet - level) / offset.sigmaFeet
                likelihood += weight * exp(-z * z / 2) / offset.sigmaFeet
            }
            result.append((level, likelihood * prior(level)))
            level += 1_000
        }
        let total = result.reduce(0) { $0 + $1.probability }
        guard total > 0 else { return [] }
        return result.map { ($0.levelFeet, $0.probability / total) }
    }

    /// 68/90 % half-widths about the chosen level: the nearest candidate distance at which the candidates' probability
    /// adds up to the level, plus the keeping error's own half-width.
    package static func bounds(_ posterior: [(levelFeet: Double, probability: Double)], chosenFeet: Double, keepingSigmaFeet: Double) -> Uncertainty {
        let byDistance = posterior.map { (abs($0.levelFeet - chosenFeet), $0.probability) }.sorted { $0.0 < $1.0 }
        func distance(_ quantile: Double) -> Double {
            var sum = 0.0
            for (d, p) in byDistance {
                sum += p
                if sum >= quantile - 1e-12 { return d }
            }
            return byDistance.last?.0 ?? 0
        }
        let keeping = Uncertainty(gaussianSigma: keepingSigmaFeet)
        return Uncertainty(u68: distance(0.68) + keeping.u68, u90: distance(0.90) + keeping.u90)
    }

    /// Great-circle distance, km (spherical Earth, R = 6,371 km).
    static func distanceKilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let a = pow(sin((lat2 - lat1) * r / 2), 2) + cos(lat1 * r) * cos(lat2 * r) * pow(sin((lon2 - lon1) * r / 2), 2)
        return 2 * 6_371 * asin(min(1, a.squareRoot()))
    }
}
