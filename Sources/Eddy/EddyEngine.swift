import Dispatch
import EddyClock
import EddyCore
import EddyH3
import EddyProtocol
import EddyStore
import EddySync
import Foundation
import Synchronization

/// The Eddy engine: the one object a host app starts (docs/engine.md).
///
/// It turns pushed accelerometer, gyro, barometer and location samples into turbulence reports per tile, stores them
/// before anything else happens to them, syncs with an `eddy-server`, tracks the flight phase (low power after
/// landing), evaluates alerts on every location update, and tells its delegate, in order, on the host's queue.
/// Every method is thread-safe. Samples carry Unix epoch seconds (`t`).
public final class EddyEngine: Sendable {
    /// The configuration it was created with.
    public let configuration: EddyConfiguration
    /// The engine's SQLite store (hosts may run their own turbulence, nowcast, polygon and live-flight queries on it).
    public let store: EddyStore
    private let dispatcher: CallbackDispatcher
    private let flightClock = SampleDrivenClock()
    private let state: Mutex<EngineState>
    private let sync = Mutex<SyncRuntime?>(nil)
    private let dataGeneration = Atomic<Int>(0)

    private struct SyncRuntime: Sendable {
        var client: SyncClient
        var scheduler: SyncScheduler
        var loop: SyncLoop?
    }

    private struct EngineState {
        var session: PersistedSession?
        var started = false
        var recording = false
        var aircraft: AircraftType
        var flight: Flight?
        var dataQuery: DataQuery
        var frequency: UpdateFrequency
        // Detection of the current flight.
        var pipeline: DetectionPipeline?
        var timeBase = 0.0
        var events: [DetectionEvent] = []
        var reorder = SampleReorderBuffer()
        var released: [SensorSample] = []
        var devicePosition: (inPosition: Bool, horizontal: Bool)?
        // Location, phase.
        var fusion = LocationFusion()
        var phase: FlightPhaseTracker
        var lastFix: LocationSample?
        var engineTime: Double?
        // Alerts.
        var alertQuery: AlertQuery?
        var monitor = AlertMonitor()
        var clusterer = TurbulenceClusterer()
        var candidates: AlertCandidateCache?
        // Sync bookkeeping.
        var autoRouteCentre: (latitude: Double, longitude: Double)?
        var lastPositionUpload: Double?
        var nextSyncStep = -Double.infinity
        var lastPurge = -Double.infinity
    }

    /// Actions on the scheduler decided under the state lock and run after it is released.
    private enum SyncAction {
        case setArea(SyncArea?, DataAreaType)
        case position(PositionUpload)
    }

    private static let aircraftKey = "engine.aircraft"
    private static let flightKey = "engine.flight"
    private static let dataQueryKey = "engine.dataQuery"
    private static let frequencyKey = "engine.updateFrequency"
    private static let sessionKey = "engine.session"

    /// Opens (or creates) the store and restores the persisted aircraft, flight, data query and update frequency.
    public init(configuration: EddyConfiguration) throws(EddyError) {
        self.configuration = configuration
        do {
            store = try EddyStore.open(path: configuration.storePath, options: configuration.storeOptions)
        } catch {
            throw .store(error)
        }
        dispatcher = CallbackDispatcher(delivery: configuration.delivery)
        let defaultAircraft = AircraftTypeTable.type(designator: "B738") ?? AircraftTypeTable.all[0]
        let aircraft = (try? store.configuration(AircraftType.self, forKey: Self.aircraftKey)) ?? nil
        let flight = (try? store.configuration(Flight.self, forKey: Self.flightKey)) ?? nil
        let query = (try? store.configuration(DataQuery.self, forKey: Self.dataQueryKey)) ?? nil
        let frequency = ((try? store.configurationValue(forKey: Self.frequencyKey)) ?? nil).flatMap(UpdateFrequency.init(rawValue:))
        let session = ((try? store.sessionValue(forKey: Self.sessionKey)) ?? nil)
            .flatMap { try? JSONDecoder().decode(PersistedSession.self, from: Data($0.utf8)) }
        state = Mutex(EngineState(
            session: session, aircraft: aircraft ?? defaultAircraft, flight: flight, dataQuery: query ?? DataQuery(),
            frequency: frequency ?? .fast, phase: FlightPhaseTracker(configuration: configuration.flightPhase)))
    }

    deinit {
        sync.withLock { $0?.loop?.stop() }
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

    // MARK: start / stop

    /// Whether `start` succeeded and `stop` was not called since.
    public var isStarted: Bool { state.withLock { $0.started } }
    /// Whether the engine records (started, and the server has not refused the key or client).
    public var isRecording: Bool { state.withLock { $0.recording } }
    /// Whether low power mode is on (after landing: no detection, no high-rate processing).
    public var isLowPowerMode: Bool { state.withLock { $0.phase.isLowPower } }
    /// The flight phase decided from speed and altitude.
    public var flightPhase: FlightPhase { state.withLock { $0.phase.phase } }
    /// The latest sample time, Unix seconds (nil before the first sample).
    public var engineTime: Double? { state.withLock { $0.engineTime } }

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
        guard !apiKey.isEmpty else { throw .apiKeyInvalid("the API key is empty") }
        guard airline.unicodeScalars.count == 3, airline.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw .userIdOrAirlineInvalid("airline \"\(airline)\" is not a 3-character ICAO code in upper case (e.g. DAL)")
        }
        guard (1...128).contains(userId.unicodeScalars.count) else {
            throw .userIdOrAirlineInvalid("user id must have 1 to 128 characters, got \(userId.unicodeScalars.count)")
        }
        try environment.validate()
        let session = PersistedSession(apiKey: apiKey, airline: airline, userId: userId, environment: environment)
        let (alreadyStarted, persisted) = state.withLock { ($0.started && $0.session == session, $0.session) }
        if alreadyStarted { return }
        stopSync()

        var runtime: SyncRuntime?
        if let baseURL = environment.baseURL {
            let transport: CurlTransport
            do {
                transport = try CurlTransport(configuration: TransportConfiguration(
                    baseURL: baseURL, proxy: environment.proxy, connectTimeoutSeconds: configuration.connectTimeoutSeconds,
                    totalTimeoutSeconds: configuration.requestTimeoutSeconds))
            } catch { throw .environmentInvalid("\(error)") }
            let clock: any EpochClock = configuration.syncTiming == .flightTime ? flightClock : SystemEpochClock()
            let client = SyncClient(
                transport: transport,
                identity: ClientIdentity(apiKey: apiKey, airline: airline, userId: userId, clientVersion: configuration.clientVersion),
                clock: clock)
            if persisted != session {
                // First start with this identity: the key must be validated by the server.
                do { try client.startSession() } catch { throw EddyError.starting(error) }
            }
            let scheduler = SyncScheduler(client: client, store: store, clock: clock, configuration: schedulerConfiguration(),
                                          events: { [weak self] event in self?.handle(event) })
            runtime = SyncRuntime(client: client, scheduler: scheduler, loop: nil)
        }
        do {
            let text = String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
            try store.setSessionValue(text, forKey: Self.sessionKey)
        } catch { throw .storeFailure(error, storePath: configuration.storePath) }

        let (areas, t) = state.withLock { s -> ([(SyncArea?, DataAreaType)], Double) in
            s.session = session
            s.started = true
            s.recording = true
            s.nextSyncStep = -.infinity
            s.autoRouteCentre = nil
            return (Self.areas(for: s, configuration: configuration), currentTime(s))
        }
        if var runtime {
            Self.apply(areas, to: runtime.scheduler)
            if configuration.syncTiming == .wallClock {
                let loop = SyncLoop(scheduler: runtime.scheduler, idleSeconds: 1)
                runtime.loop = loop
                loop.start()
            }
            sync.withLock { $0 = runtime }
        }
        var callbacks: [EddyCallback] = [.didUpdateRecordingStatus(true)]
        if ((try? store.observationCount()) ?? 0) > 0 {
            // Cached data is ready: once for the route area (always fetched: the host's polygon or the circle around
            // the aircraft) and for each other area the data query sets.
            callbacks += areas.compactMap { area, type in
                area == nil && type != .route ? nil : .didReceiveNewTurbulenceData(areaType: type)
            }
        }
        dispatcher.emit(callbacks, at: t)
    }

    /// Stops everything: detection of the current flight is closed (its last tile stored), sync stops, the session and
    /// every fetched datum are deleted (SkyPath semantics). Own reports not yet acknowledged stay in the outbox and are
    /// uploaded after the next `start`. Call `start` again to resume.
    public func stop() {
        stopSync()
        var callbacks: [EddyCallback] = []
        let t = state.withLock { s -> Double in
            guard s.started else { return currentTime(s) }
            closeFlightDetection(&s, &callbacks)
            s.started = false
            if s.recording { callbacks.append(.didUpdateRecordingStatus(false)) }
            s.recording = false
            s.session = nil
            s.candidates = nil
            s.monitor.reset()
            s.clusterer.reset()
            return currentTime(s)
        }
        do {
            try store.setSessionValue(nil, forKey: Self.sessionKey)
            try store.clearFetchedData()
        } catch {
            callbacks.append(.didFailToFetchNewData(.store(error)))
        }
        dataGeneration.add(1, ordering: .relaxed)
        dispatcher.emit(callbacks, at: t)
    }

    private func stopSync() {
        let runtime = sync.withLock { r -> SyncRuntime? in defer { r = nil }; return r }
        runtime?.loop?.stop()
    }

    // MARK: aircraft, flight, data query

    /// Every aircraft type in the committed table (ICAO Doc 8643 designators; docs/alerts.md).
    public static var aircraftTypes: [AircraftType] { AircraftTypeTable.all }

    /// The aircraft (default B738 until the host sets one); persisted.
    public var aircraft: AircraftType { state.withLock { $0.aircraft } }

    /// Chooses the aircraft by ICAO type designator ("B738", "C172"); its class sets detection and severities.
    public func setAircraft(designator: String) throws(EddyError) {
        let type: AircraftType
        do { type = try AircraftTypeTable.requireType(designator: designator) } catch { throw .unknownAircraft(error.description) }
        var callbacks: [EddyCallback] = []
        let t = state.withLock { s -> Double in
            guard s.aircraft != type else { return currentTime(s) }
            closeFlightDetection(&s, &callbacks)
            s.aircraft = type
            s.candidates = nil
            if var q = s.alertQuery { q.viewerClass = type.aircraftClass; s.alertQuery = q }
            return currentTime(s)
        }
        try? store.setConfiguration(type, forKey: Self.aircraftKey)
        reconfigureScheduler()
        dispatcher.emit(callbacks, at: t)
    }

    /// The current flight (set by the host, or temporary while airborne without one).
    public var flight: Flight? { state.withLock { $0.flight } }

    /// Sets the flight (nil ends it); persisted. A new flight closes the previous one's detection and leaves low power.
    public func setFlight(_ flight: Flight?) {
        var callbacks: [EddyCallback] = []
        let t = state.withLock { s -> Double in
            guard s.flight != flight else { return currentTime(s) }
            closeFlightDetection(&s, &callbacks)
            s.flight = flight
            if flight != nil, let change = s.phase.leaveLowPower(at: currentTime(s)), case .lowPower(let on) = change.event {
                callbacks.append(.didUpdateLowPowerMode(on))
            }
            s.monitor.reset()
            s.clusterer.reset()
            return currentTime(s)
        }
        persistFlight(flight)
        dispatcher.emit(callbacks, at: t)
    }

    private func persistFlight(_ flight: Flight?) {
        if let flight { try? store.setConfiguration(flight, forKey: Self.flightKey) }
        else { try? store.setConfigurationValue(nil, forKey: Self.flightKey) }
    }

    /// What is fetched and for where; persisted.
    public var dataQuery: DataQuery { state.withLock { $0.dataQuery } }

    /// Sets the data query after checking it; a changed area is fetched at once, in full.
    public func setDataQuery(_ query: DataQuery) throws(EddyError) {
        try query.validate()
        let areas = state.withLock { s -> [(SyncArea?, DataAreaType)] in
            s.dataQuery = query
            s.autoRouteCentre = nil
            s.candidates = nil
            return Self.areas(for: s, configuration: configuration)
        }
        try? store.setConfiguration(query, forKey: Self.dataQueryKey)
        reconfigureScheduler()
        if let scheduler = sync.withLock({ $0?.scheduler }) {
            Self.apply(areas, to: scheduler)
        }
        wakeSync()
    }

    /// How often data is refreshed (intervals from the server's settings); persisted.
    public var updateFrequency: UpdateFrequency {
        get { state.withLock { $0.frequency } }
        set {
            state.withLock { $0.frequency = newValue }
            try? store.setConfigurationValue(newValue.rawValue, forKey: Self.frequencyKey)
            reconfigureScheduler()
            wakeSync()
        }
    }

    /// Fetches every area × data type now; `refresh` forgets the ticks so the fetch is full.
    public func fetchData(refresh: Bool) throws(EddyError) {
        guard isStarted else { throw .notStarted }
        guard let scheduler = sync.withLock({ $0?.scheduler }) else { return }
        if refresh {
            do { try store.resetSyncStates() } catch { throw .store(error) }
        }
        scheduler.fetchNow()
        state.withLock { $0.nextSyncStep = -.infinity }
        wakeSync()
    }

    /// Runs one sync step now on the calling thread (uploads the outbox, the position and whatever fetch is due).
    /// Useful at the end of a replay and in tests; live hosts need not call it.
    public func syncNow() {
        guard let scheduler = sync.withLock({ $0?.scheduler }) else { return }
        let wait = scheduler.step()
        state.withLock { $0.nextSyncStep = flightClock.now() + min(wait, 1) }
    }

    /// Server reachability as last observed (nil before the first request or without a server).
    public var isServerReachable: Bool? { sync.withLock { $0?.scheduler.isReachable } }

    /// Fetching status of an area × data type.
    public func fetchingStatus(areaType: DataAreaType, dataType: DataType) -> FetchingStatus {
        guard let scheduler = sync.withLock({ $0?.scheduler }) else { return .idle }
        return scheduler.fetchingStatus(area: areaType, dataType: dataType)
    }

    private func wakeSync() { sync.withLock { $0?.loop?.wake() } }

    private func reconfigureScheduler() {
        guard let scheduler = sync.withLock({ $0?.scheduler }) else { return }
        let wanted = schedulerConfiguration()
        scheduler.configure { $0 = wanted }
    }

    /// Sets each area (nil clears it) on the scheduler; a changed one is fetched at once, in full.
    private static func apply(_ areas: [(SyncArea?, DataAreaType)], to scheduler: SyncScheduler) {
        for (area, type) in areas { try? scheduler.setArea(area, for: type) }
    }

    private func schedulerConfiguration() -> SchedulerConfiguration {
        state.withLock { s in
            var c = SchedulerConfiguration()
            c.dataTypes = DataType.allCases.filter { s.dataQuery.types.contains($0) }
            c.frequency = s.frequency
            c.historyHours = s.dataQuery.historyWindow.hours
            c.minLayer = s.dataQuery.altitudeRangeFeet.lowerBound / 1000
            c.maxLayer = s.dataQuery.altitudeRangeFeet.upperBound / 1000
            c.viewerClass = s.aircraft.aircraftClass
            c.jitterSeed = configuration.syncJitterSeed
            return c
        }
    }

    /// The areas the data query asks for (the route area around the aircraft when no route polygon is set).
    private static func areas(for s: EngineState, configuration: EddyConfiguration) -> [(SyncArea?, DataAreaType)] {
        let q = s.dataQuery
        var route: SyncArea?
        if let polygon = q.routePolygon {
            route = SyncArea(type: .route, polygon: EngineGeometry.geoPoints(polygon))
        } else if let centre = s.autoRouteCentre {
            route = SyncArea(type: .route, polygon: EngineGeometry.geoPoints(EngineGeometry.circle(
                latitude: centre.latitude, longitude: centre.longitude, radiusNM: configuration.autoRouteRadiusNM)))
        }
        return [
            (route, .route),
            (q.viewport.map { SyncArea(type: .viewport, polygon: EngineGeometry.geoPoints($0)) }, .viewport),
            (q.globalEnabled ? SyncArea.global : nil, .global),
        ]
    }

    // MARK: sensor input

    /// Pushes one sample (Unix epoch seconds). Accelerometer, gyro and barometer feed detection; a location sample
    /// (device, external GPS or ADS-B own-ship) also drives the flight phase, the fetch area and alert monitoring.
    /// Samples are ignored before `start` and, except locations, in low power mode.
    public func push(_ sample: SensorSample) {
        var callbacks: [EddyCallback] = []
        var actions: [SyncAction] = []
        let (t, stepDue, purgeDue) = state.withLock { s -> (Double, Bool, Bool) in
            guard s.started else { return (currentTime(s), false, false) }
            process(sample, &s, &callbacks, &actions)
            let t = currentTime(s)
            let purgeDue = s.engineTime != nil && t - s.lastPurge >= Self.purgeIntervalSeconds
            if purgeDue { s.lastPurge = t }
            return (t, configuration.syncTiming == .flightTime && t >= s.nextSyncStep, purgeDue)
        }
        if purgeDue { purgeExpired(now: t, into: &callbacks) }
        dispatcher.emit(callbacks, at: t)
        guard !actions.isEmpty || stepDue, let scheduler = sync.withLock({ $0?.scheduler }) else { return }
        for action in actions {
            switch action {
            case .setArea(let area, let type): try? scheduler.setArea(area, for: type)
            case .position(let position): scheduler.updatePosition(position)
            }
        }
        if configuration.syncTiming == .flightTime {
            if stepDue || !actions.isEmpty { syncNow() }
        } else if !actions.isEmpty {
            wakeSync()
        }
    }

    /// The cache is purged of expired data (observations older than 6 h, past nowcasts, stale live flights) at most
    /// this often, in engine time, seconds; pending own reports are never purged.
    static let purgeIntervalSeconds = 600.0

    private func purgeExpired(now: Double, into callbacks: inout [EddyCallback]) {
        do {
            let summary = try store.purgeExpired(now: now)
            if summary.observations + summary.observationsOverCap > 0 { dataGeneration.add(1, ordering: .relaxed) }
        } catch {
            callbacks.append(.didFailToFetchNewData(.store(error)))
        }
    }

    /// Pushes samples in order.
    public func push<S: Sequence>(contentsOf samples: S) where S.Element == SensorSample {
        for sample in samples { push(sample) }
    }

    /// Tells the engine the host's location source failed (delivered as `locationManagerDidFail(withError:)`).
    public func reportLocationFailure(_ message: String) {
        let t = state.withLock { currentTime($0) }
        dispatcher.emit([.locationManagerDidFail(.invalidLocation(message))], at: t)
    }

    /// Ends the current flight's detection: the open tile crossing is closed and stored (end of a replay).
    public func finishDetection() {
        var callbacks: [EddyCallback] = []
        let t = state.withLock { s -> Double in closeFlightDetection(&s, &callbacks); return currentTime(s) }
        dispatcher.emit(callbacks, at: t)
    }

    private func currentTime(_ s: EngineState) -> Double {
        if let t = s.engineTime { return t }
        return configuration.syncTiming == .flightTime ? 0 : SystemEpochClock().now()
    }

    private func process(_ sample: SensorSample, _ s: inout EngineState, _ callbacks: inout [EddyCallback],
                         _ actions: inout [SyncAction]) {
        let t = sample.t
        guard t.isFinite else {
            if case .location = sample { callbacks.append(.locationManagerDidFail(.invalidLocation("location time is not finite"))) }
            return
        }
        if case .location(let fix) = sample {
            handleLocation(fix, &s, &callbacks, &actions)
            return
        }
        guard !s.phase.isLowPower else { return }
        advanceTime(t, &s)
        if s.recording { reorderForDetection(sample, &s, &callbacks) }
    }

    private func advanceTime(_ t: Double, _ s: inout EngineState) {
        if t > (s.engineTime ?? -.infinity) { s.engineTime = t }
        if configuration.syncTiming == .flightTime { flightClock.advance(to: t) }
    }

    /// Motion and location samples reach detection in time order, through a 2 s reorder buffer (they may come from
    /// different threads); locations drive phase and alerts at once, without waiting.
    private func reorderForDetection(_ sample: SensorSample, _ s: inout EngineState, _ callbacks: inout [EddyCallback]) {
        s.released.removeAll(keepingCapacity: true)
        s.reorder.push(sample, releasingInto: &s.released)
        guard !s.released.isEmpty else { return }
        let released = s.released
        for sample in released { feedDetection(sample, &s, &callbacks) }
    }

    private func feedDetection(_ sample: SensorSample, _ s: inout EngineState, _ callbacks: inout [EddyCallback]) {
        if s.pipeline == nil {
            s.timeBase = sample.t.rounded(.down)
            var detection = DetectionConfiguration(aircraftClass: s.aircraft.aircraftClass)
            detection.reportSalt = FNV1a.hash64([
                s.session?.airline ?? "", s.session?.userId ?? "",
                s.flight.flatMap { $0.isTemporary ? nil : $0.key } ?? "", String(Int(s.timeBase)), s.aircraft.designator,
            ])
            s.pipeline = DetectionPipeline(configuration: detection)
        }
        // Flight time = Unix time − base, rounded to the microsecond: Unix-time doubles resolve only ≈ 2.4e-7 s, and
        // without the rounding a sample written as t = 0.02 in a log would land at 0.0199999809… and could fall into
        // the previous 40 ms tick. With it, the pipeline sees what a replay of the log sees.
        var shifted = sample
        shifted.t = ((sample.t - s.timeBase) * 1e6).rounded() / 1e6
        s.events.removeAll(keepingCapacity: true)
        s.pipeline?.process(shifted, into: &s.events)
        handleDetectionEvents(&s, &callbacks)
    }

    private func handleDetectionEvents(_ s: inout EngineState, _ callbacks: inout [EddyCallback]) {
        guard !s.events.isEmpty else { return }
        for event in s.events {
            switch event {
            case .position(let p):
                if s.devicePosition.map({ $0.inPosition != p.inPosition || $0.horizontal != p.horizontal }) ?? true {
                    s.devicePosition = (p.inPosition, p.horizontal)
                    callbacks.append(.didChangeDevicePosition(inPosition: p.inPosition, horizontal: p.horizontal))
                }
            case .minute:
                break
            case .tile(var report):
                report.enterTime += s.timeBase
                report.exitTime += s.timeBase
                do {
                    _ = try store.insertOwnReports([report])   // stored before anything else happens to it
                } catch {
                    callbacks.append(.didFailToFetchNewData(.store(error)))
                    continue
                }
                dataGeneration.add(1, ordering: .relaxed)
                callbacks.append(.detectedTurbulence(DetectedTurbulence(
                    report: report, severity: report.severity(for: s.aircraft.aircraftClass))))
            }
        }
        s.events.removeAll(keepingCapacity: true)
    }

    private func closeFlightDetection(_ s: inout EngineState, _ callbacks: inout [EddyCallback]) {
        s.released.removeAll(keepingCapacity: true)
        s.reorder.flush(into: &s.released)
        let held = s.released
        for sample in held { feedDetection(sample, &s, &callbacks) }
        guard s.pipeline != nil else { return }
        s.events.removeAll(keepingCapacity: true)
        s.pipeline?.finish(into: &s.events)
        handleDetectionEvents(&s, &callbacks)
        s.pipeline = nil
    }

    private func handleLocation(_ raw: LocationSample, _ s: inout EngineState, _ callbacks: inout [EddyCallback],
                                _ actions: inout [SyncAction]) {
        let fix: LocationSample
        switch s.fusion.process(raw) {
        case .rejected(let reason): callbacks.append(.locationManagerDidFail(.invalidLocation(reason))); return
        case .superseded: return
        case .use(let used): fix = used
        }
        advanceTime(fix.t, &s)
        s.lastFix = fix
        for change in s.phase.update(fix) {
            switch change.event {
            case .airborne:
                if s.flight == nil {
                    s.flight = Flight(isTemporary: true)
                    persistFlight(s.flight)
                }
            case .landed:
                if s.flight?.isTemporary == true {
                    closeFlightDetection(&s, &callbacks)
                    s.flight = nil
                    persistFlight(nil)
                }
            case .lowPower(let on):
                if on { closeFlightDetection(&s, &callbacks) }
                callbacks.append(.didUpdateLowPowerMode(on))
            }
        }
        guard !s.phase.isLowPower else { return }
        if s.recording { reorderForDetection(.location(fix), &s, &callbacks) }
        updateAreas(fix, &s, &actions)
        if s.phase.phase == .airborne, fix.t - (s.lastPositionUpload ?? -.infinity) >= configuration.positionUploadIntervalSeconds,
           let position = positionUpload(fix, s) {
            s.lastPositionUpload = fix.t
            actions.append(.position(position))
        }
        evaluateAlerts(fix, &s, &callbacks)
    }

    private func updateAreas(_ fix: LocationSample, _ s: inout EngineState, _ actions: inout [SyncAction]) {
        guard s.dataQuery.routePolygon == nil, s.session?.environment.baseURL != nil else { return }
        if let centre = s.autoRouteCentre,
           Geodesy.distanceNM(from: (centre.latitude, centre.longitude), to: (fix.latitudeDegrees, fix.longitudeDegrees))
            < configuration.autoRouteRecentreNM { return }
        s.autoRouteCentre = (fix.latitudeDegrees, fix.longitudeDegrees)
        if let route = Self.areas(for: s, configuration: configuration).first(where: { $0.1 == .route }) {
            actions.append(.setArea(route.0, .route))
        }
    }

    private func positionUpload(_ fix: LocationSample, _ s: EngineState) -> PositionUpload? {
        guard let altitude = fix.layerAltitudeFeet, let session = s.session else { return nil }
        return PositionUpload(
            flightID: s.flight.flatMap(\.flightNumber) ?? "\(session.airline)-\(session.userId)",
            latitude: fix.latitudeDegrees, longitude: fix.longitudeDegrees, altitudeFeet: altitude,
            headingDegrees: fix.courseDegrees ?? 0, groundSpeedKnots: (fix.speedMetersPerSecond ?? 0) * 3600 / 1852,
            aircraftType: s.aircraft.designator, time: fix.t)
    }

    // MARK: alerts

    /// Starts evaluating `query` on every location update; `didReceiveAlert(_:)` fires only when the alerting set
    /// changes (A1 A1 A1 → one alert, A1 A2 A1 → three). The viewer class is the aircraft's.
    public func startMonitoringAlerts(with query: AlertQuery) throws(EddyError) {
        var query = query
        do { try query.validate() } catch { throw .alertQuery(error) }
        state.withLock { s in
            query.viewerClass = s.aircraft.aircraftClass
            s.alertQuery = query
            s.monitor.reset()
            s.clusterer.reset()
            s.candidates = nil
        }
    }

    /// Stops alert monitoring and forgets what was alerted.
    public func stopMonitoringAlerts() {
        state.withLock { s in
            s.alertQuery = nil
            s.monitor.reset()
            s.clusterer.reset()
        }
    }

    /// Whether alerts are being monitored.
    public var isMonitoringAlerts: Bool { state.withLock { $0.alertQuery != nil } }

    /// Evaluates `query` once at the latest position (no notify-on-change bookkeeping).
    public func alerts(with query: AlertQuery) throws(EddyError) -> EddyAlert {
        var query = query
        do { try query.validate() } catch { throw .alertQuery(error) }
        let (fix, history, viewer) = state.withLock { ($0.lastFix, $0.dataQuery.historyWindow, $0.aircraft.aircraftClass) }
        query.viewerClass = viewer
        guard let fix, let position = AlertPosition(fix: fix) else { throw .noLocation }
        let cache: AlertCandidateCache
        do {
            cache = try AlertCandidateCache.load(store: store, query: query, position: position, history: history,
                                                 generation: dataGeneration.load(ordering: .relaxed))
        } catch { throw .storeFailure(error, storePath: configuration.storePath) }
        let evaluation: AlertEvaluation
        do { evaluation = try AlertEvaluator.evaluate(query: query, position: position, candidates: cache.candidates) }
        catch { throw .alertQuery(error) }
        var clusterer = TurbulenceClusterer()
        clusterer.process(items: Self.clusterItems(evaluation.items))
        return EddyAlert(t: fix.t, mode: evaluation.mode, items: evaluation.items, newOrWorse: evaluation.items.map(\.tile),
                         clusters: clusterer.clusters)
    }

    private func evaluateAlerts(_ fix: LocationSample, _ s: inout EngineState, _ callbacks: inout [EddyCallback]) {
        // No alerts on the ground (taxi tracks make a meaningless beam); airborne, or not yet decided, they run.
        guard let query = s.alertQuery, s.phase.phase != .onGround, let position = AlertPosition(fix: fix) else { return }
        let generation = dataGeneration.load(ordering: .relaxed)
        if !(s.candidates?.isFresh(for: position, generation: generation) ?? false) {
            do {
                s.candidates = try AlertCandidateCache.load(store: store, query: query, position: position,
                                                            history: s.dataQuery.historyWindow, generation: generation)
            } catch {
                callbacks.append(.didFailToFetchNewData(.storeFailure(error, storePath: configuration.storePath)))
                return
            }
        }
        guard let evaluation = try? AlertEvaluator.evaluate(query: query, position: position, candidates: s.candidates?.candidates ?? [])
        else { return }
        guard let notification = s.monitor.process(evaluation) else { return }
        switch notification {
        case .alert(let evaluation, let newOrWorse):
            s.clusterer.process(items: Self.clusterItems(evaluation.items))
            callbacks.append(.didReceiveAlert(EddyAlert(t: fix.t, mode: evaluation.mode, items: evaluation.items,
                                                        newOrWorse: newOrWorse, clusters: s.clusterer.clusters)))
        case .cleared:
            s.clusterer.process(items: [])
            callbacks.append(.didReceiveAlert(EddyAlert(t: fix.t, mode: nil, items: [], newOrWorse: [], clusters: [])))
        }
    }

    private static func clusterItems(_ items: [AlertItem]) -> [TurbulenceClusterItem] {
        items.compactMap { item in
            guard let c = try? H3.cellToLatLng(H3Index(rawValue: item.tile.h3)) else { return nil }
            return TurbulenceClusterItem(tile: item.tile, severity: item.severity, latitudeDegrees: c.latitude, longitudeDegrees: c.longitude)
        }
    }

    // MARK: sync events

    private func handle(_ event: SyncEvent) {
        var callbacks: [EddyCallback] = []
        switch event {
        case .reachabilityChanged(let reachable):
            callbacks.append(.serverReachabilityUpdated(reachable))
        case .fetchingStatusChanged(let area, let dataType, let status):
            callbacks.append(.didUpdateFetchingStatus(status, areaType: area, dataType: dataType))
        case .receivedData(let area, let dataType, _, _):
            switch dataType {
            case .turbulence:
                dataGeneration.add(1, ordering: .relaxed)
                callbacks.append(.didReceiveNewTurbulenceData(areaType: area))
            case .nowcast: callbacks.append(.didReceiveNewNowcast)
            case .turbulencePolygons: callbacks.append(.didReceiveNewTurbulencePolygons)
            case .liveFlights: callbacks.append(.didReceiveNewLiveFlightData)
            }
        case .uploaded:
            break
        case .failed(let error):
            if case .rateLimited(let s) = error { callbacks.append(.didFailToFetchNewData(.tooManyRequests(retryAfterSeconds: s))) }
            else { callbacks.append(.didFailToFetchNewData(.sync(error))) }
        case .recordingStopped:
            let wasRecording = state.withLock { s -> Bool in defer { s.recording = false }; return s.recording }
            if wasRecording { callbacks.append(.didUpdateRecordingStatus(false)) }
        }
        let t = state.withLock { currentTime($0) }
        dispatcher.emit(callbacks, at: t)
    }
}
