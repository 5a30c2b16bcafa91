import EddyNavigation
import EddyVocabulary

/// Where the aircraft is, inside the engine: location fusion (device, external GPS, ADS-B), the one `Navigation`
/// (position filter and altitude estimator), the flight phase, and the host's altitude context. Pure; part of
/// `EngineCore`, which decides what the phase changes mean for the flight.
struct EngineNavigation: Sendable {
    private var fusion = LocationFusion()
    /// The one position filter and altitude estimator: it runs whether or not detection records (the host's altitude
    /// context, alerts, uploads), and detection takes each fix as it placed it.
    private(set) var navigation: Navigation
    private var phase: FlightPhaseTracker
    /// The latest position (after fusion and the position filter; the fix as received when the filter has no track).
    private(set) var lastFix: LocationSample?
    /// The latest altitude context (nil before the first fix with an altitude).
    private(set) var altitudeContext: AltitudeContext?
    private var deliveredAltitudeContext: AltitudeContext?
    private var lastAltitudeOffsetRequest = -Double.infinity

    /// Fleet offsets are read from the cache at most this often (engine time), seconds.
    static let altitudeOffsetRefreshSeconds = 60.0

    /// Navigation for `configuration`, flight phase with `phase`, no fix yet.
    init(configuration: NavigationConfiguration, phase: FlightPhaseConfiguration, barometerCalibration: BarometerCalibration?) {
        navigation = Navigation(configuration: configuration, barometerCalibration: barometerCalibration)
        self.phase = FlightPhaseTracker(configuration: phase)
    }

    /// Whether low power mode is on.
    var isLowPower: Bool { phase.isLowPower }
    /// The flight phase.
    var flightPhase: FlightPhase { phase.phase }
    /// The barometer calibration in use (nil: none).
    var barometerCalibration: BarometerCalibration? { navigation.barometerCalibration }

    /// Applies thresholds: flight phase and low power, the position filter's horizontal accuracy limit.
    mutating func apply(_ thresholds: EddyThresholds, to flightPhase: FlightPhaseConfiguration) {
        phase.configuration = thresholds.applied(to: flightPhase)
        navigation.setMaximumHorizontalAccuracyMeters(thresholds.maximumHorizontalAccuracyMeters)
    }

    /// Starts afresh (a demo starts or ends): fusion, position filter, phase and altitude; the calibration is kept.
    mutating func restart(configuration: NavigationConfiguration, phase phaseConfiguration: FlightPhaseConfiguration) {
        fusion = LocationFusion()
        let hints = navigation.flightLevelHints
        navigation = Navigation(configuration: configuration, barometerCalibration: navigation.barometerCalibration)
        navigation.flightLevelHints = hints
        phase = FlightPhaseTracker(configuration: phaseConfiguration)
        lastFix = nil
    }

    /// Another aircraft class: the altitude estimator restarts with the class's settings.
    mutating func restartAltitude(configuration: NavigationConfiguration) {
        navigation.restartAltitude(configuration: configuration.altitude)
    }

    // MARK: inputs

    /// Takes a barometer reading; its warning (a jump, or a refusal at most once per reason a minute) goes to the host.
    mutating func addBarometer(_ reading: BarometerSample, _ effects: inout [EngineEffect]) -> NavigatedPressure {
        let navigated = navigation.addBarometer(reading)
        if let warning = navigated.warning { effects.append(.callback(.didDetectInconsistency(warning))) }
        return navigated
    }

    /// What became of a received fix before the flight phase sees it.
    enum Placement {
        /// Not used: a refusal (the host is told), or a fix superseded by a better source.
        case notUsed
        /// A time navigation does not take (not finite, beyond ±10¹¹ s); the engine's time moves all the same.
        case ignored(at: Double)
        /// Placed: the engine's time moves to its time.
        case placed(PlacedFix)
    }

    /// Gates (vertical accuracy), fuses and places a fix; the latest position is the placed one.
    mutating func place(_ received: LocationSample, maximumVerticalAccuracyMeters: Double, _ effects: inout [EngineEffect]) -> Placement {
        var input = received
        // Vertical accuracy gate (a server-provided threshold): a GNSS altitude this uncertain is not used.
        if let vertical = input.verticalAccuracyMeters, vertical > maximumVerticalAccuracyMeters { input.altitudeMeters = nil }
        let fused: LocationSample
        switch fusion.process(input) {
        case .rejected(let reason): effects.append(.callback(.locationManagerDidFail(.invalidLocation(reason)))); return .notUsed
        case .superseded: return .notUsed
        case .use(let used): fused = used
        }
        guard let placed = navigation.place(fused) else { return .ignored(at: fused.t) }
        if let warning = placed.warning { effects.append(.callback(.didDetectInconsistency(warning))) }
        lastFix = placed.position
        return .placed(placed)
    }

    /// The flight phase's changes at a placed position.
    mutating func updatePhase(_ fix: LocationSample) -> [FlightPhaseChange] { phase.update(fix) }

    /// Leaves low power (a new flight); the change, if low power was on.
    mutating func leaveLowPower(at t: Double) -> FlightPhaseChange? { phase.leaveLowPower(at: t) }

    /// The altitude at a placed fix, and the host's side of it: background calibration persisted, fleet offsets asked
    /// for (with a server), the altitude context delivered on change.
    mutating func estimateAltitude(at placed: PlacedFix, hasServer: Bool, _ effects: inout [EngineEffect]) -> NavigatedFix {
        let navigated = navigation.estimateAltitude(at: placed)
        guard let estimate = navigated.altitude else { return navigated }
        let fix = placed.position
        if let background = navigation.takeBackgroundCalibration() {
            effects.append(.persist(.barometerCalibration(background)))
        }
        if hasServer, fix.t - lastAltitudeOffsetRequest >= Self.altitudeOffsetRefreshSeconds,
           fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite {
            lastAltitudeOffsetRequest = fix.t
            effects.append(.loadAltitudeOffsets(AltitudeOffsetRequest(
                latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                layer: max(-100, min(1000, estimate.layer)), maxAgeSeconds: navigation.altitudeConfiguration.fleetOffsetMaxAgeSeconds,
                now: fix.t)))
        }
        let context = altitudeContext(estimate)
        altitudeContext = context
        if Self.changedEnough(from: deliveredAltitudeContext, to: context) {
            deliveredAltitudeContext = context
            effects.append(.deliverAltitudeContext(context, latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees))
        }
        return navigated
    }

    /// Changes the host's flight-level hints (times in engine time: Unix seconds); they hold from the next fix on.
    mutating func updateFlightLevelHints(_ change: (inout FlightLevelHints) -> Void) { change(&navigation.flightLevelHints) }

    /// The fleet offsets read for `.loadAltitudeOffsets`: navigation uses them from the next fix on.
    mutating func setFleetOffsets(_ cells: [AltitudeOffsetCell]) { navigation.setFleetOffsets(cells) }

    /// Manual barometer calibration at `t` (on the ground, still: the latest fix's speed is checked).
    mutating func calibrateBarometer(fieldElevationFeet: Double, qnhHectopascals: Double, at t: Double)
        -> Result<BarometerCalibration, BarometerCalibrationFailure> {
        navigation.calibrateBarometer(fieldElevationFeet: fieldElevationFeet, qnhHectopascals: qnhHectopascals, at: t,
                                      groundSpeedMetersPerSecond: lastFix?.speedMetersPerSecond)
    }

    /// The aircraft's learned GNSS − pressure altitude offset to share with the fleet, if it measured one.
    func offsetObservation() -> AltitudeOffsetObservation? { navigation.offsetObservation() }

    // MARK: the altitude context

    /// The calibration's state as the host sees it at `t`.
    func calibrationState(at t: Double) -> BarometerCalibrationState { navigation.calibrationState(at: t) }

    private func altitudeContext(_ e: AltitudeEstimate) -> AltitudeContext {
        let status: AltitudeStatusCode = switch e.source {
        case .external: .externalPressureAltitude
        case .barometer: .barometer
        case .gnssFleetOffset: .gnssWithFleetOffset
        case .gnssStandardAtmosphere: .gnssStandardAtmosphere
        }
        let calibration = calibrationState(at: e.t)
        var problems: [AltitudeProblemCode] = []
        let hasBarometer = navigation.lastBarometerTime.isFinite
        if hasBarometer, e.cabin != .pressurized {
            if case .uncalibrated = calibration { problems.append(.barometerUncalibrated) }
            if case .stale = calibration { problems.append(.barometerCalibrationStale) }
        }
        if hasBarometer, e.t - navigation.lastBarometerTime > 10 { problems.append(.noPressure) }
        if e.cabin == .pressurized { problems.append(.cabinPressurized) }
        if e.cabin == .unknown, hasBarometer { problems.append(.cabinUndecided) }
        if e.t - navigation.lastGNSSTime > 5 { problems.append(.gnssStale) }
        if e.source == .gnssStandardAtmosphere { problems.append(.fleetOffsetUnavailable) }
        if e.layerUncertain { problems.append(.layerUncertain) }
        let u = e.pressureAltitudeUncertaintyFeet
        var context = AltitudeContext(
            time: e.t, pressureAltitudeFeet: e.pressureAltitudeFeet, pressureAltitudeU68Feet: u.u68,
            pressureAltitudeU90Feet: u.u90, source: e.source, layer: e.layer, heldFlightLevelFeet: e.heldFlightLevelFeet,
            layerUncertain: e.layerUncertain, mslMeters: e.mslMeters, mslU68Meters: e.mslUncertaintyMeters?.u68,
            mslU90Meters: e.mslUncertaintyMeters?.u90, verticalSpeedFeetPerMinute: e.verticalSpeedFeetPerMinute,
            cabin: e.cabin, barometerCalibration: calibration, status: status, problems: problems)
        context.flightLevelProbability = e.flightLevelProbability
        if let msl = e.mslMeters, let mslU = e.mslUncertaintyMeters, let lat = e.latitudeDegrees, let lon = e.longitudeDegrees,
           let n = Geoid.undulationMeters(latitudeDegrees: lat, longitudeDegrees: lon) {
            // HAE = MSL + N; the geoid table's own interpolation error adds in quadrature (docs/altitude.md).
            context.haeMeters = msl + n
            let extra = Uncertainty(gaussianSigma: Geoid.interpolationSigmaMeters)
            context.haeU68Meters = (mslU.u68 * mslU.u68 + extra.u68 * extra.u68).squareRoot()
            context.haeU90Meters = (mslU.u90 * mslU.u90 + extra.u90 * extra.u90).squareRoot()
        }
        return context
    }

    /// "On change": a new source, layer, hold, flag, cabin, calibration state, status or problem set, 100 ft of
    /// pressure altitude, a quarter of the 90 % uncertainty, or 500 ft/min of vertical speed (docs/altitude.md).
    static func changedEnough(from old: AltitudeContext?, to new: AltitudeContext) -> Bool {
        guard let old else { return true }
        if old.source != new.source || old.layer != new.layer || old.heldFlightLevelFeet != new.heldFlightLevelFeet
            || old.layerUncertain != new.layerUncertain || old.cabin != new.cabin
            || old.barometerCalibration.name != new.barometerCalibration.name || old.status != new.status
            || old.problems != new.problems { return true }
        if abs(old.pressureAltitudeFeet - new.pressureAltitudeFeet) >= 100 { return true }
        if abs(old.pressureAltitudeU90Feet - new.pressureAltitudeU90Feet) >= 0.25 * max(1, old.pressureAltitudeU90Feet) { return true }
        if let a = old.verticalSpeedFeetPerMinute, let b = new.verticalSpeedFeetPerMinute, abs(a - b) >= 500 { return true }
        return (old.verticalSpeedFeetPerMinute == nil) != (new.verticalSpeedFeetPerMinute == nil)
    }
}
