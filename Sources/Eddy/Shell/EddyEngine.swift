import Dispatch
public import EddyAlerts
import EddyDetection
public import EddyNavigation
import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyTerrain
public import EddyVocabulary
public import Foundation
import Logging
package import Synchronization

/// The Eddy engine: the one object a host app starts (docs/engine.md).
///
/// It turns pushed accelerometer, gyro, barometer and location samples into turbulence reports per tile, stores them
/// before anything else happens to them, syncs with an `eddy-server`, tracks the flight phase (low power after
/// landing), evaluates alerts on every location update, and tells its delegate, in order, on the host's queue.
/// Every method is thread-safe. Samples carry Unix epoch seconds (`t`).
///
/// What it does is decided by a pure `EngineCore` held behind one lock; this class only applies the core's effects
/// (store, sync, callbacks) after releasing that lock.
public final class EddyEngine: Sendable {
    /// The configuration it was created with.
    public let configuration: EddyConfiguration
    /// The engine's SQLite store (tools and tests; hosts use `turbulence(_:)`, `nowcast(_:)`, `polygons(_:)` and
    /// `liveFlights(_:)` instead).
    public let store: EddyStore
    private let dispatcher: CallbackDispatcher
    /// Flight time: the latest pushed sample time (0 before the first sample), the sync clock in `.flightTime` mode.
    let flightClock = SampleDrivenClock()
    /// The host's clock for calls that are not samples and for sync: flight time, or the system clock.
    private let clock: any EpochClock
    /// The pure core behind its lock (internal: the query surface in `EddyEngine+Queries.swift` reads it).
    let core: EngineLock<EngineCore>
    private let sync = Mutex<SyncRuntime?>(nil)
    /// SRTM tiles for height above terrain (nil: none configured). Read outside the core's lock.
    private let terrain: TerrainDirectory?
    /// The latest altitude context as delivered (with HAT filled in by the shell).
    private let deliveredAltitude = Mutex<AltitudeContext?>(nil)
    /// The engine's log (nil when `configuration.logging.directory` is nil): written by the shell only, never under
    /// the core's lock; lines are queued for a writer thread (docs/engine.md "Logging").
    let logger: Logger?
    private let logFile: RollingLogFile?
    /// Removes the API key, user id and tokens from every log line.
    private let redactor = LogRedactor()
    /// The demo that runs, if any (EddyEngine+Demo.swift).
    let demo = DemoRunner()
    /// Reports of crossings entered before this Unix time are dropped (neither stored nor announced); nil: none is.
    /// For a resumed replay (`eddy replay --engine --server --db`, docs/reliability.md): its detection warms up on
    /// samples a killed run had already turned into stored reports.
    package let reportFloorTime = Mutex<Double?>(nil)
    /// Own reports the store refused (disk full, a failing volume), oldest first, kept in memory and stored (then
    /// announced) when the store works again (`UnstoredReports`).
    package let unstoredReports = Mutex<UnstoredReports>(UnstoredReports())

    private struct SyncRuntime: Sendable {
        var client: SyncClient
        var scheduler: SyncScheduler
        var loop: SyncLoop?
    }

    private static let aircraftKey = "engine.aircraft"
    private static let flightKey = "engine.flight"
    private static let dataQueryKey = "engine.dataQuery"
    private static let frequencyKey = "engine.updateFrequency"
    private static let sessionKey = "engine.session"
    private static let barometerCalibrationKey = "engine.barometerCalibration"
    /// Session value: the client thresholds of the last session's server (JSON), kept for offline restarts.
    static let serverThresholdsKey = "engine.serverThresholds"

    /// Opens (or creates) the store and restores the persisted aircraft, flight, data query and update frequency.
    public init(configuration: EddyConfiguration) throws(EddyError) {
        self.configuration = configuration
        do {
            store = try EddyStore.open(path: configuration.storePath, options: configuration.storeOptions)
        } catch {
            throw .store(error)
        }
        clock = configuration.syncTiming == .flightTime ? flightClock : SystemEpochClock()
        do {
            terrain = try configuration.terrainDirectory.map { path throws(TerrainError) in try TerrainDirectory(path: path) }
        } catch {
            try? store.close()
            throw .terrain(error)
        }
        dispatcher = CallbackDispatcher(delivery: configuration.delivery)
        if let directory = configuration.logging.directory {
            let file = RollingLogFile(directory: URL(fileURLWithPath: directory), maximumFileBytes: configuration.logging.maximumFileBytes,
                                      fileCount: configuration.logging.fileCount)
            let (redactor, level) = (redactor, configuration.logging.level.swiftLogLevel)
            logFile = file
            logger = Logger(label: "eddy.engine") { _ in EngineLogHandler(file: file, redactor: redactor, level: level) }
        } else {
            logFile = nil
            logger = nil
        }
        let defaultAircraft = AircraftTypeTable.type(designator: "B738") ?? AircraftTypeTable.all[0]
        let aircraft = (try? store.configuration(AircraftType.self, forKey: Self.aircraftKey)) ?? nil
        let flight = (try? store.configuration(Flight.self, forKey: Self.flightKey)) ?? nil
        let query = (try? store.configuration(DataQuery.self, forKey: Self.dataQueryKey)) ?? nil
        let frequency = ((try? store.configurationValue(forKey: Self.frequencyKey)) ?? nil).flatMap(UpdateFrequency.init(rawValue:))
        let session = ((try? store.sessionValue(forKey: Self.sessionKey)) ?? nil)
            .flatMap { try? JSONDecoder().decode(PersistedSession.self, from: Data($0.utf8)) }
        let calibration = (try? store.configuration(BarometerCalibration.self, forKey: Self.barometerCalibrationKey)) ?? nil
        let serverThresholds = ((try? store.sessionValue(forKey: Self.serverThresholdsKey)) ?? nil)
            .flatMap { try? JSONDecoder().decode(ClientThresholds.self, from: Data($0.utf8)) }
        core = EngineLock(EngineCore(
            configuration: EngineCoreConfiguration(configuration), aircraft: aircraft ?? defaultAircraft, flight: flight,
            dataQuery: query ?? DataQuery(), updateFrequency: frequency ?? .fast, session: session,
            barometerCalibration: calibration, flightIDSeed: UInt64.random(in: .min ... .max), serverThresholds: serverThresholds))
    }

    deinit {
        sync.withLock(visibleToThreadSanitizerAs: self) { $0?.loop?.stop() }
    }

    // MARK: delegate

    /// The delegate (held weakly). Callbacks arrive on the configured queue, in order.
    public var delegate: (any EddyDelegate)? {
        get { dispatcher.delegate }
        set { dispatcher.delegate = newValue }
    }

    /// Sees every callback with its engine time and sequence number, just before the delegate does (timelines, logs).
    public var callbackObserver: (@Sendable (TimedCallback) -> Void)? {
        get { dispatcher.observer }
        set { dispatcher.observer = newValue }
    }

    /// Whether some thread holds the lock around the engine's core (tests check that no I/O runs while it is held).
    package var isCoreLockHeld: Bool { core.isHeld }

    // MARK: start / stop

    /// Whether `start` succeeded and `stop` was not called since.
    public var isStarted: Bool { core.withLock { $0.isStarted } }
    /// Whether the engine records (started, and the server has not refused the key or client).
    public var isRecording: Bool { core.withLock { $0.isRecording } }
    /// Whether low power mode is on (after landing: no detection, no high-rate processing).
    public var isLowPowerMode: Bool { core.withLock { $0.isLowPowerMode } }
    /// The flight phase decided from speed and altitude.
    public var flightPhase: FlightPhase { core.withLock { $0.flightPhase } }
    /// The latest sample time, Unix seconds (nil before the first sample).
    public var engineTime: Double? { core.withLock { $0.engineTime } }
    /// The latest altitude context (nil before the first fix with an altitude); `didUpdateAltitudeContext(_:)` tells
    /// when it changes.
    public var altitudeContext: AltitudeContext? {
        let latest = core.withLock { $0.altitudeContext }
        let delivered = deliveredAltitude.withLock(visibleToThreadSanitizerAs: self) { $0 }
        guard var latest else { return nil }
        // The core's latest value, with the last HAT the shell computed when it is for the same fix.
        if let delivered, delivered.time == latest.time { latest = delivered }
        return latest
    }
    /// The barometer's calibration state now (stale after `EddyConfiguration.barometerCalibrationStaleDays`).
    public var barometerCalibrationState: BarometerCalibrationState {
        let now = hostNow()
        return core.withLock { $0.calibrationState(at: $0.engineTime ?? now) }
    }

    /// Calibrates the barometer from a known field elevation (feet above MSL) and the QNH (hPa), on the ground and
    /// still; the calibration is persisted with its time. Fails with what to do (moving, pressure changing, no
    /// pressure, pressurised cabin, implausible values).
    @discardableResult
    public func calibrateBarometer(fieldElevationFeet: Double, qnhHectopascals: Double) throws(BarometerCalibrationFailure) -> BarometerCalibration {
        let now = hostNow()
        let (result, step) = core.withLock { $0.calibrateBarometer(fieldElevationFeet: fieldElevationFeet, qnhHectopascals: qnhHectopascals, now: now) }
        apply(step)
        return try result.get()
    }

    /// Starts the engine and calls `completion` on the delivery queue (SkyPath's `start(apiKey:airline:userId:env:)`).
    public func start(apiKey: String, airline: String, userId: String, environment: EddyEnvironment,
                      completion: @escaping @Sendable (Result<Void, EddyError>) -> Void) {
        let delivery = configuration.delivery
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(EddyError) in
                try startNow(apiKey: apiKey, airline: airline, userId: userId, environment: environment)
            }
            switch delivery {
            case .queue(let queue): queue.async { completion(result) }
            case .callerThread: completion(result)
            }
        }
    }

    /// Starts the engine: checks the identity, validates the API key with the server on the first start (later starts
    /// with the same identity and environment work offline from the persisted session), then starts recording and sync.
    public func start(apiKey: String, airline: String, userId: String, environment: EddyEnvironment) async throws(EddyError) {
        let result: Result<Void, EddyError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                continuation.resume(returning: Result { () throws(EddyError) in
                    try startNow(apiKey: apiKey, airline: airline, userId: userId, environment: environment)
                })
            }
        }
        try result.get()
    }

    /// The blocking start (`start(…)` runs it off the caller's thread).
    public func startNow(apiKey: String, airline: String, userId: String, environment: EddyEnvironment) throws(EddyError) {
        redactor.add(apiKey)
        redactor.add(userId)
        logger?.info("start", metadata: ["airline": "\(airline)", "server": "\(environment.baseURL ?? "offline")"])
        do {
            try startLogged(apiKey: apiKey, airline: airline, userId: userId, environment: environment)
        } catch {
            logger?.warning("start failed: \(error)")
            throw error
        }
        logger?.info("started", metadata: ["recording": "\(isRecording)"])
    }

    private func startLogged(apiKey: String, airline: String, userId: String, environment: EddyEnvironment) throws(EddyError) {
        guard !apiKey.isEmpty else { throw .apiKeyInvalid("the API key is empty") }
        guard airline.unicodeScalars.count == 3, airline.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw .userIdOrAirlineInvalid("airline \"\(airline)\" is not a 3-character ICAO code in upper case (e.g. DAL)")
        }
        guard (1...128).contains(userId.unicodeScalars.count) else {
            throw .userIdOrAirlineInvalid("user id must have 1 to 128 characters, got \(userId.unicodeScalars.count)")
        }
        try environment.validate()
        let session = PersistedSession(apiKey: apiKey, airline: airline, userId: userId, environment: environment)
        // Already running with this identity: nothing to do. After the server refused the key or client (403, 401,
        // 426: started but not recording), a start is a restart: the key is validated again, the cache is kept.
        let (alreadyStarted, refused, persisted) = core.withLock {
            ($0.isStarted && $0.isRecording && $0.session == session, $0.isStarted && !$0.isRecording, $0.session)
        }
        if alreadyStarted { logger?.debug("start: already started with this identity"); return }
        stopSync()

        var runtime: SyncRuntime?
        if let baseURL = environment.baseURL {
            let transport: any HTTPTransport
            do {
                transport = try configuration.transport.makeTransport(TransportConfiguration(
                    baseURL: baseURL, proxy: environment.proxy, connectTimeoutSeconds: configuration.connectTimeoutSeconds,
                    totalTimeoutSeconds: configuration.requestTimeoutSeconds))
            } catch { throw .environmentInvalid("\(configuration.transport.name) transport: \(error)") }
            let observed = configuration.transportWrapper?(transport) ?? transport
            let client = SyncClient(
                transport: logger.map { LoggingTransport(base: observed, logger: $0) } ?? observed,
                identity: ClientIdentity(apiKey: apiKey, airline: airline, userId: userId, clientVersion: configuration.clientVersion),
                clock: clock, sessionStarted: { [weak self] settings in self?.serverSettingsReceived(settings) })
            if persisted != session || refused {
                logger?.info(refused ? "session: validating the key again after the server refused it" : "session: validating the key")
                // First start with this identity, or a restart after a refusal: the key must be validated by the server.
                do { try client.startSession() } catch { throw EddyError.starting(error) }
            }
            let scheduler = SyncScheduler(client: client, store: store, clock: clock, configuration: core.withLock { $0.schedulerConfiguration },
                                          events: { [weak self] event in self?.handle(event) })
            runtime = SyncRuntime(client: client, scheduler: scheduler, loop: nil)
        }
        do {
            let text = String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
            try store.setSessionValue(text, forKey: Self.sessionKey)
        } catch { throw .storeFailure(error, storePath: configuration.storePath) }

        let now = hostNow()
        let step = core.withLock { $0.start(session: session, now: now) }
        if let runtime { sync.withLock(visibleToThreadSanitizerAs: self) { $0 = runtime } }
        apply(step)
        if let runtime, configuration.syncTiming == .wallClock {
            let loop = SyncLoop(scheduler: runtime.scheduler, idleSeconds: 1)
            sync.withLock(visibleToThreadSanitizerAs: self) { $0?.loop = loop }
            loop.start()
        }
    }

    /// Stops everything: detection of the current flight is closed (its last tile stored), sync stops, the session and
    /// every fetched datum are deleted (SkyPath semantics). Own reports not yet acknowledged stay in the outbox and are
    /// uploaded after the next `start`. Call `start` again to resume.
    public func stop() {
        logger?.info("stop: sync stopped, session and fetched data deleted, outbox kept")
        stopDemo()   // a demo's open tile is stored (flagged) and the location state restarts before the session ends
        stopSync()
        let now = hostNow()
        apply(core.withLock { $0.stop(now: now) })
    }

    private func stopSync() {
        let runtime = sync.withLock(visibleToThreadSanitizerAs: self) { r -> SyncRuntime? in defer { r = nil }; return r }
        runtime?.loop?.stop()
    }

    // MARK: aircraft, flight, data query

    /// Every aircraft type in the committed table (ICAO Doc 8643 designators; docs/alerts.md).
    public static var aircraftTypes: [AircraftType] { AircraftTypeTable.all }

    /// The aircraft (default B738 until the host sets one); persisted.
    public var aircraft: AircraftType { core.withLock { $0.aircraft } }

    /// Chooses the aircraft by ICAO type designator ("B738", "C172"); its class sets detection and severities.
    public func setAircraft(designator: String) throws(EddyError) {
        let type: AircraftType
        do { type = try AircraftTypeTable.requireType(designator: designator) } catch { throw .unknownAircraft(error.description) }
        let now = hostNow()
        apply(core.withLock { $0.setAircraft(type, now: now) })
    }

    /// The current flight (set by the host, or temporary while airborne without one).
    public var flight: Flight? { core.withLock { $0.flight } }

    /// Sets the flight (nil ends it); persisted. A new flight closes the previous one's detection and leaves low power.
    public func setFlight(_ flight: Flight?) {
        let now = hostNow()
        apply(core.withLock { $0.setFlight(flight, now: now) })
    }

    /// What is fetched and for where; persisted.
    public var dataQuery: DataQuery { core.withLock { $0.dataQuery } }

    /// Sets the data query after checking it; a changed area is fetched at once, in full.
    public func setDataQuery(_ query: DataQuery) throws(EddyError) {
        try query.validate()
        let now = hostNow()
        apply(core.withLock { $0.setDataQuery(query, now: now) })
    }

    /// How often data is refreshed (intervals from the server's settings); persisted.
    public var updateFrequency: UpdateFrequency {
        get { core.withLock { $0.updateFrequency } }
        set {
            let now = hostNow()
            apply(core.withLock { $0.setUpdateFrequency(newValue, now: now) })
        }
    }

    /// Fetches every area × data type now; `refresh` forgets the ticks so the fetch is full.
    public func fetchData(refresh: Bool) throws(EddyError) {
        guard isStarted else { throw .notStarted }
        guard let scheduler = sync.withLock(visibleToThreadSanitizerAs: self, { $0?.scheduler }) else { return }
        if refresh {
            do { try store.resetSyncStates() } catch { throw .store(error) }
        }
        scheduler.fetchNow()
        core.withLock { $0.fetchRequested() }
        wakeSync()
    }

    /// The cached turbulence the data query asks for in one of its areas (worst report per tile): its history window,
    /// altitude range and `minimumSeverity` for the aircraft's class, at engine time. Empty when that area is not set
    /// (the route area without a route polygon is the circle around the latest position).
    public func turbulence(in areaType: DataAreaType) throws(EddyError) -> [TurbulenceItem] {
        let (query, motion) = core.withLock { ($0.turbulenceQuery(for: areaType), $0.ownMotion) }
        guard let query else { return [] }
        do {
            return EngineQueries.alongTrack(try store.turbulence(query), motion: motion,
                                            corridorHalfWidthNM: AlongTrackGeometry.defaultCorridorHalfWidthNM)
        } catch { throw .storeFailure(error, storePath: configuration.storePath) }
    }

    /// Runs one sync step now on the calling thread (uploads the outbox, the position and whatever fetch is due).
    /// Useful at the end of a replay and in tests; live hosts need not call it.
    public func syncNow() {
        guard let scheduler = sync.withLock(visibleToThreadSanitizerAs: self, { $0?.scheduler }) else { return }
        let wait = scheduler.step()
        let now = flightClock.now()
        core.withLock { $0.syncStepFinished(waitSeconds: wait, now: now) }
    }

    /// Server reachability as last observed (nil before the first request or without a server).
    public var isServerReachable: Bool? { sync.withLock(visibleToThreadSanitizerAs: self) { $0?.scheduler.isReachable } }

    /// Fetching status of an area × data type.
    public func fetchingStatus(areaType: DataAreaType, dataType: DataType) -> FetchingStatus {
        guard let scheduler = sync.withLock(visibleToThreadSanitizerAs: self, { $0?.scheduler }) else { return .idle }
        return scheduler.fetchingStatus(area: areaType, dataType: dataType)
    }

    private func wakeSync() { sync.withLock(visibleToThreadSanitizerAs: self) { $0?.loop?.wake() } }

    // MARK: sensor input

    /// Pushes one sample (Unix epoch seconds). Accelerometer, gyro and barometer feed detection; a location sample
    /// (device, external GPS or ADS-B own-ship) also drives the flight phase, the fetch area and alert monitoring.
    /// Samples are ignored before `start` and, except locations, in low power mode.
    public func push(_ sample: SensorSample) {
        let step = core.withLock { $0.push(sample) }
        if configuration.syncTiming == .flightTime { flightClock.advance(to: step.time) }
        apply(step)
    }

    /// Pushes samples in order.
    public func push<S: Sequence>(contentsOf samples: S) where S.Element == SensorSample {
        for sample in samples { push(sample) }
    }

    /// Tells the engine the host's location source failed (delivered as `locationManagerDidFail(withError:)`).
    public func reportLocationFailure(_ message: String) {
        let now = hostNow()
        apply(core.withLock { $0.locationFailure(message, now: now) })
    }

    /// Ends the current flight's detection: the open tile crossing is closed and stored (end of a replay).
    public func finishDetection() {
        let now = hostNow()
        apply(core.withLock { $0.finishDetection(now: now) })
    }

    // MARK: alerts

    /// Starts evaluating `query` on every location update; `didReceiveAlert(_:)` fires only when the alerting set
    /// changes (A1 A1 A1 → one alert, A1 A2 A1 → three). The viewer class is the aircraft's.
    public func startMonitoringAlerts(with query: AlertQuery) throws(EddyError) {
        do { try query.validate() } catch { throw .alertQuery(error) }
        core.withLock { $0.startMonitoringAlerts(query) }
    }

    /// Stops alert monitoring and forgets what was alerted.
    public func stopMonitoringAlerts() {
        core.withLock { $0.stopMonitoringAlerts() }
    }

    /// Whether alerts are being monitored.
    public var isMonitoringAlerts: Bool { core.withLock { $0.alertQuery != nil } }

    /// Evaluates `query` once at the latest position (no notify-on-change bookkeeping).
    public func alerts(with query: AlertQuery) throws(EddyError) -> EddyAlert {
        var query = query
        do { try query.validate() } catch { throw .alertQuery(error) }
        let context = core.withLock { $0.alertContext }
        query.viewerClass = context.viewer
        guard let fix = context.fix, let position = AlertPosition(fix: fix) else { throw .noLocation }
        let candidates: [AlertCandidate], polygons: [TurbulencePolygon]
        do {
            candidates = try AlertCandidateLoader.load(store: store, query: query, position: position, history: context.history)
            polygons = try AlertCandidateLoader.polygons(store: store, query: query, history: context.history)
        } catch { throw .storeFailure(error, storePath: configuration.storePath) }
        return try AlertComputation.oneShot(query: query, fix: fix, position: position, candidates: candidates, polygons: polygons)
    }

    // MARK: sync events

    private func handle(_ event: SyncEvent) {
        log(event)
        let now = hostNow()
        apply(core.withLock { $0.syncEvent(event, now: now) })
    }

    // MARK: effects

    /// The host's clock for calls that are not samples: flight time (0 before the first sample) when sync runs on
    /// flight time, else the system clock.
    func hostNow() -> Double { clock.now() }

    /// Applies a core step, never holding the core's lock, in the core's order: storage and scheduler-state effects
    /// one after the other (a storage failure becomes a callback in place; alert candidates go back to the core, whose
    /// answer is applied in place), then the callbacks, then the sync step or wake-up (a step raises callbacks of its
    /// own, which must come after the ones that caused it).
    func apply(_ step: EngineStep) {
        guard !step.isEmpty else { return }
        assert(!core.isHeldByCurrentThread, "effects are applied outside the engine's lock")
        var pending = step.effects[...]
        var callbacks: [EddyCallback] = []
        var runStep = false, wake = false
        var time = step.time
        var lookedUp: SyncScheduler??   // looked up once, when the first scheduler effect needs it
        func scheduler() -> SyncScheduler? {
            if lookedUp == nil { lookedUp = .some(sync.withLock(visibleToThreadSanitizerAs: self) { $0?.scheduler }) }
            return lookedUp ?? nil
        }
        while let effect = pending.popFirst() {
            switch effect {
            case .storeOwnReport(let detected):
                if !detected.isSimulated, let floor = reportFloorTime.withLock(visibleToThreadSanitizerAs: self, { $0 }), detected.report.enterTime < floor {
                    continue
                }
                storeOwnReports(new: detected, into: &callbacks)
            case .persist(let setting):
                do { try persist(setting) } catch { callbacks.append(.didFailToAccessStore(StoreFailure(.persistSetting, error))) }
            case .forgetSessionAndFetchedData:
                do {
                    try store.setSessionValue(nil, forKey: Self.sessionKey)
                    try store.setSessionValue(nil, forKey: Self.serverThresholdsKey)
                    try store.clearFetchedData()
                } catch {
                    callbacks.append(.didFailToAccessStore(StoreFailure(.clearCache, error)))
                }
            case .purgeExpired(let now):
                storeOwnReports(new: nil, into: &callbacks)   // a retry at least every 10 minutes while reports wait
                do {
                    let summary = try store.purgeExpired(now: now)
                    if summary.observations + summary.observationsOverCap > 0 { core.withLock { $0.cachedDataChanged() } }
                } catch {
                    callbacks.append(.didFailToAccessStore(StoreFailure(.purgeExpiredData, error)))
                }
            case .loadAlertCandidates(let request):
                do {
                    let candidates = try AlertCandidateLoader.load(store: store, request)
                    let polygons = try AlertCandidateLoader.polygons(store: store, query: request.query, history: request.history)
                    let next = core.withLock { $0.alertCandidatesLoaded(candidates, polygons: polygons, for: request) }
                    time = next.time
                    pending.insert(contentsOf: next.effects, at: pending.startIndex)
                } catch {
                    callbacks.append(.didFailToAccessStore(StoreFailure(.readAlertCandidates, error, storePath: configuration.storePath)))
                }
            case .announceCachedData(let areas):
                if ((try? store.observationCount()) ?? 0) > 0 {
                    callbacks += areas.map { .didReceiveNewTurbulenceData(areaType: $0) }
                }
            case .callback(.didUpdateAltitudeContext(let context)):
                let withTerrain = heightAboveTerrain(context)
                deliveredAltitude.withLock(visibleToThreadSanitizerAs: self) { $0 = withTerrain }
                callbacks.append(.didUpdateAltitudeContext(withTerrain))
            case .callback(let callback):
                callbacks.append(callback)
            case .configureSync(let wanted):
                scheduler()?.configure { $0 = wanted }
            case .setFetchArea(let area, let type):
                try? scheduler()?.setArea(area, for: type)
            case .uploadPosition(let position, let offset):
                scheduler()?.updatePosition(position, altitudeOffset: offset)
            case .loadAltitudeOffsets(let request):
                // A read failure leaves the estimators with what they had (offsets are an aid, not a requirement).
                if let cells = try? store.altitudeOffsets(
                    nearLatitude: request.latitudeDegrees, longitude: request.longitudeDegrees, layer: request.layer,
                    maxAgeSeconds: request.maxAgeSeconds, now: request.now) {
                    core.withLock { $0.altitudeOffsetsLoaded(cells) }
                }
            case .runSyncStep:
                storeOwnReports(new: nil, into: &callbacks)   // and before each sync step, so they upload with it
                runStep = true
            case .wakeSync:
                wake = true
            }
        }
        if let logger { for callback in callbacks { log(callback, logger) } }
        dispatcher.emit(callbacks, at: time)
        if runStep { syncNow() }
        if wake { wakeSync() }
    }

    /// Stores the reports waiting in memory, oldest first, then `new`; each stored report is announced
    /// (`detectedTurbulence`) as it is stored. A refusal stops the attempt (the store is still failing) and keeps the
    /// rest waiting; `new`, if refused, is reported with `didFailToAccessStore(.storeOwnReport)` once. Never under the
    /// core's lock.
    private func storeOwnReports(new: DetectedTurbulence?, into callbacks: inout [EddyCallback]) {
        var waiting = unstoredReports.withLock(visibleToThreadSanitizerAs: self) { $0.takeAll() }
        if waiting.isEmpty, new == nil { return }
        if let new { waiting.append(new) }
        var stored = 0
        var failure: StoreError?
        for detected in waiting {
            do {
                // Stored before anything else happens to it; a demo's report as a local simulated observation.
                if detected.isSimulated { try storeSimulatedReport(detected.report) } else { _ = try store.insertOwnReports([detected.report]) }
                callbacks.append(.detectedTurbulence(detected))
                stored += 1
            } catch {
                failure = error
                break
            }
        }
        guard let failure else { return }
        if let new {   // a refusal always stops before the end, so `new` was refused or never reached
            callbacks.append(.didFailToAccessStore(StoreFailure(.storeOwnReport, failure, reportId: new.report.id)))
        }
        let dropped = unstoredReports.withLock(visibleToThreadSanitizerAs: self) { $0.putBack(waiting[stored...]) }
        for lost in dropped {
            logger?.error("own report \(lost.report.id) dropped: \(UnstoredReports.capacity) reports already wait for the store")
        }
    }

    // MARK: logging

    /// The log as one file, oldest line first (`exportLogs.log` in the log directory, replaced at each call), for a
    /// pilot's problem report. Throws when logging is off or the file cannot be written.
    public func exportLogs() throws(EddyError) -> URL {
        guard let logFile else { throw .logging("logging is off: set EddyConfiguration.logging.directory") }
        let destination = logFile.directory.appendingPathComponent("exportLogs.log")
        do {
            try FileManager.default.createDirectory(at: logFile.directory, withIntermediateDirectories: true)
            try logFile.export(to: destination)
        } catch {
            throw .logging("could not write \(destination.path): \(error.localizedDescription). Check the directory is writable.")
        }
        return destination
    }

    /// Waits until every queued log line is in the file.
    package func flushLogs() { logFile?.flush() }

    /// A sync event at its level (uploads info, data debug, failures warning with the back-off, refusals error).
    private func log(_ event: SyncEvent) {
        guard let logger else { return }
        switch event {
        case .reachabilityChanged(let reachable): logger.notice("sync: server \(reachable ? "reachable" : "unreachable")")
        case .fetchingStatusChanged(let area, let dataType, let status): logger.trace("sync: \(area.rawValue) \(dataType.rawValue) \(status)")
        case .receivedData(let area, let dataType, let count, let full):
            logger.debug("sync: received \(dataType.rawValue) for \(area.rawValue)", metadata: ["items": "\(count)", "full": "\(full)"])
        case .uploaded(let accepted, let duplicates, let rejected):
            logger.info("sync: reports uploaded", metadata: ["accepted": "\(accepted)", "duplicates": "\(duplicates)", "rejected": "\(rejected)"])
        case .failed(let error):
            let retry = sync.withLock(visibleToThreadSanitizerAs: self) { $0?.scheduler.retryNotBefore } ?? 0
            let wait = retry > 0 ? String(format: "%.0f", max(0, retry - clock.now())) : "0"
            logger.warning("sync: request failed: \(error)", metadata: ["backoffSeconds": "\(wait)"])
        case .recordingStopped(let error):
            logger.error("sync: the server refused this client, recording stopped (start again with a valid key): \(error)")
        }
    }

    /// A callback at its level (store failures error; inconsistencies, location failures, fetch failures warning).
    private func log(_ callback: EddyCallback, _ logger: Logger) {
        switch callback {
        case .didFailToAccessStore(let failure): logger.error("store: \(failure)")
        case .didDetectInconsistency(let warning): logger.warning("inconsistency: \(warning)")
        case .didReceiveMeasurementNotice(let notice): logger.notice("measurement: \(notice.phase.rawValue) \(notice.kindName): \(notice.reason)")
        case .locationManagerDidFail(let error): logger.warning("location: \(error)")
        case .didFailToFetchNewData(let error): logger.warning("fetch failed: \(error)")
        case .didUpdateRecordingStatus(let on): logger.info("recording \(on ? "on" : "off")")
        case .didUpdateLowPowerMode(let on): logger.info("low power \(on ? "on" : "off")")
        case .didReceiveAlert(let alert): logger.info("alert: \(alert.items.count) items")
        case .detectedTurbulence(let detected):
            logger.debug("detected \(detected.severity.name)", metadata: ["layer": "\(detected.report.tile.layer)", "edrPeak": "\(detected.report.edrPeak)"])
        default: logger.trace("callback \(callback.name)")
        }
    }

    /// Fills HAT from the terrain directory (I/O at the edge, outside the lock): HAT = MSL − terrain elevation, the
    /// DEM's LE90 and the altitude's uncertainty in quadrature. A terrain read error leaves HAT empty.
    private func heightAboveTerrain(_ context: AltitudeContext) -> AltitudeContext {
        guard let terrain, let msl = context.mslMeters, let u68 = context.mslU68Meters,
              let position = core.withLock({ $0.lastFix }) else { return context }
        guard let elevation = try? terrain.elevationMeters(latitudeDegrees: position.latitudeDegrees, longitudeDegrees: position.longitudeDegrees),
              let hat = elevation.heightAboveTerrain(mslMeters: msl, uMSL68Meters: u68) else { return context }
        var filled = context
        filled.hatMeters = hat.meters
        filled.hatU68Meters = hat.uncertainty68Meters
        filled.hatU90Meters = hat.uncertainty90Meters
        return filled
    }

    private func persist(_ setting: EngineSetting) throws(StoreError) {
        switch setting {
        case .aircraft(let type): try store.setConfiguration(type, forKey: Self.aircraftKey)
        case .flight(let flight?): try store.setConfiguration(flight, forKey: Self.flightKey)
        case .flight(nil): try store.setConfigurationValue(nil, forKey: Self.flightKey)
        case .dataQuery(let query): try store.setConfiguration(query, forKey: Self.dataQueryKey)
        case .updateFrequency(let frequency): try store.setConfigurationValue(frequency.rawValue, forKey: Self.frequencyKey)
        case .barometerCalibration(let calibration): try store.setConfiguration(calibration, forKey: Self.barometerCalibrationKey)
        }
    }
}
