package import EddyAlerts
import EddyDetection
package import EddyNavigation
package import EddyProtocol
package import EddySync
package import EddyVocabulary

/// The engine's behaviour as one pure state machine (docs/engine.md, "Core and shell").
///
/// It takes inputs — a sample, a setting, an alert query, a sync event, the answers to the reads it asked for — and
/// returns effects: store this report, persist this setting, set this fetch area, upload this position, raise these
/// callbacks. It does no I/O, holds no lock and never reads a clock: time comes from the samples, and from the host's
/// clock passed in as `now` for calls that are not samples. `EddyEngine` holds it behind a lock and applies the
/// effects after releasing the lock.
///
/// It is composed of child cores, each owning its state: `EngineNavigation` (fusion, the one position filter and
/// altitude estimator, flight phase, altitude context), `EngineDetection` (reorder buffer, the flight's pipeline),
/// `EngineAlerts` (monitored query, notify-on-change, clusterer, candidates, visited tiles) and `SyncBookkeeping`
/// (route area, position uploads, sync and purge timing). This file holds the session and the settings; samples are
/// in EngineCore+Samples.swift, what the shell reads in EngineCore+Queries.swift.
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
    package internal(set) var flight: Flight?
    /// What is fetched and for where.
    package private(set) var dataQuery: DataQuery
    /// How often data is refreshed.
    package private(set) var updateFrequency: UpdateFrequency
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
    /// Counts changes of the cached data (own reports stored, data fetched, cache purged): alert candidates read
    /// for an older generation are read again.
    package private(set) var dataGeneration = 0
    /// The device's mount state as detection last reported it (nil before detection ran).
    package internal(set) var devicePosition: (inPosition: Bool, horizontal: Bool, inNoise: Bool)?
    /// The latest sample time, Unix seconds (nil before the first sample).
    package internal(set) var engineTime: Double?
    /// The host's clock at the latest call that was not a sample: the engine time before the first sample.
    var hostTime = 0.0

    /// Where the aircraft is.
    var location: EngineNavigation
    /// Detection of the current flight.
    var detection = EngineDetection()
    /// Time and value checks on the host's samples (docs/detection.md §9).
    var timeChecks = SampleTimeChecks(expectsUnixTime: true)
    /// Alert monitoring.
    var alerts = EngineAlerts()
    /// Sync timing and ids.
    var sync: SyncBookkeeping

    /// A core with restored settings (nil: defaults) and no session.
    package init(configuration: EngineCoreConfiguration, aircraft: AircraftType, flight: Flight?, dataQuery: DataQuery,
                 updateFrequency: UpdateFrequency, session: PersistedSession?, barometerCalibration: BarometerCalibration? = nil,
                 flightIDSeed: UInt64 = 0, serverThresholds: ClientThresholds? = nil) {
        self.configuration = configuration
        thresholds = configuration.localThresholds
        sync = SyncBookkeeping(flightIDSeed: flightIDSeed)
        location = EngineNavigation(configuration: configuration.navigation(for: aircraft.aircraftClass),
                                    phase: configuration.flightPhase, barometerCalibration: barometerCalibration)
        self.aircraft = aircraft
        self.flight = flight
        self.dataQuery = dataQuery
        self.updateFrequency = updateFrequency
        self.session = session
        setServerThresholds(serverThresholds)
    }

    /// Takes the thresholds a server sent with a new session (nil: an older server sent none; the local defaults hold).
    /// They apply from the next fix on: flight phase and low power, the position filter's accuracy gate, the GNSS
    /// altitude's vertical accuracy gate.
    package mutating func setServerThresholds(_ server: ClientThresholds?) {
        serverThresholds = server
        thresholds = configuration.localThresholds.overridden(by: server)
        location.apply(thresholds, to: configuration.flightPhase)
    }

    /// Who the current flight's detection belongs to (its report ids' salt).
    var detectionIdentity: DetectionIdentity {
        DetectionIdentity(airline: session?.airline ?? "", userId: session?.userId ?? "",
                          flightKey: flight.flatMap { $0.isTemporary ? nil : $0.key } ?? "",
                          aircraft: aircraft, mount: configuration.deviceMount)
    }

    // MARK: start / stop

    /// Starts a session (the shell checked the identity, validated the key and persisted the session).
    package mutating func start(session: PersistedSession, now: Double) -> EngineStep {
        hostTime = now
        self.session = session
        hasServer = session.environment.baseURL != nil
        isStarted = true
        isRecording = true
        sync.sessionStarted()
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
            alerts.forgetCandidates()
            alerts.forgetAlerted()
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
                location.restartAltitude(configuration: configuration.navigation(for: type.aircraftClass))
            }
            aircraft = type
            alerts.setViewerClass(type.aircraftClass)
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
            sync.forgetFlightID()
            if flight != nil, let change = location.leaveLowPower(at: currentTime), case .lowPower(let on) = change.event {
                effects.append(.callback(.didUpdateLowPowerMode(on)))
            }
            alerts.forgetAlerted()
        }
        effects.append(.persist(.flight(flight)))
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Sets a (validated) data query: its areas are set at once (a changed one is fetched in full).
    package mutating func setDataQuery(_ query: DataQuery, now: Double) -> EngineStep {
        hostTime = now
        dataQuery = query
        sync.forgetRouteCentre()
        alerts.forgetCandidates()
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

    /// Manual barometer calibration from a known field elevation and QNH (on the ground, still).
    package mutating func calibrateBarometer(fieldElevationFeet: Double, qnhHectopascals: Double, now: Double)
        -> (Result<BarometerCalibration, BarometerCalibrationFailure>, EngineStep) {
        hostTime = now
        let result = location.calibrateBarometer(fieldElevationFeet: fieldElevationFeet, qnhHectopascals: qnhHectopascals,
                                                 at: engineTime ?? now)
        var effects: [EngineEffect] = []
        if case .success(let calibration) = result { effects.append(.persist(.barometerCalibration(calibration))) }
        return (result, EngineStep(effects: effects, time: currentTime))
    }

    // MARK: alerts

    /// Starts monitoring a (validated) query; the viewer class is the aircraft's.
    package mutating func startMonitoringAlerts(_ query: AlertQuery) {
        alerts.start(query, viewerClass: aircraft.aircraftClass)
    }

    /// Stops monitoring and forgets what was alerted.
    package mutating func stopMonitoringAlerts() { alerts.stop() }

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
        detection.forgetHeldInputs()
        let wasLowPower = location.isLowPower
        location.restart(configuration: configuration.navigation(for: aircraft.aircraftClass), phase: configuration.flightPhase)
        setServerThresholds(serverThresholds)
        if wasLowPower { effects.append(.callback(.didUpdateLowPowerMode(false))) }
        devicePosition = nil
        alerts.restart()
        if !on, flight?.isTemporary == true {
            flight = nil
            sync.forgetFlightID()
            effects.append(.persist(.flight(nil)))
        }
        return EngineStep(effects: effects, time: currentTime)
    }

    // MARK: sync

    /// The host asked for a fetch now: the next flight-time step is due at once.
    package mutating func fetchRequested() { sync.fetchRequested() }

    /// A sync step ran at `now` (the scheduler's clock) and asked for the next one in `waitSeconds`.
    package mutating func syncStepFinished(waitSeconds: Double, now: Double) {
        sync.syncStepFinished(waitSeconds: waitSeconds, now: now)
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

    // MARK: answers from the shell

    /// What the shell learned applying effects: the reads the core asked for, and cached data that changed. Their
    /// effects come back as one step, applied after the step that asked (docs/engine.md, "Core and shell").
    package mutating func receive(_ feedback: [EngineFeedback]) -> EngineStep {
        var effects: [EngineEffect] = []
        for item in feedback {
            switch item {
            case .alertCandidatesLoaded(let candidates, let polygons, let request):
                alerts.candidatesLoaded(candidates, polygons: polygons, for: request, isSimulated: isSimulating, &effects)
            case .altitudeOffsetsLoaded(let cells):
                location.setFleetOffsets(cells)
            case .cachedDataChanged:
                dataGeneration += 1
            }
        }
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Own reports were stored or cached data fetched: alert candidates read for an older generation are read again.
    mutating func cachedDataChanged() { dataGeneration += 1 }

    /// A demo stored a report.
    mutating func simulatedReportDetected() { hasSimulatedReports = true }
}
