import EddyH3
package import EddyVocabulary
import Foundation

/// Settings of the altitude estimator; every default is explained in docs/altitude.md.
package struct AltitudeConfiguration: Sendable, Equatable {
    /// Cabin pressurisation forced by the host; nil detects it (`CabinDetector`).
    package var cabin: CabinPressurization?
    /// What the aircraft class suggests before evidence: the barometer is used for the layer before the cabin is
    /// decided only when this is `.unpressurized` and the barometer agrees with GNSS (level test bound).
    package var classPrior: CabinPressurization
    /// QNH the host knows (ATIS / METAR), hPa; nil = unknown.
    package var qnhHectopascals: Double?
    /// 1σ of phone GNSS altitude, metres: time-correlated, and not shown by the reported vertical accuracy
    /// (research note §3: ≈ 50 m swings with the device still).
    package var gnssVerticalSigmaMeters = 12.5
    /// Correlation time of the GNSS altitude error, seconds.
    package var gnssVerticalCorrelationSeconds = 90.0
    /// 1σ of the ISA deviation when nothing is known (climatology, troposphere), °C.
    package var isaDeviationSigmaCelsius = 10.0
    /// 1σ of QNH when nothing is known (climatology), hPa.
    package var qnhSigmaHectopascals = 12.0
    /// Absolute accuracy of an uncalibrated barometer, hPa: the bound of a uniform error (BMP280: ±1 hPa).
    package var barometerAccuracyHectopascals = 1.0
    /// Resolution of external pressure altitude, feet (ADS-B: 25 ft; 100 ft Gillham values are detected).
    package var externalQuantumFeet = 25.0
    /// How long an external pressure altitude stays in use, seconds.
    package var externalFreshSeconds = 10.0
    /// Band around a flight level that counts as "level at it", feet.
    package var flightLevelBandFeet = 150.0
    /// How long the aircraft must stay in the band before its layer is the flight level's, seconds.
    package var flightLevelHoldSeconds = 10.0
    /// Distance from the held flight level that releases the hold, feet.
    package var flightLevelReleaseFeet = 250.0
    /// Largest spread of the altitude over the hold time that still counts as level, feet (GNSS-derived altitude
    /// noise stays within it over 10 s).
    package var flightLevelSpreadFeet = 80.0
    /// Vertical speed (tracked) from which the aircraft is not level: no hold starts, ft/min.
    package var flightLevelRateFeetPerMinute = 150.0
    /// Vertical speed (tracked) that, 30 ft or more off the held level, releases the hold (a climb or descent has
    /// begun), ft/min.
    package var flightLevelLeaveRateFeetPerMinute = 250.0
    /// Oldest fleet offset used, seconds.
    package var fleetOffsetMaxAgeSeconds = 3_600.0
    /// Time constant of the learned GNSS − pressure altitude offset, seconds.
    package var offsetTimeConstantSeconds = 120.0
    /// The flight-level inference's settings (a level aircraft on a GNSS-derived altitude).
    package var flightLevels = FlightLevelInferenceConfiguration()
    /// Whether a GNSS altitude's prior is the climatology for the position and date (docs/altitude.md "Climatology");
    /// false: ISA ± `isaDeviationSigmaCelsius` and QNH ± `qnhSigmaHectopascals`, a world without latitudes or seasons.
    package var climatology = true

    /// Defaults for an aircraft class (small: unpressurised prior).
    package init(aircraftClass: AircraftClass) {
        classPrior = aircraftClass == .small ? .unpressurized : .pressurized
    }
}

/// A consistency warning: something no plausible motion explains (the altitude-service reference's "high delta in
/// pressure" (836) and "high delta in location" (837)).
public struct ConsistencyWarning: Sendable, Equatable {
    /// What was seen.
    public enum Kind: Sendable, Equatable {
        /// Pressure changed by `hectopascals` in `seconds`: a door, a pressurisation change or a sensor fault.
        case pressureJump(hectopascals: Double, seconds: Double, impliedFeetPerMinute: Double)
        /// A fix moved `meters` in `seconds`: faster than any aircraft flies.
        case positionJump(meters: Double, seconds: Double)
        /// A reading was refused (non-finite, zero, negative or absurd): what is wrong and what to do. At most one
        /// per reason a minute.
        case invalidInput(String)
    }
    /// When, seconds (log time base; Unix epoch on the host's side).
    public var t: Double
    /// What.
    public var kind: Kind
    /// Creates a warning.
    public init(t: Double, kind: Kind) { self.t = t; self.kind = kind }
}

/// The aircraft's altitudes at one instant, each with 68 %/90 % uncertainty (core output; the engine adds HAE/HAT).
package struct AltitudeEstimate: Sendable, Equatable {
    /// Time, seconds (log time base).
    package var t: Double
    /// Position of the fix, degrees (nil when the fix had none usable).
    package var latitudeDegrees: Double?
    /// Position of the fix, degrees.
    package var longitudeDegrees: Double?
    /// Horizontal 68 %/90 % uncertainty of the position, metres (the position filter's; nil when not known).
    package var horizontalUncertaintyMeters: Uncertainty?
    /// Geoid undulation N at the position (HAE = MSL + N), metres; filled by the caller that has a geoid model.
    package var geoidUndulationMeters: Double?
    /// Height above terrain, metres; filled by the caller that has a terrain model.
    package var heightAboveTerrainMeters: Double?
    /// Cabin pressurisation as decided when the estimate was made.
    package var cabin: CabinPressurization = .unknown
    /// Best pressure altitude, feet (before the flight-level hold).
    package var pressureAltitudeFeet: Double
    /// Its uncertainty, feet.
    package var pressureAltitudeUncertaintyFeet: Uncertainty
    /// Where it came from.
    package var source: AltitudeSource
    /// Altitude above mean sea level (geoid), metres; nil without GNSS or QNH.
    package var mslMeters: Double?
    /// Its uncertainty, metres.
    package var mslUncertaintyMeters: Uncertainty?
    /// Vertical speed, feet per minute (positive up); nil until two values.
    package var verticalSpeedFeetPerMinute: Double?
    /// The 1,000-ft layer the aircraft reports in (flight-level hold applied).
    package var layer: Int
    /// The flight level held (feet), if the hold is active.
    package var heldFlightLevelFeet: Double?
    /// Whether the 90 % uncertainty reaches beyond `layer` (rule in docs/altitude.md "Layer").
    package var layerUncertain: Bool
    /// The probability of the flight level chosen by inference (nil: no level was inferred).
    package var flightLevelProbability: Double?
}

/// Fuses external pressure altitude, the barometer and GNSS altitude into pressure altitude and MSL altitude with
/// honest uncertainty; decides the cabin; calibrates the barometer; holds flight levels; warns of jumps.
///
/// Pure: time comes from the samples. Called by `DetectionPipeline` for every barometer sample and location fix.
package struct AltitudeEstimator: Sendable {
    package var configuration: AltitudeConfiguration
    package private(set) var cabin = CabinDetector()
    /// The calibration in use (nil: uncalibrated or stale — the engine decides staleness with the wall clock).
    package var calibration: BarometerCalibration?
    /// A background calibration finished since the host last took it (log time base in `calibratedAt`).
    package private(set) var pendingBackgroundCalibration: BarometerCalibration?
    /// Fleet offsets near the aircraft, as fetched (Unix times; `fleetClockOffsetSeconds` maps log time to Unix).
    package var fleetOffsets: [AltitudeOffsetCell] = []
    /// Unix time − log time, so fleet offsets' ages and the climatology's date can be computed (0 when the log is
    /// already in Unix time).
    package var fleetClockOffsetSeconds = 0.0
    /// What the host said about the flight's levels and air (times in the samples' base).
    package var flightLevelHints = FlightLevelHints()
    /// The flight-level inference (its remembered offset outlives a level segment).
    package private(set) var flightLevelInference: FlightLevelInference
    /// The latest estimate.
    package private(set) var current: AltitudeEstimate?
    /// Time of the latest usable barometer reading (−∞ before the first).
    package var lastBarometerTime: Double { baroTime }
    /// Time of the latest GNSS altitude (−∞ before the first).
    package var lastGNSSTime: Double { gnssTime }

    // Barometer.
    private var baroTime = -Double.infinity
    private var baroPressure = Double.nan
    private var baroHistory = PressureHistory()
    private var lastPressureWarning = -Double.infinity
    // External pressure altitude.
    private var externalTime = -Double.infinity
    private var externalFeet = Double.nan
    private var externalAllHundreds = true
    private var externalCount = 0
    private var externalChanges = 0
    private var externalFeetBefore = Double.nan
    // GNSS.
    private var gnssTime = -Double.infinity
    private var gnssFeet = Double.nan
    private var gnssSmoothedFeet = Double.nan
    private var gnssRateFeetPerSecond = 0.0
    // Learned offset (GNSS − pressure altitude), feet.
    private var offsetFeet = Double.nan
    private var offsetSince = Double.nan
    private var offsetTime = -Double.infinity
    // Background calibration accumulation.
    private var calibrationSum = 0.0
    private var calibrationWeight = 0.0
    private var lastCalibrationSample = -Double.infinity
    // Vertical speed tracker (α-β on the chosen source).
    private var trackSource: AltitudeSource?
    private var trackTime = Double.nan
    private var trackFeet = Double.nan
    private var trackRate = 0.0
    private var trackPrimed = false
    // Flight-level hold.
    private var candidateLevel = Double.nan
    private var candidateSince = Double.nan
    private var heldLevel = Double.nan
    private var candidateLow = Double.nan
    private var candidateHigh = Double.nan
    // Ground state (from fix speeds).
    private var airborne: Bool?
    private var location: (lat: Double, lon: Double)?
    private var courseDegrees: Double?

    /// Creates an estimator.
    package init(configuration: AltitudeConfiguration) {
        self.configuration = configuration
        flightLevelInference = FlightLevelInference(configuration: configuration.flightLevels)
        if let forced = configuration.cabin { cabin.force(forced, at: 0) }
    }

    // MARK: - Inputs

    /// Takes a barometer reading; returns a warning for a refused value or a pressure jump.
    package mutating func addBarometer(_ sample: BarometerSample) -> AltitudeInputOutcome {
        let p = sample.pressureHectopascals
        if let problem = BarometricAltitude.problem(pressureHectopascals: p) { return .refused(problem.description, key: problem.key) }
        guard sample.t.isFinite else { return .refused("barometer time is not a finite number", key: "time_not_finite") }
        var warning: ConsistencyWarning?
        // Jump test over ≥ 1.5 s: the implied vertical speed against what the aircraft (or its cabin) can do.
        if let (t0, p0) = baroHistory.reading(before: sample.t, ageFrom: 1.5, to: 5, newest: true) {
            let span = sample.t - t0
            let dp = p - p0
            let feetPerMinute = -dp * BarometricAltitude.feetPerHectopascal(pressureHectopascals: p) / span * 60
            let limit: Double = airborne == false ? 1_500 : (cabin.state == .pressurized ? 3_000 : 10_000)
            if abs(feetPerMinute) > limit, sample.t - lastPressureWarning > 30 {
                lastPressureWarning = sample.t
                warning = ConsistencyWarning(t: sample.t, kind: .pressureJump(hectopascals: dp, seconds: span, impliedFeetPerMinute: feetPerMinute))
            }
        }
        baroHistory.append(t: sample.t, pressure: p)
        baroTime = sample.t
        baroPressure = p
        return .accepted(warning)
    }

    /// Takes a location fix (after `LocationFusion`, so a fresh ADS-B pressure altitude is filled in) and computes the
    /// estimate at its time.
    package mutating func addFix(_ fix: LocationSample) -> AltitudeEstimate? {
        let t = fix.t
        guard t.isFinite else { return current }
        if fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite { location = (fix.latitudeDegrees, fix.longitudeDegrees) }
        courseDegrees = fix.courseDegrees.flatMap { $0.isFinite && $0 >= 0 && (fix.speedMetersPerSecond ?? 0) > 25 ? $0 : nil }
        if let speed = fix.speedMetersPerSecond, speed.isFinite, speed >= 0 {
            if speed > 25 { airborne = true } else if speed < 15 { airborne = false }
        }
        if let feet = fix.pressureAltitudeFeet, feet.isFinite, abs(feet) < 100_000 {
            externalTime = t
            externalFeet = feet
            externalCount += 1
            if feet.truncatingRemainder(dividingBy: 100) != 0 { externalAllHundreds = false }
            if feet != externalFeetBefore { externalChanges += 1; externalFeetBefore = feet }
        }
        if let meters = fix.altitudeMeters, meters.isFinite, abs(meters) < 30_000 {
            let feet = meters / 0.3048
            let dt = t - gnssTime
            // α-β tracker (level and rate): removes part of the white noise without lagging a climb, as a plain
            // low-pass would (τ = 5 s lags 180 ft at 2,200 ft/min).
            if gnssSmoothedFeet.isFinite, dt > 0, dt < 30 {
                let predicted = gnssSmoothedFeet + gnssRateFeetPerSecond * dt
                let residual = feet - predicted
                gnssSmoothedFeet = predicted + 0.5 * residual
                gnssRateFeetPerSecond += 0.15 * residual / dt
            } else {
                gnssSmoothedFeet = feet
                gnssRateFeetPerSecond = 0
            }
            gnssFeet = feet
            gnssTime = t
        }
        updateCabin(at: t)
        current = estimate(at: t)
        return current
    }

    /// Manual calibration from a known field elevation (feet above MSL) and QNH (hPa), on the ground and still.
    package mutating func calibrate(fieldElevationFeet: Double, qnhHectopascals: Double, at t: Double, groundSpeedMetersPerSecond: Double?) -> Result<BarometerCalibration, BarometerCalibrationFailure> {
        guard fieldElevationFeet.isFinite, fieldElevationFeet > -1_500, fieldElevationFeet < 20_000 else {
            return .failure(.invalidReference("field elevation \(fieldElevationFeet) ft is outside −1,500…20,000 ft"))
        }
        guard qnhHectopascals.isFinite, qnhHectopascals >= 900, qnhHectopascals <= 1_100 else {
            return .failure(.invalidReference("QNH \(qnhHectopascals) hPa is outside 900…1,100 hPa"))
        }
        if cabin.state == .pressurized { return .failure(.pressurizedCabin) }
        if let speed = groundSpeedMetersPerSecond, speed > 2 { return .failure(.moving(groundSpeedMetersPerSecond: speed)) }
        guard baroPressure.isFinite, t - baroTime <= 10 else { return .failure(.noPressure) }
        if let (t0, p0) = baroHistory.reading(before: baroTime, ageFrom: 1e-9, to: 10, newest: false) {
            let rate = abs(baroPressure - p0) / (baroTime - t0)
            if rate > 0.05 { return .failure(.pressureChangingTooFast(hectopascalsPerSecond: rate)) }
        }
        let expected = BarometricAltitude.pressureHectopascals(qnhAltitudeFeet: fieldElevationFeet, qnhHectopascals: qnhHectopascals)
        // QNH is published in whole hPa: a uniform ±0.5 hPa (σ 0.29) plus the barometer's noise.
        let result = BarometerCalibration(
            biasHectopascals: baroPressure - expected, uncertaintyHectopascals: 0.3, calibratedAt: t, method: .manual)
        calibration = result
        return .success(result)
    }

    /// Takes the finished background calibration, if any (the engine persists it).
    package mutating func takeBackgroundCalibration() -> BarometerCalibration? {
        defer { pendingBackgroundCalibration = nil }
        return pendingBackgroundCalibration
    }

    /// The observation this aircraft can share with the fleet: its learned GNSS − pressure altitude offset, when it
    /// has a pressure source of its own and GNSS for at least a minute.
    package func offsetObservation() -> AltitudeOffsetObservation? {
        guard let current, current.source == .external || current.source == .barometer, let location,
              offsetFeet.isFinite, current.t - offsetSince >= 60, current.t - gnssTime <= 5 else { return nil }
        return AltitudeOffsetObservation(
            time: current.t + fleetClockOffsetSeconds, latitudeDegrees: location.lat, longitudeDegrees: location.lon,
            pressureAltitudeFeet: current.pressureAltitudeFeet, offsetFeet: offsetFeet,
            uncertaintyFeet: learnedOffsetSigmaFeet(at: current.t))
    }

    // MARK: - Estimation

    private mutating func updateCabin(at t: Double) {
        guard configuration.cabin == nil, baroPressure.isFinite, t - baroTime <= 5 else { return }
        let baroFeet = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: baroPressure)
        let reference: Double
        if t - externalTime <= configuration.externalFreshSeconds { reference = externalFeet }
        else if t - gnssTime <= 5, gnssSmoothedFeet.isFinite { reference = gnssSmoothedFeet }
        else { return }
        cabin.update(t: t, barometricPressureAltitudeFeet: baroFeet, referenceAltitudeFeet: reference)
    }

    /// Whether the barometer may give the layer now.
    private func barometerUsable(at t: Double) -> Bool {
        guard baroPressure.isFinite, t - baroTime <= 5 else { return false }
        switch cabin.state {
        case .unpressurized: return true
        case .pressurized: return false
        case .unknown:
            guard configuration.classPrior == .unpressurized else { return false }
            // Before a decision, only while the barometer agrees with GNSS as well as an unpressurised cabin would.
            guard t - gnssTime <= 5, gnssSmoothedFeet.isFinite else { return false }
            let baroFeet = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: baroPressure)
            // Any real atmosphere: QNH 980…1045 hPa is ±900 ft, ISA ±25 °C is ±10 % of the height; a cabin near the
            // ground reads about the outside pressure anyway.
            return abs(gnssSmoothedFeet - baroFeet) < 1_200 + 0.12 * abs(gnssSmoothedFeet)
        }
    }

    private func gnssSigmaFeet() -> Double { configuration.gnssVerticalSigmaMeters / 0.3048 }

    /// 1σ of the learned offset: the GNSS error averaged by the offset's low-pass (Gauss–Markov through a first-order
    /// filter keeps τ_g / (τ_g + τ_f) of its variance) plus the pressure source's own error.
    private func learnedOffsetSigmaFeet(at t: Double) -> Double {
        let tg = configuration.gnssVerticalCorrelationSeconds
        let tf = min(configuration.offsetTimeConstantSeconds, max(1, t - offsetSince))
        let gnss = gnssSigmaFeet() * (tg / (tg + tf)).squareRoot()
        let source = current?.pressureAltitudeUncertaintyFeet.u68 ?? 0
        return (gnss * gnss + source * source).squareRoot()
    }

    private mutating func estimate(at t: Double) -> AltitudeEstimate? {
        var offsetWithoutLearned: OffsetEstimate?
        var pressureFeet: Double
        var uncertainty: Uncertainty
        var source: AltitudeSource
        let gnssFresh = t - gnssTime <= 5 && gnssSmoothedFeet.isFinite
        if t - externalTime <= configuration.externalFreshSeconds, externalFeet.isFinite {
            // 100-ft (Gillham / Mode C) values: every value a multiple of 100 over at least 5 changes.
            let quantum = externalChanges >= 5 && externalAllHundreds ? 100 : configuration.externalQuantumFeet
            let age = t - externalTime
            pressureFeet = externalFeet + trackRate * age
            uncertainty = Uncertainty(quantum: quantum, gaussianSigma: abs(trackRate) * age * 0.5)
            source = .external
        } else if barometerUsable(at: t) {
            let bias = calibration?.biasHectopascals ?? 0
            let p = baroPressure - bias
            pressureFeet = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: p)
            let feetPerHectopascal = BarometricAltitude.feetPerHectopascal(pressureHectopascals: p)
            // The reading may be up to a second older than the fix: carried forward with the tracked vertical speed.
            let age = max(0, min(5, t - baroTime))
            if trackSource == .barometer { pressureFeet += trackRate * age }
            if let calibration {
                let sigma = calibration.uncertaintyHectopascals * feetPerHectopascal
                uncertainty = Uncertainty(gaussianSigma: (sigma * sigma + 1).squareRoot())
            } else {
                // Uncalibrated: the stated absolute accuracy (BMP280 ±1 hPa) as a uniform error, plus reading noise.
                uncertainty = Uncertainty(quantum: 2 * configuration.barometerAccuracyHectopascals * feetPerHectopascal,
                                          gaussianSigma: (1 + pow(0.5 * trackRate * age, 2)).squareRoot())
            }
            source = .barometer
        } else if gnssFresh {
            // The offset's distribution: the atmosphere (climatology, or the host's ISA deviation), the fleet's, and
            // the one a confident flight level showed (docs/altitude.md "Flight-level inference").
            let fleet = fleetOffset(mslFeet: gnssSmoothedFeet, at: t).map { OffsetEstimate(meanFeet: $0.offsetFeet, sigmaFeet: $0.sigmaFeet) }
            let sources = [atmospherePrior(at: t), fleet].compactMap { $0 }
            let rough = OffsetEstimate.combined(sources) ?? sources[0]
            let learned = flightLevelInference.learnedOffset(at: t, pressureFeet: gnssSmoothedFeet - rough.meanFeet, prior: rough,
                                                             latitudeDegrees: location?.lat, longitudeDegrees: location?.lon)
            offsetWithoutLearned = rough
            let offset = OffsetEstimate.combined(sources + [learned].compactMap { $0 }) ?? rough
            pressureFeet = gnssSmoothedFeet - offset.meanFeet
            let gnss = gnssSigmaFeet(), sigma = (gnss * gnss + offset.sigmaFeet * offset.sigmaFeet).squareRoot()
            // After an unsure level its chosen level's offset is the likeliest, and the others as far off as their levels.
            uncertainty = flightLevelInference.unsureBounds(sigmaFeet: sigma, offset: rough, pressureFeet: pressureFeet)
                ?? Uncertainty(gaussianSigma: sigma)
            source = fleet == nil ? .gnssStandardAtmosphere : .gnssFleetOffset
        } else {
            return nil
        }
        trackVerticalSpeed(feet: pressureFeet, source: source, at: t)
        learnOffset(pressureFeet: pressureFeet, source: source, at: t, gnssFresh: gnssFresh)
        backgroundCalibration(pressureFeet: pressureFeet, uncertainty: uncertainty, source: source, at: t)
        // MSL: pressure source + learned offset when it exists, else GNSS, else the QNH altitude.
        var msl: Double?
        var mslUncertainty: Uncertainty?
        if source == .external || source == .barometer, offsetFeet.isFinite, t - offsetSince >= 30 {
            let sigma = (learnedOffsetSigmaFeet(at: t) * learnedOffsetSigmaFeet(at: t)
                + pow(uncertainty.u68, 2)).squareRoot() * 0.3048
            msl = (pressureFeet + offsetFeet) * 0.3048
            mslUncertainty = Uncertainty(gaussianSigma: sigma)
        } else if gnssFresh {
            msl = gnssSmoothedFeet * 0.3048
            mslUncertainty = Uncertainty(gaussianSigma: configuration.gnssVerticalSigmaMeters)
        } else if let qnh = configuration.qnhHectopascals {
            let qnhFeet = BarometricAltitude.pressureAltitudeFeet(pressureHectopascals: qnh)
            msl = (pressureFeet - qnhFeet) * 0.3048
            // The QNH altitude is off by the ISA deviation's term (≈ 4 ft per 1,000 ft per °C).
            let temperature = 0.004 * abs(pressureFeet - qnhFeet) * configuration.isaDeviationSigmaCelsius
            let sigmaFeet = (uncertainty.u68 * uncertainty.u68 + temperature * temperature).squareRoot()
            mslUncertainty = Uncertainty(gaussianSigma: sigmaFeet * 0.3048)
        }
        var probability: Double?
        var (layer, held) = flightLevelLayer(pressureFeet: pressureFeet, at: t)
        let uncertain: Bool
        if let choice = inferFlightLevel(offset: offsetWithoutLearned, at: t) {
            pressureFeet = choice.levelFeet
            uncertainty = choice.uncertainty
            (layer, held) = (TileID.layer(altitudeFeet: choice.levelFeet), choice.levelFeet)
            uncertain = choice.probability < configuration.flightLevels.confidentProbability
            probability = choice.probability
        } else if let held {
            uncertain = uncertainty.u90 >= 500 || abs(pressureFeet - held) + uncertainty.u90 >= 500
        } else {
            let bottom = Double(layer) * 1000
            uncertain = pressureFeet - uncertainty.u90 < bottom || pressureFeet + uncertainty.u90 >= bottom + 1000
        }
        return AltitudeEstimate(
            t: t, latitudeDegrees: location?.lat, longitudeDegrees: location?.lon, cabin: cabin.state,
            pressureAltitudeFeet: pressureFeet, pressureAltitudeUncertaintyFeet: uncertainty, source: source,
            mslMeters: msl, mslUncertaintyMeters: mslUncertainty,
            verticalSpeedFeetPerMinute: trackPrimed ? trackRate * 60 : nil, layer: layer,
            heldFlightLevelFeet: held, layerUncertain: uncertain, flightLevelProbability: probability)
    }

    /// The atmosphere's offset prior here and now (climatology at the position and date; ISA without a position).
    private func atmospherePrior(at t: Double) -> OffsetEstimate {
        OffsetEstimate.atmospherePrior(
            latitudeDegrees: configuration.climatology ? location?.lat : nil, unixSeconds: t + fleetClockOffsetSeconds, mslFeet: gnssSmoothedFeet,
            qnhHectopascals: configuration.qnhHectopascals, isaSigmaCelsius: configuration.isaDeviationSigmaCelsius,
            qnhSigmaHectopascals: configuration.qnhSigmaHectopascals, temperature: flightLevelHints.temperature, at: t)
    }

    /// The flight level a level aircraft holds, when its altitude is GNSS-derived in a pressurised aircraft (its class,
    /// or its decided cabin) and inference is on; the segment ends otherwise.
    private mutating func inferFlightLevel(offset: OffsetEstimate?, at t: Double) -> FlightLevelChoice? {
        guard let offset, configuration.flightLevels.enabled, cabin.state == .pressurized
                || (cabin.state == .unknown && configuration.classPrior == .pressurized) else {
            flightLevelInference.leaveLevel()
            return nil
        }
        return flightLevelInference.update(
            t: t, gnssFeet: gnssSmoothedFeet, gnssSigmaFeet: gnssSigmaFeet(),
            gnssCorrelationSeconds: configuration.gnssVerticalCorrelationSeconds, verticalSpeedFeetPerMinute: trackRate * 60,
            trackDegrees: courseDegrees, latitudeDegrees: location?.lat, longitudeDegrees: location?.lon, offset: offset,
            hints: flightLevelHints)
    }

    /// The fleet's offset at the aircraft's altitude (docs/altitude.md "Fleet altitude assistance"): per layer, the
    /// freshest-best cell among the aircraft's res-3 cell (preferred) and its neighbours; linear interpolation between
    /// the layers around the altitude, else the nearest layer within 2,500 ft with the extrapolation's error added.
    /// 1σ grows with age and with distance (offset drift ≈ 4 ft per 1,000 ft per °C; ~0.25 °C per hour — a few °C a
    /// day at a level — and ~1 °C per neighbouring res-3 cell).
    private func fleetOffset(mslFeet: Double, at t: Double) -> (offsetFeet: Double, sigmaFeet: Double)? {
        guard !fleetOffsets.isEmpty, let location,
              let here = try? H3.latLngToCell(latitude: location.lat, longitude: location.lon, resolution: AltitudeOffsetCell.h3Resolution),
              let nearby = try? H3.gridDisk(here, k: 1)
        else { return nil }
        let now = t + fleetClockOffsetSeconds
        let heightScale = 0.004 * max(1_000, abs(mslFeet))   // feet of offset per °C at this height
        let driftCelsiusPerHour = 0.25   // synoptic change of temperature at a level: a few °C a day
        var layers: [(layer: Int, offset: Double, sigma: Double)] = []
        for cell in fleetOffsets where nearby.contains(where: { $0.rawValue == cell.h3 }) {
            let age = now - cell.newestTime
            // A cell outside what the server accepts in an upload (|offset| ≤ 5,000 ft, σ ≤ 10,000 ft) is not an
            // atmosphere: ignored (a 1e300 offset would otherwise make a layer no Int holds).
            guard age >= -300, age <= configuration.fleetOffsetMaxAgeSeconds, abs(cell.offsetFeet) <= AltitudeOffsetCell.maximumOffsetFeet,
                  cell.uncertaintyFeet >= 0, cell.uncertaintyFeet <= AltitudeOffsetCell.maximumUncertaintyFeet else { continue }
            let drift = heightScale * driftCelsiusPerHour * max(0, age) / 3600
            let distance = cell.h3 == here.rawValue ? 0 : heightScale
            let sigma = (cell.uncertaintyFeet * cell.uncertaintyFeet + drift * drift + distance * distance).squareRoot()
            if let i = layers.firstIndex(where: { $0.layer == cell.layer }) {
                if sigma < layers[i].sigma { layers[i] = (cell.layer, cell.offsetFeet, sigma) }
            } else {
                layers.append((cell.layer, cell.offsetFeet, sigma))
            }
        }
        guard !layers.isEmpty else { return nil }
        func value(at pressureFeet: Double) -> (Double, Double)? {
            let below = layers.filter { Double($0.layer) * 1000 + 500 <= pressureFeet }.max { $0.layer < $1.layer }
            let above = layers.filter { Double($0.layer) * 1000 + 500 > pressureFeet }.min { $0.layer < $1.layer }
            if let below, let above, above.layer - below.layer <= 2 {
                let c0 = Double(below.layer) * 1000 + 500, c1 = Double(above.layer) * 1000 + 500
                let w = (pressureFeet - c0) / (c1 - c0)
                // Errors of different layers come from different aircraft: independent, so they add in quadrature.
                let sigma = ((1 - w) * (1 - w) * below.sigma * below.sigma + w * w * above.sigma * above.sigma).squareRoot()
                return (below.offset + w * (above.offset - below.offset), sigma)
            }
            let nearest = [below, above].compactMap { $0 }.min {
                abs(Double($0.layer) * 1000 + 500 - pressureFeet) < abs(Double($1.layer) * 1000 + 500 - pressureFeet)
            }
            guard let nearest else { return nil }
            let gap = abs(Double(nearest.layer) * 1000 + 500 - pressureFeet)
            guard gap <= 2_500 else { return nil }
            let extrapolation = 0.004 * gap * configuration.isaDeviationSigmaCelsius
            return (nearest.offset, (nearest.sigma * nearest.sigma + extrapolation * extrapolation).squareRoot())
        }
        // The layer depends on the offset: start from the MSL altitude, refine once.
        guard let first = value(at: mslFeet) else { return nil }
        return value(at: mslFeet - first.0) ?? first
    }

    private mutating func trackVerticalSpeed(feet: Double, source: AltitudeSource, at t: Double) {
        guard source == trackSource, trackTime.isFinite, t > trackTime, t - trackTime < 30 else {
            trackSource = source; trackTime = t; trackFeet = feet; trackRate = 0; trackPrimed = false
            return
        }
        let dt = t - trackTime
        // α-β tracker; gains by source noise: the GNSS-derived altitude is smoothed harder.
        let (alpha, beta): (Double, Double) = source == .barometer ? (0.5, 0.15) : source == .external ? (0.4, 0.1) : (0.2, 0.02)
        let predicted = trackFeet + trackRate * dt
        let residual = feet - predicted
        trackFeet = predicted + alpha * residual
        trackRate += beta * residual / dt
        trackTime = t
        trackPrimed = true
    }

    private mutating func learnOffset(pressureFeet: Double, source: AltitudeSource, at t: Double, gnssFresh: Bool) {
        guard source == .external || source == .barometer, gnssFresh, t - gnssTime <= 1 else { return }
        let sample = gnssFeet - pressureFeet
        if !offsetFeet.isFinite || t - offsetTime > 120 {
            offsetFeet = sample
            offsetSince = t
        } else {
            let dt = max(0, t - offsetTime)
            let tau = min(configuration.offsetTimeConstantSeconds, max(1, t - offsetSince))
            offsetFeet += (sample - offsetFeet) * (dt / (tau + dt))
        }
        offsetTime = t
    }

    /// Background calibration against a fresh external pressure altitude while the barometer reads outside air:
    /// one sample per 10 s (the external value's quantisation is independent between samples), inverse-variance mean;
    /// done when its σ is below 0.15 hPa.
    private mutating func backgroundCalibration(pressureFeet: Double, uncertainty: Uncertainty, source: AltitudeSource, at t: Double) {
        guard source == .external, cabin.state == .unpressurized, baroPressure.isFinite, t - baroTime <= 1,
              t - lastCalibrationSample >= 10 else { return }
        lastCalibrationSample = t
        let truePressure = BarometricAltitude.pressureHectopascals(pressureAltitudeFeet: externalFeet)
        let sigma = uncertainty.u68 / BarometricAltitude.feetPerHectopascal(pressureHectopascals: truePressure)
        let weight = 1 / max(1e-6, sigma * sigma)
        calibrationSum += (baroPressure - truePressure) * weight
        calibrationWeight += weight
        let resultSigma = (1 / calibrationWeight).squareRoot()
        if resultSigma < 0.15, calibration.map({ resultSigma < $0.uncertaintyHectopascals * 0.8 }) ?? true {
            let result = BarometerCalibration(
                biasHectopascals: calibrationSum / calibrationWeight, uncertaintyHectopascals: resultSigma,
                calibratedAt: t, method: .background)
            calibration = result
            pendingBackgroundCalibration = result
        }
    }

    /// Layer with the flight-level hold: within ±band of a flight level for `flightLevelHoldSeconds` → that level's
    /// layer until the altitude leaves ±release.
    private mutating func flightLevelLayer(pressureFeet: Double, at t: Double) -> (Int, Double?) {
        let c = configuration
        let rate = abs(trackRate * 60)
        // Released by leaving the release band, or by moving off the level (a climb or descent under way).
        if heldLevel.isFinite, abs(pressureFeet - heldLevel) > c.flightLevelReleaseFeet
            || (abs(pressureFeet - heldLevel) > 30 && rate > c.flightLevelLeaveRateFeetPerMinute) { heldLevel = .nan }
        if !heldLevel.isFinite {
            let nearest = (pressureFeet / 1000).rounded() * 1000
            if abs(pressureFeet - nearest) <= c.flightLevelBandFeet {
                if candidateLevel != nearest {
                    candidateLevel = nearest; candidateSince = t; candidateLow = pressureFeet; candidateHigh = pressureFeet
                }
                candidateLow = min(candidateLow, pressureFeet)
                candidateHigh = max(candidateHigh, pressureFeet)
                // Level: in the band for the hold time, and not passing through it (the spread stays small).
                if t - candidateSince >= c.flightLevelHoldSeconds, candidateHigh - candidateLow <= c.flightLevelSpreadFeet,
                   rate < c.flightLevelRateFeetPerMinute { heldLevel = nearest }
                if candidateHigh - candidateLow > c.flightLevelSpreadFeet {
                    candidateSince = t; candidateLow = pressureFeet; candidateHigh = pressureFeet
                }
            } else {
                candidateLevel = .nan
            }
        }
        if heldLevel.isFinite { return (TileID.layer(altitudeFeet: heldLevel), heldLevel) }
        return (TileID.layer(altitudeFeet: pressureFeet), nil)
    }
}

/// What became of a barometer reading.
package enum AltitudeInputOutcome: Sendable, Equatable {
    /// Used; possibly with a consistency warning.
    case accepted(ConsistencyWarning?)
    /// Not usable: why (for the host), and the reason's key without its value (for rate limiting).
    case refused(String, key: String)
}
