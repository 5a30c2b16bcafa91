package import EddyVocabulary

/// Settings of the aircraft's navigation: the altitude estimator's, the position filter's, and when a barometer
/// calibration goes stale.
package struct NavigationConfiguration: Sendable, Equatable {
    /// The altitude estimator's settings.
    package var altitude: AltitudeConfiguration
    /// The horizontal position filter's settings.
    package var positionFilter = PositionFilterConfiguration()
    /// Age beyond which a barometer calibration is not used, seconds (infinite: never stale).
    package var barometerCalibrationStaleSeconds = Double.infinity

    /// Defaults for an aircraft class.
    package init(aircraftClass: AircraftClass) {
        altitude = AltitudeConfiguration(aircraftClass: aircraftClass)
    }

    /// Settings with the given altitude estimator settings.
    package init(altitude: AltitudeConfiguration) {
        self.altitude = altitude
    }
}

/// A fix placed by the position filter: what detection and the engine use of its position (docs/position.md).
package struct PlacedFix: Sendable, Equatable {
    /// The fix as it came in (after location fusion and the engine's accuracy gates).
    package var received: LocationSample
    /// The fix with the filtered position; nil when its position is not used (refused by the filter).
    package var placed: LocationSample?
    /// Where the aircraft is at the fix's time: `placed` when it was used, else the received fix at the filter's
    /// prediction; nil before the filter has a track.
    package var estimate: LocationSample?
    /// Horizontal 68 %/90 % uncertainty of `estimate`'s position, metres (nil without one).
    package var horizontalUncertainty: Uncertainty?
    /// A position jump or an invalid accuracy, if this fix was one (rate-limited by the filter).
    package var warning: ConsistencyWarning?
    /// 68 % uncertainty of the filter's velocity after this fix, m/s (nil before the filter has a track).
    package var velocityUncertainty68MetersPerSecond: Double?

    /// The position the host sees (alerts, uploads, flight phase): the estimate, else the fix as received.
    package var position: LocationSample { estimate ?? received }

    /// What altitude estimation is given: the estimate, else the received fix without a position (a position the
    /// filter could not place is not used for fleet offsets or the geoid).
    package var altitudeInput: LocationSample {
        if let estimate { return estimate }
        var unplaced = received
        unplaced.latitudeDegrees = .nan
        unplaced.longitudeDegrees = .nan
        return unplaced
    }
}

/// What navigation made of one fix: its placement and the altitude estimate at its time.
package struct NavigatedFix: Sendable, Equatable {
    /// The fix's placement.
    package var placement: PlacedFix
    /// The altitude estimate at the fix's time, with the placement's horizontal uncertainty (nil: the fix gave none).
    package var altitude: AltitudeEstimate?
    /// The fix's time, seconds.
    package var t: Double { placement.received.t }
}

/// What navigation made of one barometer reading.
package struct NavigatedPressure: Sendable, Equatable {
    /// Whether the reading was used (a refused one is not a pressure at all).
    package var accepted: Bool
    /// A pressure jump, or the refusal (at most one per reason a minute), if any.
    package var warning: ConsistencyWarning?
}

/// The aircraft's navigation: one horizontal position filter and one altitude estimator, fed location fixes and
/// barometer readings in the order they happen (docs/position.md, docs/altitude.md).
///
/// One instance serves everything that needs to know where the aircraft is: the engine owns one (the host's altitude
/// context, alerts, uploads, and the tile layer of every report) and a replay owns one, so both place reports alike.
/// Pure: time comes from the samples; the barometer calibration's staleness is judged at each fix's time.
package struct Navigation: Sendable {
    /// The settings in force.
    package private(set) var configuration: NavigationConfiguration
    private var placement: FixPlacement
    private var estimator: AltitudeEstimator
    /// The barometer calibration (nil: none); used while not stale at the fix's time.
    package private(set) var barometerCalibration: BarometerCalibration?
    /// When each refusal reason (its key) last warned.
    private var lastRefusalTimes: [String: Double] = [:]
    /// A background calibration finished since the owner last took it (to persist it).
    private var pendingBackgroundCalibration: BarometerCalibration?

    /// Times at or beyond this magnitude are not navigation input (the detection pipeline's bound), seconds.
    package static let timeLimitSeconds = 1e11

    /// A navigation with no track yet.
    package init(configuration: NavigationConfiguration, barometerCalibration: BarometerCalibration? = nil) {
        self.configuration = configuration
        placement = FixPlacement(configuration: configuration.positionFilter)
        estimator = AltitudeEstimator(configuration: configuration.altitude)
        self.barometerCalibration = barometerCalibration
    }

    /// The latest altitude estimate (nil before the first fix with an altitude).
    package var currentAltitude: AltitudeEstimate? { estimator.current }
    /// Time of the latest usable barometer reading (−∞ before the first).
    package var lastBarometerTime: Double { estimator.lastBarometerTime }
    /// Time of the latest GNSS altitude (−∞ before the first).
    package var lastGNSSTime: Double { estimator.lastGNSSTime }
    /// The altitude estimator's settings.
    package var altitudeConfiguration: AltitudeConfiguration { estimator.configuration }

    /// Sets the position filter's horizontal accuracy limit, metres (the engine's server-provided threshold).
    package mutating func setMaximumHorizontalAccuracyMeters(_ meters: Double) {
        configuration.positionFilter.maximumAccuracyMeters = meters
        placement.setMaximumAccuracyMeters(meters)
    }

    /// Starts the altitude estimator afresh with new settings (another aircraft class: its cabin prior); the position
    /// filter and the barometer calibration are kept, fleet offsets are read again.
    package mutating func restartAltitude(configuration altitude: AltitudeConfiguration) {
        configuration.altitude = altitude
        let (hints, clockOffset) = (estimator.flightLevelHints, estimator.fleetClockOffsetSeconds)
        estimator = AltitudeEstimator(configuration: altitude)
        estimator.flightLevelHints = hints
        estimator.fleetClockOffsetSeconds = clockOffset
    }

    /// What the host said about the flight's levels and air (times in this navigation's samples' base).
    package var flightLevelHints: FlightLevelHints {
        get { estimator.flightLevelHints }
        set { estimator.flightLevelHints = newValue }
    }

    /// Sets Unix time − the time of this navigation's samples (fleet offsets' ages, the climatology's date).
    package mutating func setClockOffset(seconds: Double) { estimator.fleetClockOffsetSeconds = seconds }

    /// Sets the fleet's GNSS − pressure altitude offsets near the aircraft (Unix times; `clockOffsetSeconds` is Unix
    /// time − the time of this navigation's samples, 0 when they are Unix times already).
    package mutating func setFleetOffsets(_ cells: [AltitudeOffsetCell], clockOffsetSeconds: Double = 0) {
        estimator.fleetOffsets = cells
        estimator.fleetClockOffsetSeconds = clockOffsetSeconds
    }

    /// The calibration to use at `t`: nil when there is none or it is stale.
    package func usableCalibration(at t: Double) -> BarometerCalibration? {
        guard let c = barometerCalibration, t - c.calibratedAt <= configuration.barometerCalibrationStaleSeconds else { return nil }
        return c
    }

    /// The calibration's state as the host sees it at `t`.
    package func calibrationState(at t: Double) -> BarometerCalibrationState {
        guard let c = barometerCalibration else { return .uncalibrated }
        return t - c.calibratedAt <= configuration.barometerCalibrationStaleSeconds ? .calibrated(c) : .stale(c)
    }

    // MARK: inputs

    /// Takes a barometer reading. A refused reading warns at most once per reason a minute (a broken sensor at
    /// 50 Hz must not flood the host; docs/altitude.md). A time that is not finite or beyond ±10¹¹ s is ignored.
    package mutating func addBarometer(_ reading: BarometerSample) -> NavigatedPressure {
        guard reading.t.isFinite, abs(reading.t) < Self.timeLimitSeconds else { return NavigatedPressure(accepted: false, warning: nil) }
        switch estimator.addBarometer(reading) {
        case .accepted(let warning):
            return NavigatedPressure(accepted: true, warning: warning)
        case .refused(let reason, let key):
            // Per reason, not per value: kPa readings that differ in every sample are one reason.
            let t = reading.t
            guard lastRefusalTimes[key].map({ t - $0 >= 60 || t < $0 }) ?? true else {
                return NavigatedPressure(accepted: false, warning: nil)
            }
            lastRefusalTimes[key] = t
            return NavigatedPressure(accepted: false, warning: ConsistencyWarning(t: t, kind: .invalidInput(reason)))
        }
    }

    /// Places a fix with the position filter only (the engine in low power: the host's position moves, the altitude
    /// does not). Nil for a time that is not finite or beyond ±10¹¹ s.
    package mutating func place(_ fix: LocationSample) -> PlacedFix? {
        guard fix.t.isFinite, abs(fix.t) < Self.timeLimitSeconds else { return nil }
        let placed = placement.place(fix)
        return PlacedFix(
            received: fix, placed: placed.fix, estimate: placed.estimate, horizontalUncertainty: placed.uncertainty,
            warning: placed.warning, velocityUncertainty68MetersPerSecond: placement.latest?.velocityUncertainty68MetersPerSecond)
    }

    /// Estimates the altitude at a placed fix (with the barometer calibration usable at its time).
    package mutating func estimateAltitude(at placed: PlacedFix) -> NavigatedFix {
        let input = placed.altitudeInput
        estimator.calibration = usableCalibration(at: input.t)
        var estimate = estimator.addFix(input)
        // A background calibration finished at this fix is the calibration from now on.
        if let background = estimator.takeBackgroundCalibration() {
            barometerCalibration = background
            pendingBackgroundCalibration = background
        }
        if estimate?.t != input.t { estimate = nil }
        estimate?.horizontalUncertaintyMeters = placed.horizontalUncertainty
        return NavigatedFix(placement: placed, altitude: estimate)
    }

    /// Places a fix and estimates the altitude at it. Nil for a time that is not finite or beyond ±10¹¹ s.
    package mutating func addFix(_ fix: LocationSample) -> NavigatedFix? {
        place(fix).map { estimateAltitude(at: $0) }
    }

    // MARK: calibration

    /// Takes the background calibration finished since the last call, if any (it is already the calibration in use;
    /// the engine persists it).
    package mutating func takeBackgroundCalibration() -> BarometerCalibration? {
        defer { pendingBackgroundCalibration = nil }
        return pendingBackgroundCalibration
    }

    /// Manual barometer calibration from a known field elevation and QNH (on the ground, still).
    package mutating func calibrateBarometer(fieldElevationFeet: Double, qnhHectopascals: Double, at t: Double,
                                             groundSpeedMetersPerSecond: Double?) -> Result<BarometerCalibration, BarometerCalibrationFailure> {
        let result = estimator.calibrate(fieldElevationFeet: fieldElevationFeet, qnhHectopascals: qnhHectopascals, at: t,
                                         groundSpeedMetersPerSecond: groundSpeedMetersPerSecond)
        if case .success(let calibration) = result { barometerCalibration = calibration }
        return result
    }

    /// The aircraft's learned GNSS − pressure altitude offset to share with the fleet, if it measured one.
    package func offsetObservation() -> AltitudeOffsetObservation? { estimator.offsetObservation() }
}

extension NavigatedFix {
    /// The same result with every time moved by `transform` (a detection pipeline running on a flight time base).
    package func retimed(_ transform: (Double) -> Double) -> NavigatedFix {
        var copy = self
        copy.placement.received.t = transform(placement.received.t)
        copy.placement.placed?.t = transform(placement.received.t)
        copy.placement.estimate?.t = transform(placement.received.t)
        if let warning = placement.warning { copy.placement.warning = ConsistencyWarning(t: transform(warning.t), kind: warning.kind) }
        if let altitude { copy.altitude?.t = transform(altitude.t) }
        return copy
    }
}
