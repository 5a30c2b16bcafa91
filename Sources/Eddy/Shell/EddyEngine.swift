public import EddyAlerts
public import EddyNavigation
package import EddyStore
import EddySupport
import EddySync
import EddyTerrain
public import EddyVocabulary
import Foundation
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
/// (store, sync, callbacks) after releasing that lock, through the one `EffectInterpreter`. Sessions and sync are in
/// EddyEngine+Session.swift, queries in EddyEngine+Queries.swift, logs in EddyEngine+Logging.swift.
public final class EddyEngine: Sendable {
    /// The configuration it was created with.
    public let configuration: EddyConfiguration
    /// The engine's SQLite store (Eddy's own tools and tests; hosts use `turbulence(_:)`, `nowcast(_:)`,
    /// `polygons(_:)` and `liveFlights(_:)`).
    package let store: EddyStore
    let dispatcher: CallbackDispatcher
    /// Flight time: the latest pushed sample time (0 before the first sample), the sync clock in `.flightTime` mode.
    let flightClock = SampleDrivenClock()
    /// The host's clock for calls that are not samples and for sync: flight time, or the configuration's wall clock.
    let clock: any EpochClock
    /// The pure core behind its lock (internal: the query surface in `EddyEngine+Queries.swift` reads it).
    let core: EngineLock<EngineCore>
    /// The current session's sync (nil: offline or stopped).
    let sync = Mutex<SyncRuntime?>(nil)
    /// SRTM tiles for height above terrain (nil: none configured). Read outside the core's lock.
    let terrain: TerrainDirectory?
    /// The latest altitude context as delivered (with HAT filled in by the shell).
    private let deliveredAltitude = Mutex<AltitudeContext?>(nil)
    /// The engine's log (nil when `configuration.logging.directory` is nil): written by the shell only, never under
    /// the core's lock; lines are queued for a writer thread (docs/engine.md "Logging").
    let logger: Logger?
    let logFile: RollingLogFile?
    /// Where the session's API key and user id are kept (`EddyConfiguration.credentialStore`), never in `store`.
    let sessionCredentials: EngineSettings.SessionCredentials
    /// Removes the API key, user id and tokens from every log line.
    let redactor = LogRedactor()
    /// What the current session did, for the log's session summary (`SessionSummary`).
    let sessionSummary = Mutex<SessionSummary>(SessionSummary())
    /// The demo that runs, if any (EddyEngine+Demo.swift).
    let demo = DemoRunner()
    /// Reports of crossings entered before this Unix time are dropped (neither stored nor announced); nil: none is.
    /// For a resumed replay (`eddy replay --engine --server --db`, docs/reliability.md): its detection warms up on
    /// samples a killed run had already turned into stored reports.
    package let reportFloorTime = Mutex<Double?>(nil)
    /// Own reports the store refused (disk full, a failing volume), oldest first, kept in memory and stored (then
    /// announced) when the store works again (`UnstoredReports`).
    package let unstoredReports = Mutex<UnstoredReports>(UnstoredReports())

    /// Opens (or creates) the store and restores the persisted aircraft, flight, data query and update frequency.
    public init(configuration: EddyConfiguration) throws(EddyError) {
        self.configuration = configuration
        do {
            store = try EddyStore.open(path: configuration.storePath, options: configuration.storeOptions)
        } catch {
            throw .store(error)
        }
        clock = configuration.syncTiming == .flightTime ? flightClock : configuration.wallClock
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
            let (redactor, level, wallClock) = (redactor, configuration.logging.level.swiftLogLevel, configuration.wallClock)
            logFile = file
            logger = Logger(label: "eddy.engine") { _ in EngineLogHandler(file: file, redactor: redactor, level: level, clock: wallClock) }
        } else {
            logFile = nil
            logger = nil
        }
        sessionCredentials = EngineSettings.SessionCredentials(store: configuration.credentialStore, storePath: configuration.storePath)
        let restored = EngineSettings.restore(from: store, credentials: sessionCredentials)
        for note in restored.notes { logger?.warning("session: \(note)") }
        if let session = restored.session { redactor.add(session.apiKey); redactor.add(session.userId) }
        if let protection = configuration.storeFileProtection {
            let paths = StoreFileProtection.paths(storePath: configuration.storePath, logDirectory: configuration.logging.directory)
            for refusal in StoreFileProtection.apply(protection, to: paths) {
                logger?.warning("data protection \(protection.rawValue) not applied to \(refusal.path): \(refusal.reason)")
            }
        }
        let defaultAircraft = AircraftTypeTable.type(designator: "B738") ?? AircraftTypeTable.all[0]
        core = EngineLock(EngineCore(
            configuration: EngineCoreConfiguration(configuration), aircraft: restored.aircraft ?? defaultAircraft,
            flight: restored.flight, dataQuery: restored.dataQuery ?? DataQuery(), updateFrequency: restored.updateFrequency ?? .fast,
            session: restored.session, barometerCalibration: restored.barometerCalibration,
            flightIDSeed: UInt64.random(in: .min ... .max), serverThresholds: restored.serverThresholds))
    }

    deinit {
        sync.withLock(visibleToThreadSanitizerAs: self) { $0?.stopLoop() }
    }

    // MARK: delegate

    /// The delegate, held **weakly** (as in the anchor SDK): keep a strong reference to it yourself, e.g. in your app
    /// model; a delegate created inline (`engine.delegate = MyDelegate()`) is released at once and hears nothing.
    /// Callbacks arrive on the configured queue, in order.
    public var delegate: (any EddyDelegate)? {
        get { dispatcher.delegate }
        set { dispatcher.delegate = newValue }
    }

    /// The main-actor delegate, held weakly: callbacks always reach it on the main queue, in order (a `@MainActor`
    /// model adopts `EddyMainActorDelegate` without `@preconcurrency`; docs/engine.md "Swift 6 apps").
    public var mainActorDelegate: (any EddyMainActorDelegate)? {
        get { dispatcher.mainActorDelegate }
        set { dispatcher.mainActorDelegate = newValue }
    }

    /// Every callback from now on, with its engine time and sequence number, as an `AsyncSequence` (for apps that
    /// prefer `for await` to a delegate); the newest `limit` wait when the consumer is slower. Ends when the consumer
    /// stops iterating.
    public func events(bufferingNewest limit: Int = 1_000) -> AsyncStream<TimedCallback> {
        dispatcher.events(bufferingNewest: limit)
    }

    /// Sees every callback with its engine time and sequence number, just before the delegate does (timelines, logs).
    public var callbackObserver: (@Sendable (TimedCallback) -> Void)? {
        get { dispatcher.observer }
        set { dispatcher.observer = newValue }
    }

    /// Whether some thread holds the lock around the engine's core (tests check that no I/O runs while it is held).
    package var isCoreLockHeld: Bool { core.isHeld }

    // MARK: state

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

    // MARK: flight levels (docs/altitude.md "Host hints")

    /// Sets the planned cruise flight levels from the operational flight plan (350 = FL350); [] clears them.
    public func setPlannedCruiseLevels(_ flightLevels: [Int]) throws(EddyError) {
        if let bad = flightLevels.first(where: { !(0...600).contains($0) }) { throw .flightLevelHintInvalid("planned level \(bad) is not a flight level 0…600") }
        core.withLock { $0.setPlannedCruiseLevels(feet: flightLevels.map { Double($0) * 100 }) }
    }

    /// Sets the flight level ATC cleared the aircraft to (350 = FL350), from now on; nil: none.
    public func setClearedFlightLevel(_ flightLevel: Int?) throws(EddyError) {
        if let flightLevel, !(0...600).contains(flightLevel) { throw .flightLevelHintInvalid("cleared level \(flightLevel) is not a flight level 0…600") }
        let now = hostNow()
        core.withLock { $0.setClearedLevel(feet: flightLevel.map { Double($0) * 100 }, now: now) }
    }

    /// Sets the air temperature at cruise (flight plan ISA deviation, or outside air temperature); nil forgets it.
    public func setCruiseTemperature(_ temperature: CruiseTemperature?) throws(EddyError) {
        guard let temperature else { core.withLock { $0.clearCruiseTemperature() }; return }
        guard temperature.isValid else { throw .flightLevelHintInvalid("ISA deviation \(temperature.isaDeviationCelsius) °C ± \(temperature.uncertaintyCelsius) °C at \(temperature.observedAt) is not plausible (±60 °C, 1σ in (0, 30] °C)") }
        core.withLock { $0.setCruiseISADeviation(celsius: temperature.isaDeviationCelsius, sigmaCelsius: temperature.uncertaintyCelsius, at: temperature.observedAt) }
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

    // MARK: sensor input

    /// Pushes one sample (Unix epoch seconds). Accelerometer, gyro and barometer feed detection; a location sample
    /// (device, external GPS or ADS-B own-ship) also drives the flight phase, the fetch area and alert monitoring.
    /// Samples are ignored before `start` and, except locations, in low power mode.
    /// Before `start` and after `stop()` samples are dropped (nothing is recorded without a session): the first dropped
    /// one of each such period is logged as a warning and the count is in the log's session summary.
    public func push(_ sample: SensorSample) {
        let (step, started) = core.withLock { ($0.push(sample), $0.isStarted) }
        if !started { sampleDroppedNotStarted() }
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
        } catch { throw EddyError(error) }
        return try AlertComputation.oneShot(query: query, fix: fix, position: position, candidates: candidates, polygons: polygons)
    }

    // MARK: effects

    /// The host's clock for calls that are not samples: flight time (0 before the first sample) when sync runs on
    /// flight time, else the wall clock.
    func hostNow() -> Double { clock.now() }

    /// Applies a core step through the effect interpreter, never holding the core's lock while an effect is applied:
    /// storage and scheduler-state effects in order, the answers to the reads back to the core (the lock is taken for
    /// that alone), then the callbacks, then the sync step or wake-up (a step raises callbacks of its own, which must
    /// come after the ones that caused it).
    func apply(_ step: EngineStep) {
        guard !step.isEmpty else { return }
        assert(!core.isHeldByCurrentThread, "effects are applied outside the engine's lock")
        let edges = EngineStoreEdges(engine: self, scheduler: sync.withLock(visibleToThreadSanitizerAs: self) { $0?.scheduler })
        let applied = EffectInterpreter.apply(step, edges: edges) { feedback in core.withLock { $0.receive(feedback) } }
        for callback in applied.callbacks {
            if case .didUpdateAltitudeContext(let context) = callback {
                deliveredAltitude.withLock(visibleToThreadSanitizerAs: self) { $0 = context }
            }
        }
        if let logger, !applied.callbacks.isEmpty {
            for callback in applied.callbacks { log(callback, logger) }
            sessionSummary.withLock(visibleToThreadSanitizerAs: self) { summary in for callback in applied.callbacks { summary.count(callback) } }
        }
        dispatcher.emit(applied.callbacks, at: applied.time)
        if applied.runSyncStep { syncNow() }
        if applied.wakeSync { wakeSync() }
    }
}
