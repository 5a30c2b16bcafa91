package import EddyAlerts
import EddyDetection
import EddyH3
package import EddyNavigation
package import EddyProtocol
import EddyStore
import EddySupport
import EddySync
package import EddyVocabulary

/// The parts of `EddyConfiguration` that decide what the core does.
package struct EngineCoreConfiguration: Sendable {
    /// Where sync scheduling time comes from.
    package var syncTiming: SyncTiming
    /// Flight phase and low power thresholds.
    package var flightPhase: FlightPhaseConfiguration
    /// Radius of the automatic route area, NM.
    package var autoRouteRadiusNM: Double
    /// Distance that re-centres the automatic route area, NM.
    package var autoRouteRecentreNM: Double
    /// Shortest interval between own-position uploads while airborne, seconds.
    package var positionUploadIntervalSeconds: Double
    /// Seed of the sync back-off jitter.
    package var syncJitterSeed: UInt64
    /// Cabin pressurisation forced by the host (nil: detected).
    package var cabinPressurization: CabinPressurization?
    /// QNH the host knows, hPa.
    package var qnhHectopascals: Double?
    /// Age beyond which a barometer calibration is stale, seconds.
    package var barometerCalibrationStaleSeconds: Double
    /// How the device is installed (detection's flat and handling rules).
    package var deviceMount: DeviceMount
    /// The local defaults of the thresholds a server may override.
    package var localThresholds: EddyThresholds

    /// Takes the core's settings from an engine configuration.
    package init(_ configuration: EddyConfiguration) {
        syncTiming = configuration.syncTiming
        flightPhase = configuration.flightPhase
        autoRouteRadiusNM = configuration.autoRouteRadiusNM
        autoRouteRecentreNM = configuration.autoRouteRecentreNM
        positionUploadIntervalSeconds = configuration.positionUploadIntervalSeconds
        syncJitterSeed = configuration.syncJitterSeed
        cabinPressurization = configuration.cabinPressurization
        qnhHectopascals = configuration.qnhHectopascals.flatMap { $0.isFinite && $0 >= 900 && $0 <= 1_100 ? $0 : nil }
        let days = configuration.barometerCalibrationStaleDays
        barometerCalibrationStaleSeconds = (days.isFinite && days > 0 ? days : 3.5) * 86_400
        deviceMount = configuration.deviceMount
        localThresholds = EddyThresholds(
            local: configuration.flightPhase, maximumHorizontalAccuracyMeters: configuration.maximumHorizontalAccuracyMeters,
            maximumVerticalAccuracyMeters: configuration.maximumVerticalAccuracyMeters)
    }
}

/// The engine's behaviour as one pure state machine (docs/engine.md, "Core and shell").
///
/// It takes inputs — a sample, a setting, an alert query, a sync event, the alert candidates it asked for — and
/// returns effects: store this report, persist this setting, set this fetch area, upload this position, raise these
/// callbacks. It owns the reorder buffer, the flight time base, the detection pipeline, location fusion, flight
/// phase, the fetch areas, the alert monitor and clusterer. It does no I/O, holds no lock and never reads a clock:
/// time comes from the samples, and from the host's clock passed in as `now` for calls that are not samples.
/// `EddyEngine` holds it behind a lock and applies the effects after releasing the lock.
package struct EngineCore: Sendable {
    /// Settings that decide behaviour.
    package let configuration: EngineCoreConfiguration

    /// The session of the current start (nil when stopped or never started).
    package private(set) var session: PersistedSession?
    /// Whether `start` succeeded and `stop` was not called since.
    package private(set) var isStarted = false
    /// Whether the engine records (started, and the server has not refused the key or client).
    package private(set) var isRecording = false
    /// Whether the started session has a server to sync with (an offline session has none).
    package private(set) var hasServer = false
    /// The aircraft.
    package private(set) var aircraft: AircraftType
    /// The flight (set by the host, or temporary while airborne without one).
    package private(set) var flight: Flight?
    /// What is fetched and for where.
    package private(set) var dataQuery: DataQuery
    /// How often data is refreshed.
    package private(set) var updateFrequency: UpdateFrequency

    // Detection of the current flight.
    private var detection = FlightDetection()
    private var reorder = SampleReorderBuffer<DetectionInput>()
    private var released: [DetectionInput] = []
    private var detectionEvents: [DetectionEvent] = []
    /// The device's mount state as detection last reported it (nil before detection ran).
    package private(set) var devicePosition: (inPosition: Bool, horizontal: Bool, inNoise: Bool)?

    // Location and phase.
    private var fusion = LocationFusion()
    /// Where the aircraft is: the one position filter and altitude estimator. It runs whether or not detection records
    /// (the host's altitude context, alerts, uploads), and detection takes each fix as it placed it.
    private var navigation: Navigation
    private var phase: FlightPhaseTracker
    /// The latest location used (after fusion).
    package private(set) var lastFix: LocationSample?
    /// The latest sample time, Unix seconds (nil before the first sample).
    package private(set) var engineTime: Double?
    /// The host's clock at the latest call that was not a sample: the engine time before the first sample.
    private var hostTime = 0.0

    // Altitude: the host's view.
    /// The latest altitude context (nil before the first fix with an altitude).
    package private(set) var altitudeContext: AltitudeContext?
    private var deliveredAltitudeContext: AltitudeContext?
    private var lastAltitudeOffsetRequest = -Double.infinity
    /// Fleet offsets are read from the cache at most this often (engine time), seconds.
    package static let altitudeOffsetRefreshSeconds = 60.0
    /// The barometer calibration (restored from the store, then from calibrations; nil: none).
    package var barometerCalibration: BarometerCalibration? { navigation.barometerCalibration }

    // Alerts.
    /// The monitored alert query (nil when not monitoring).
    package private(set) var alertQuery: AlertQuery?
    private var monitor = AlertMonitor()
    private var clusterer = TurbulenceClusterer()
    private var candidates: AlertCandidates?
    /// The tiles the aircraft has been in: own reports count as felt from the last visit of their tile.
    private var visits = OwnTileVisits()
    /// Counts changes of the cached data (own reports stored, data fetched, cache purged): alert candidates read
    /// for an older generation are read again.
    package private(set) var dataGeneration = 0

    // Sync bookkeeping.
    private var autoRouteCentre: (latitude: Double, longitude: Double)?
    private var lastPositionUpload: Double?
    /// Draws the random per-flight id sent with position uploads (seeded by the shell from the system's generator).
    private var flightIDGenerator: SplitMix64
    /// The current flight's wire id: random per flight, never derived from the user id (nil until the first upload).
    package private(set) var wireFlightID: String?
    /// The thresholds the server of the session sent (nil: none; the local defaults hold).
    package private(set) var serverThresholds: ClientThresholds?
    /// The thresholds in force: the server's where it sent them, the local defaults otherwise.
    package private(set) var thresholds: EddyThresholds
    /// Whether a demo runs: only simulated samples are taken, reports are flagged and stored as local simulated
    /// observations (never in the outbox), no position is uploaded (docs/engine.md "Demo mode").
    package private(set) var isSimulating = false
    /// Whether a demo stored reports since start (the engine's turbulence queries then read each item's source, so
    /// simulated items are flagged).
    package private(set) var hasSimulatedReports = false
    private var nextSyncStep = -Double.infinity
    private var lastPurge = -Double.infinity

    /// The cache is purged of expired data at most this often, in engine time, seconds.
    package static let purgeIntervalSeconds = 600.0

    /// A core with restored settings (nil: defaults) and no session.
    package init(configuration: EngineCoreConfiguration, aircraft: AircraftType, flight: Flight?, dataQuery: DataQuery,
                 updateFrequency: UpdateFrequency, session: PersistedSession?, barometerCalibration: BarometerCalibration? = nil,
                 flightIDSeed: UInt64 = 0, serverThresholds: ClientThresholds? = nil) {
        self.configuration = configuration
        thresholds = configuration.localThresholds
        flightIDGenerator = SplitMix64(seed: flightIDSeed)
        navigation = Navigation(configuration: Self.navigationConfiguration(configuration, aircraft.aircraftClass),
                                barometerCalibration: barometerCalibration)
        self.aircraft = aircraft
        self.flight = flight
        self.dataQuery = dataQuery
        self.updateFrequency = updateFrequency
        self.session = session
        phase = FlightPhaseTracker(configuration: configuration.flightPhase)
        setServerThresholds(serverThresholds)
    }

    /// Takes the thresholds a server sent with a new session (nil: an older server sent none; the local defaults hold).
    /// They apply from the next fix on: flight phase and low power, the position filter's accuracy gate, the GNSS
    /// altitude's vertical accuracy gate.
    package mutating func setServerThresholds(_ server: ClientThresholds?) {
        serverThresholds = server
        thresholds = configuration.localThresholds.overridden(by: server)
        phase.configuration = thresholds.applied(to: configuration.flightPhase)
        navigation.setMaximumHorizontalAccuracyMeters(thresholds.maximumHorizontalAccuracyMeters)
    }

    /// Navigation's settings for an aircraft class: the host's cabin and QNH, the calibration's staleness.
    static func navigationConfiguration(_ configuration: EngineCoreConfiguration, _ aircraftClass: AircraftClass) -> NavigationConfiguration {
        var altitude = AltitudeConfiguration(aircraftClass: aircraftClass)
        altitude.cabin = configuration.cabinPressurization
        altitude.qnhHectopascals = configuration.qnhHectopascals
        var c = NavigationConfiguration(altitude: altitude)
        c.barometerCalibrationStaleSeconds = configuration.barometerCalibrationStaleSeconds
        return c
    }

    // MARK: state read by the shell

    /// Whether low power mode is on.
    package var isLowPowerMode: Bool { phase.isLowPower }
    /// The flight phase.
    package var flightPhase: FlightPhase { phase.phase }
    /// Engine time: the latest sample time, or the host's time before the first sample, Unix seconds.
    package var currentTime: Double { engineTime ?? hostTime }

    /// The sync scheduler's settings for the current data query, frequency and aircraft.
    package var schedulerConfiguration: SchedulerConfiguration {
        var c = SchedulerConfiguration()
        c.dataTypes = DataType.allCases.filter { dataQuery.types.contains($0) }
        c.viewportDataTypes = DataType.allCases.filter { dataQuery.viewportTypes.contains($0) }
        c.frequency = updateFrequency
        c.historyHours = dataQuery.historyWindow.hours
        c.minLayer = dataQuery.altitudeRangeFeet.lowerBound / 1000
        c.maxLayer = dataQuery.altitudeRangeFeet.upperBound / 1000
        c.viewerClass = aircraft.aircraftClass
        c.jitterSeed = configuration.syncJitterSeed
        return c
    }

    /// The areas the data query asks for (the route area around the aircraft when no route polygon is set).
    package var fetchAreas: [(area: SyncArea?, type: DataAreaType)] {
        let q = dataQuery
        var route: SyncArea?
        if let polygon = q.routePolygon {
            route = SyncArea(type: .route, polygon: EngineGeometry.geoPoints(polygon))
        } else if let centre = autoRouteCentre {
            route = SyncArea(type: .route, polygon: EngineGeometry.geoPoints(EngineGeometry.circle(
                latitude: centre.latitude, longitude: centre.longitude, radiusNM: configuration.autoRouteRadiusNM)))
        }
        return [
            (route, .route),
            (q.viewport.map { SyncArea(type: .viewport, polygon: EngineGeometry.geoPoints($0)) }, .viewport),
            (q.globalEnabled ? SyncArea.global : nil, .global),
        ]
    }

    /// The store query that answers the data query for one of its areas (nil when that area is not set): the area,
    /// history window, altitude range and **minimum severity** for the aircraft's class, at engine time. The route
    /// area without a route polygon is the `autoRouteRadiusNM` circle around the latest position.
    package func turbulenceQuery(for areaType: DataAreaType) -> TurbulenceQuery? {
        let q = dataQuery
        let area: QueryArea
        switch areaType {
        case .global:
            guard q.globalEnabled else { return nil }
            area = .everywhere
        case .viewport:
            guard let viewport = q.viewport else { return nil }
            area = .polygon(viewport)
        case .route:
            if let polygon = q.routePolygon {
                area = .polygon(polygon)
            } else if let centre = autoRouteCentre ?? lastFix.map({ ($0.latitudeDegrees, $0.longitudeDegrees) }) {
                area = .polygon(EngineGeometry.circle(latitude: centre.0, longitude: centre.1, radiusNM: configuration.autoRouteRadiusNM))
            } else {
                return nil
            }
        }
        return TurbulenceQuery(area: area, altitudeRangeFeet: q.altitudeRangeFeet, historyWindow: q.historyWindow,
                               minimumSeverity: q.minimumSeverity, viewer: aircraft.aircraftClass, now: currentTime,
                               includeReporterDetails: hasSimulatedReports)
    }

    // MARK: start / stop

    /// Starts a session (the shell checked the identity, validated the key and persisted the session).
    package mutating func start(session: PersistedSession, now: Double) -> EngineStep {
        hostTime = now
        self.session = session
        hasServer = session.environment.baseURL != nil
        isStarted = true
        isRecording = true
        nextSyncStep = -.infinity
        autoRouteCentre = nil
        let areas = fetchAreas
        var effects = areas.map { EngineEffect.setFetchArea($0.area, $0.type) }
        effects.append(.callback(.didUpdateRecordingStatus(true)))
        // Cached data is ready: once for the route area (always fetched: the host's polygon or the circle around the
        // aircraft) and for each other area the data query sets.
        effects.append(.announceCachedData(areas.compactMap { area, type in
            area == nil && type != .route ? nil : type
        }))
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Stops: the current flight's detection is closed, the session and every fetched datum are forgotten.
    package mutating func stop(now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        if isStarted {
            closeFlightDetection(&effects)
            isSimulating = false
            hasSimulatedReports = false
            isStarted = false
            if isRecording { effects.append(.callback(.didUpdateRecordingStatus(false))) }
            isRecording = false
            session = nil
            hasServer = false
            candidates = nil
            monitor.reset()
            clusterer.reset()
        }
        effects.append(.forgetSessionAndFetchedData)
        setServerThresholds(nil)   // persisted with the session, forgotten with it
        dataGeneration += 1
        return EngineStep(effects: effects, time: currentTime)
    }

    // MARK: settings

    /// Sets the aircraft: a new one closes the current flight's detection (its class sets detection and severities).
    package mutating func setAircraft(_ type: AircraftType, now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        if aircraft != type {
            closeFlightDetection(&effects)
            if aircraft.aircraftClass != type.aircraftClass {
                navigation.restartAltitude(configuration: Self.navigationConfiguration(configuration, type.aircraftClass).altitude)
            }
            aircraft = type
            candidates = nil
            if var q = alertQuery { q.viewerClass = type.aircraftClass; alertQuery = q }
        }
        effects += [.persist(.aircraft(type)), .configureSync(schedulerConfiguration)]
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Sets the flight (nil ends it): a new one closes the previous one's detection and leaves low power.
    package mutating func setFlight(_ flight: Flight?, now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        if self.flight != flight {
            closeFlightDetection(&effects)
            self.flight = flight
            wireFlightID = nil
            if flight != nil, let change = phase.leaveLowPower(at: currentTime), case .lowPower(let on) = change.event {
                effects.append(.callback(.didUpdateLowPowerMode(on)))
            }
            monitor.reset()
            clusterer.reset()
        }
        effects.append(.persist(.flight(flight)))
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Sets a (validated) data query: its areas are set at once (a changed one is fetched in full).
    package mutating func setDataQuery(_ query: DataQuery, now: Double) -> EngineStep {
        hostTime = now
        dataQuery = query
        autoRouteCentre = nil
        candidates = nil
        var effects: [EngineEffect] = [.persist(.dataQuery(query)), .configureSync(schedulerConfiguration)]
        effects += fetchAreas.map { .setFetchArea($0.area, $0.type) }
        effects.append(.wakeSync)
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Sets the update frequency.
    package mutating func setUpdateFrequency(_ frequency: UpdateFrequency, now: Double) -> EngineStep {
        hostTime = now
        updateFrequency = frequency
        return EngineStep(effects: [.persist(.updateFrequency(frequency)), .configureSync(schedulerConfiguration), .wakeSync],
                          time: currentTime)
    }

    // MARK: sync

    /// The host asked for a fetch now: the next flight-time step is due at once.
    package mutating func fetchRequested() {
        nextSyncStep = -.infinity
    }

    /// A sync step ran at `now` (the scheduler's clock) and asked for the next one in `waitSeconds`.
    package mutating func syncStepFinished(waitSeconds: Double, now: Double) {
        nextSyncStep = now + min(waitSeconds, 1)
    }

    /// What the sync scheduler reported.
    package mutating func syncEvent(_ event: SyncEvent, now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        switch event {
        case .reachabilityChanged(let reachable):
            effects.append(.callback(.serverReachabilityUpdated(reachable)))
        case .fetchingStatusChanged(let area, let dataType, let status):
            effects.append(.callback(.didUpdateFetchingStatus(status, areaType: area, dataType: dataType)))
        case .receivedData(let area, let dataType, _, _):
            switch dataType {
            case .turbulence:
                dataGeneration += 1
                effects.append(.callback(.didReceiveNewTurbulenceData(areaType: area)))
            case .nowcast: effects.append(.callback(.didReceiveNewNowcast))
            case .turbulencePolygons:
                dataGeneration += 1   // the alert fallback reads them with the candidates
                effects.append(.callback(.didReceiveNewTurbulencePolygons))
            case .liveFlights: effects.append(.callback(.didReceiveNewLiveFlightData))
            }
        case .uploaded:
            break
        case .failed(let error):
            if case .rateLimited(let s) = error { effects.append(.callback(.didFailToFetchNewData(.tooManyRequests(retryAfterSeconds: s)))) }
            else { effects.append(.callback(.didFailToFetchNewData(.sync(error)))) }
        case .recordingStopped:
            if isRecording { effects.append(.callback(.didUpdateRecordingStatus(false))) }
            isRecording = false
        }
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Cached data changed outside the core (a purge removed observations): alert candidates are read again.
    package mutating func cachedDataChanged() {
        dataGeneration += 1
    }

    // MARK: samples

    /// One sample (Unix seconds). Accelerometer, gyro and barometer feed detection; a location also drives the flight
    /// phase, the fetch area, position uploads and alert monitoring. Ignored before `start`; in low power mode only
    /// locations are used.
    /// While a demo runs only its `simulated` samples are taken (the host's are dropped), and only then.
    package mutating func push(_ sample: SensorSample, simulated: Bool = false) -> EngineStep {
        guard isStarted, simulated == isSimulating else { return EngineStep(time: currentTime) }
        var effects: [EngineEffect] = []
        process(sample, &effects)
        let t = currentTime
        if engineTime != nil && t - lastPurge >= Self.purgeIntervalSeconds {
            lastPurge = t
            effects.append(.purgeExpired(now: t))
        }
        // Sync runs only with a server: an offline engine asks for no step (and allocates nothing per sample).
        if hasServer {
            let syncRequested = effects.contains { $0.isSync }
            switch configuration.syncTiming {
            case .flightTime: if syncRequested || t >= nextSyncStep { effects.append(.runSyncStep) }
            case .wallClock: if syncRequested { effects.append(.wakeSync) }
            }
        }
        return EngineStep(effects: effects, time: t)
    }

    /// The host's location source failed.
    package mutating func locationFailure(_ message: String, now: Double) -> EngineStep {
        hostTime = now
        return EngineStep(effects: [.callback(.locationManagerDidFail(.invalidLocation(message)))], time: currentTime)
    }

    /// Ends the current flight's detection: the open tile crossing is closed (end of a replay).
    package mutating func finishDetection(now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        closeFlightDetection(&effects)
        return EngineStep(effects: effects, time: currentTime)
    }

    private mutating func process(_ sample: SensorSample, _ effects: inout [EngineEffect]) {
        guard sample.t.isFinite else {
            if case .location = sample {
                effects.append(.callback(.locationManagerDidFail(.invalidLocation("location time is not finite"))))
            }
            return
        }
        if case .location(let fix) = sample {
            handleLocation(fix, &effects)
            return
        }
        guard !phase.isLowPower else { return }
        advanceTime(sample.t)
        switch sample {
        case .accelerometer(let a): if isRecording { reorderForDetection(.accelerometer(a), &effects) }
        case .gyroscope(let g): if isRecording { reorderForDetection(.gyroscope(g), &effects) }
        case .barometer(let reading):
            let navigated = addBarometer(reading, &effects)
            if isRecording { reorderForDetection(.barometer(reading, navigated), &effects) }
        case .location: break
        }
    }

    private mutating func advanceTime(_ t: Double) {
        if t > (engineTime ?? -.infinity) { engineTime = t }
    }

    // MARK: detection

    /// Motion and location samples reach detection in time order, through a 2 s reorder buffer (they may come from
    /// different threads); locations drive phase and alerts at once, without waiting.
    private mutating func reorderForDetection(_ sample: DetectionInput, _ effects: inout [EngineEffect]) {
        released.removeAll(keepingCapacity: true)
        reorder.push(sample, releasingInto: &released)
        guard !released.isEmpty else { return }
        let ready = released
        for sample in ready { feedDetection(sample, &effects) }
    }

    private mutating func feedDetection(_ sample: DetectionInput, _ effects: inout [EngineEffect]) {
        if !detection.isRunning {
            let timeBase = FlightDetection.timeBase(forFirstSampleAt: sample.t)
            var detectionConfiguration = DetectionConfiguration(
                aircraftClass: aircraft.aircraftClass, typeDesignator: aircraft.designator)
            detectionConfiguration.reportSalt = FNV1a.hash64([
                session?.airline ?? "", session?.userId ?? "",
                flight.flatMap { $0.isTemporary ? nil : $0.key } ?? "", String(Int(saturating: timeBase)), aircraft.designator,
            ])
            detectionConfiguration.mount = configuration.deviceMount
            detection.begin(timeBase: timeBase, configuration: detectionConfiguration)
        }
        detectionEvents.removeAll(keepingCapacity: true)
        detection.process(sample, into: &detectionEvents)
        handleDetectionEvents(&effects)
    }

    private mutating func handleDetectionEvents(_ effects: inout [EngineEffect]) {
        guard !detectionEvents.isEmpty else { return }
        for event in detectionEvents {
            switch event {
            case .position(let p):
                let changed = devicePosition.map({ $0.inPosition != p.inPosition || $0.horizontal != p.horizontal }) ?? true
                devicePosition = (p.inPosition, p.horizontal, p.inNoise)
                if changed {
                    effects.append(.callback(.didChangeDevicePosition(inPosition: p.inPosition, horizontal: p.horizontal)))
                }
            case .minute, .altitude:
                break
            case .warning:
                break   // the engine's own estimator warns the host (it also runs when not recording)
            case .notice(let notice):
                effects.append(.callback(.didReceiveMeasurementNotice(notice)))
            case .tile(let report):
                // Stored before anything else happens to it; the cached data changes with it.
                effects.append(.storeOwnReport(DetectedTurbulence(
                    report: report, severity: report.severity(for: aircraft.aircraftClass), isSimulated: isSimulating)))
                if isSimulating { hasSimulatedReports = true }
                dataGeneration += 1
            }
        }
        detectionEvents.removeAll(keepingCapacity: true)
    }

    private mutating func closeFlightDetection(_ effects: inout [EngineEffect]) {
        released.removeAll(keepingCapacity: true)
        reorder.flush(into: &released)
        let held = released
        for sample in held { feedDetection(sample, &effects) }
        guard detection.isRunning else { return }
        detectionEvents.removeAll(keepingCapacity: true)
        detection.finish(into: &detectionEvents)
        handleDetectionEvents(&effects)
    }

    // MARK: location

    private mutating func handleLocation(_ received: LocationSample, _ effects: inout [EngineEffect]) {
        var input = received
        // Vertical accuracy gate (a server-provided threshold): a GNSS altitude this uncertain is not used.
        if let vertical = input.verticalAccuracyMeters, vertical > thresholds.maximumVerticalAccuracyMeters { input.altitudeMeters = nil }
        let fused: LocationSample
        switch fusion.process(input) {
        case .rejected(let reason): effects.append(.callback(.locationManagerDidFail(.invalidLocation(reason)))); return
        case .superseded: return
        case .use(let used): fused = used
        }
        advanceTime(fused.t)
        // Navigation places the fix; the host's view uses the filtered position, detection what navigation made of it.
        guard let placed = navigation.place(fused) else { return }
        if let warning = placed.warning { effects.append(.callback(.didDetectInconsistency(warning))) }
        let fix = placed.position
        lastFix = fix
        for change in phase.update(fix) {
            switch change.event {
            case .airborne:
                if flight == nil {
                    flight = Flight(isTemporary: true)
                    wireFlightID = nil
                    effects.append(.persist(.flight(flight)))
                }
            case .landed:
                if flight?.isTemporary == true {
                    closeFlightDetection(&effects)
                    flight = nil
                    wireFlightID = nil
                    effects.append(.persist(.flight(nil)))
                }
            case .lowPower(let on):
                if on { closeFlightDetection(&effects) }
                effects.append(.callback(.didUpdateLowPowerMode(on)))
            }
        }
        guard !phase.isLowPower else { return }
        let navigated = navigation.estimateAltitude(at: placed)
        let estimate = updateAltitude(navigated, &effects)
        if isRecording { reorderForDetection(.location(navigated), &effects) }
        guard placed.placed != nil else { return }   // a position the filter refused moves nothing
        if phase.phase != .onGround, let layer = estimate?.layer ?? fix.layerAltitudeFeet.map({ TileID.layer(altitudeFeet: $0) }),
           let cell = TileIndexer.h3Resolution5.cell(fix.latitudeDegrees, fix.longitudeDegrees) {
            visits.record(TileID(h3: cell, layer: layer), at: fix.t)
        }
        updateRouteArea(fix, &effects)
        if phase.phase == .airborne, !isSimulating, fix.t - (lastPositionUpload ?? -.infinity) >= configuration.positionUploadIntervalSeconds,
           let position = positionUpload(fix, estimate, flightID: currentWireFlightID()) {
            lastPositionUpload = fix.t
            effects.append(.uploadPosition(position, navigation.offsetObservation()))
        }
        evaluateAlerts(fix, estimate, &effects)
    }

    /// Re-centres the automatic route area when the aircraft is `autoRouteRecentreNM` from its centre.
    private mutating func updateRouteArea(_ fix: LocationSample, _ effects: inout [EngineEffect]) {
        guard dataQuery.routePolygon == nil, hasServer else { return }
        if let centre = autoRouteCentre,
           Geodesy.distanceNM(from: (centre.latitude, centre.longitude), to: (fix.latitudeDegrees, fix.longitudeDegrees))
            < configuration.autoRouteRecentreNM { return }
        autoRouteCentre = (fix.latitudeDegrees, fix.longitudeDegrees)
        if let route = fetchAreas.first(where: { $0.type == .route }) {
            effects.append(.setFetchArea(route.area, .route))
        }
    }

    /// The current flight's wire id, drawn at its first position upload: `f` and 16 hex digits, random per flight.
    private mutating func currentWireFlightID() -> String {
        if let wireFlightID { return wireFlightID }
        let hex = String(flightIDGenerator.next(), radix: 16)
        let id = "f" + String(repeating: "0", count: 16 - hex.count) + hex
        wireFlightID = id
        return id
    }

    /// The own position for the live-flights layer: the random per-flight id, never the user id; the host's flight
    /// number travels separately and the server shows it only to the same airline (docs/protocol.md).
    private func positionUpload(_ fix: LocationSample, _ estimate: AltitudeEstimate?, flightID: String) -> PositionUpload? {
        guard let altitude = estimate?.pressureAltitudeFeet ?? fix.layerAltitudeFeet, session != nil else { return nil }
        let number = flight.flatMap(\.flightNumber).flatMap { (1...LiveFlight.maximumFlightNumberLength).contains($0.unicodeScalars.count) ? $0 : nil }
        return PositionUpload(
            flightID: flightID, latitude: fix.latitudeDegrees, longitude: fix.longitudeDegrees, altitudeFeet: altitude,
            headingDegrees: fix.courseDegrees ?? 0, groundSpeedKnots: (fix.speedMetersPerSecond ?? 0) * 3600 / 1852,
            aircraftType: aircraft.designator, flightNumber: number, time: fix.t)
    }

    // MARK: alerts

    /// Starts monitoring a (validated) query; the viewer class is the aircraft's.
    package mutating func startMonitoringAlerts(_ query: AlertQuery) {
        var query = query
        query.viewerClass = aircraft.aircraftClass
        alertQuery = query
        monitor.reset()
        clusterer.reset()
        candidates = nil
    }

    /// Stops monitoring and forgets what was alerted.
    package mutating func stopMonitoringAlerts() {
        alertQuery = nil
        monitor.reset()
        clusterer.reset()
    }

    /// The motion along-track fields are computed from: the latest filtered fix (nil before the first fix).
    package var ownMotion: OwnMotion? { lastFix.map(OwnMotion.init(fix:)) }

    /// What a one-shot alert evaluation needs: the latest fix, the history window, the viewer class, the generation.
    package var alertContext: (fix: LocationSample?, history: HistoryWindow, viewer: AircraftClass, generation: Int) {
        (lastFix, dataQuery.historyWindow, aircraft.aircraftClass, dataGeneration)
    }

    private mutating func evaluateAlerts(_ fix: LocationSample, _ estimate: AltitudeEstimate?, _ effects: inout [EngineEffect]) {
        // No alerts on the ground (taxi tracks make a meaningless beam); airborne, or not yet decided, they run.
        // The aircraft's layer is the altitude estimate's (pressure altitude, flight-level hold).
        guard let query = alertQuery, phase.phase != .onGround,
              let position = estimate.map({ AlertPosition(fix: fix, layer: $0.layer) }) ?? AlertPosition(fix: fix) else { return }
        if let candidates, candidates.isFresh(for: position, generation: dataGeneration) {
            evaluate(query, fix: fix, position: position, candidates: candidates.candidates, polygons: candidates.polygons, &effects)
        } else {
            effects.append(.loadAlertCandidates(AlertCandidateRequest(
                query: query, position: position, history: dataQuery.historyWindow, generation: dataGeneration, fix: fix)))
        }
    }

    /// The candidates asked for with `.loadAlertCandidates(request)`: kept, then the request's fix is evaluated.
    /// An answer for a query that is no longer monitored is dropped (the next fix asks again).
    package mutating func alertCandidatesLoaded(_ loaded: [AlertCandidate], polygons: [TurbulencePolygon] = [],
                                                for request: AlertCandidateRequest) -> EngineStep {
        var effects: [EngineEffect] = []
        if let query = alertQuery, query == request.query {
            candidates = AlertCandidates(position: request.position, generation: request.generation, candidates: loaded, polygons: polygons)
            evaluate(query, fix: request.fix, position: request.position, candidates: loaded, polygons: polygons, &effects)
        }
        return EngineStep(effects: effects, time: currentTime)
    }

    private mutating func evaluate(_ query: AlertQuery, fix: LocationSample, position: AlertPosition,
                                   candidates: [AlertCandidate], polygons: [TurbulencePolygon], _ effects: inout [EngineEffect]) {
        guard let evaluation = try? AlertEvaluator.evaluate(query: query, position: position, candidates: visits.felt(candidates),
                                                            polygons: polygons),
              let notification = monitor.process(evaluation, at: position.time)
        else { return }
        switch notification {
        case .alert(let evaluation, let newOrWorse):
            clusterer.process(items: AlertComputation.clusterItems(evaluation.items))
            effects.append(.callback(.didReceiveAlert(EddyAlert(t: fix.t, mode: evaluation.mode, items: evaluation.items,
                                                                newOrWorse: newOrWorse, clusters: clusterer.clusters,
                                                                isSimulated: isSimulating,
                                                                source: evaluation.source, polygonItems: evaluation.polygonItems))))
        case .cleared:
            clusterer.process(items: [])
            effects.append(.callback(.didReceiveAlert(EddyAlert(t: fix.t, mode: nil, items: [], newOrWorse: [], clusters: [],
                                                                isSimulated: isSimulating))))
        }
    }

    // MARK: demo

    /// Starts (`on`) or ends a demo. The flight detected so far is closed first (its reports keep what they were), and
    /// the location state (fusion, position filter, flight phase, altitude) starts afresh, so that simulated and real
    /// positions never meet in one track. Ending a demo forgets its temporary flight and alerts.
    package mutating func setSimulating(_ on: Bool, now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        guard on != isSimulating else { return EngineStep(effects: effects, time: currentTime) }
        closeFlightDetection(&effects)
        isSimulating = on
        released.removeAll(keepingCapacity: true)
        reorder = SampleReorderBuffer()
        fusion = LocationFusion()
        navigation = Navigation(configuration: Self.navigationConfiguration(configuration, aircraft.aircraftClass),
                                barometerCalibration: navigation.barometerCalibration)
        let wasLowPower = phase.isLowPower
        phase = FlightPhaseTracker(configuration: configuration.flightPhase)
        setServerThresholds(serverThresholds)
        if wasLowPower { effects.append(.callback(.didUpdateLowPowerMode(false))) }
        lastFix = nil
        devicePosition = nil
        visits = OwnTileVisits()
        monitor.reset()
        clusterer.reset()
        candidates = nil
        if !on, flight?.isTemporary == true {
            flight = nil
            wireFlightID = nil
            effects.append(.persist(.flight(nil)))
        }
        return EngineStep(effects: effects, time: currentTime)
    }

    // MARK: altitude

    /// Takes a barometer reading into navigation; its warning (a jump, or a refusal at most once per reason a minute)
    /// goes to the host.
    private mutating func addBarometer(_ reading: BarometerSample, _ effects: inout [EngineEffect]) -> NavigatedPressure {
        let navigated = navigation.addBarometer(reading)
        if let warning = navigated.warning { effects.append(.callback(.didDetectInconsistency(warning))) }
        return navigated
    }

    /// The host's side of a navigated fix: background calibration persisted, fleet offsets asked for, the altitude
    /// context delivered on change.
    private mutating func updateAltitude(_ navigated: NavigatedFix, _ effects: inout [EngineEffect]) -> AltitudeEstimate? {
        guard let estimate = navigated.altitude else { return nil }
        let fix = navigated.placement.position
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
            effects.append(.callback(.didUpdateAltitudeContext(context)))
        }
        return estimate
    }

    /// The calibration's state as the host sees it at `t`.
    package func calibrationState(at t: Double) -> BarometerCalibrationState { navigation.calibrationState(at: t) }

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

    /// The fleet offsets read for `.loadAltitudeOffsets`: navigation uses them from the next fix on.
    package mutating func altitudeOffsetsLoaded(_ cells: [AltitudeOffsetCell]) {
        navigation.setFleetOffsets(cells)
    }

    /// Manual barometer calibration from a known field elevation and QNH (on the ground, still).
    package mutating func calibrateBarometer(fieldElevationFeet: Double, qnhHectopascals: Double, now: Double)
        -> (Result<BarometerCalibration, BarometerCalibrationFailure>, EngineStep) {
        hostTime = now
        let t = engineTime ?? now
        let result = navigation.calibrateBarometer(
            fieldElevationFeet: fieldElevationFeet, qnhHectopascals: qnhHectopascals, at: t,
            groundSpeedMetersPerSecond: lastFix?.speedMetersPerSecond)
        var effects: [EngineEffect] = []
        if case .success(let calibration) = result {
            effects.append(.persist(.barometerCalibration(calibration)))
        }
        return (result, EngineStep(effects: effects, time: currentTime))
    }
}
