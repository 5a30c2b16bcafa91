import Dispatch
import EddyProtocol
package import EddyStore
import EddySupport
public import EddySync
public import EddyVocabulary
import Logging

/// Sessions and sync: start (key validation, transport, scheduler, the sync loop in wall-clock mode), stop, fetches
/// on demand and the scheduler's events (docs/engine.md, docs/sync.md).
extension EddyEngine {
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

    /// Starts again with the last session's identity, read from the credential store, for an app relaunched in flight
    /// (by a location event, in the background) that does not hold the API key itself. Like any start with an identity
    /// the server validated before, it works offline. Throws `.notStarted` when no session is kept: never started, or
    /// `stop()` was called since (it deletes the secrets), or the credential store could not give them back (the log
    /// says why).
    public func resumeLastSession() async throws(EddyError) {
        guard let session = core.withLock({ $0.session }) else { throw .notStarted }
        try await start(apiKey: session.apiKey, airline: session.airline, userId: session.userId, environment: session.environment)
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
            // A start after `stop()` with the identity the server validated before works offline like a relaunch.
            if (persisted != session && !EngineSettings.wasValidated(session, in: store)) || refused {
                logger?.info(refused ? "session: validating the key again after the server refused it" : "session: validating the key")
                // First start with this identity, or a restart after a refusal: the key must be validated by the server.
                do { try client.startSession() } catch { throw EddyError.starting(error, airline: airline, baseURL: baseURL) }
                do { try EngineSettings.persist(validated: session, in: store) } catch { throw .store(error) }
            }
            let scheduler = SyncScheduler(client: client, store: store, clock: clock, configuration: core.withLock { $0.schedulerConfiguration },
                                          events: { [weak self] event in self?.handle(event) })
            runtime = SyncRuntime(client: client, scheduler: scheduler)
        }
        try EngineSettings.persist(session: session, in: store, credentials: sessionCredentials)

        sessionSummary.withLock(visibleToThreadSanitizerAs: self) {
            $0.started(at: configuration.wallClock.now(), airline: airline, baseURL: environment.baseURL)
        }
        let now = hostNow()
        let step = core.withLock { $0.start(session: session, now: now) }
        if let runtime { sync.withLock(visibleToThreadSanitizerAs: self) { $0 = runtime } }
        apply(step)
        if let runtime, configuration.syncTiming == .wallClock { runtime.startLoop() }
    }

    /// Stops everything: detection of the current flight is closed (its last tile stored), sync stops, the session (its
    /// API key and user id in the credential store, its airline and environment in the store), the server's thresholds,
    /// alert state and every fetched datum are deleted
    /// (SkyPath semantics). Kept: own reports not yet acknowledged (uploaded after the next `start`), the settings
    /// (aircraft, flight, data query, update frequency, barometer calibration) and a digest of the identity the server
    /// validated, so a later `start` with the same identity and environment works offline. Call `start` again to resume.
    public func stop() {
        logger?.info("stop: sync stopped, session and fetched data deleted, outbox kept")
        stopDemo()   // a demo's open tile is stored (flagged) and the location state restarts before the session ends
        stopSync()
        let now = hostNow()
        let wasStarted = isStarted
        apply(core.withLock { $0.stop(now: now) })
        if wasStarted { writeSessionSummary("stopped") }
        sessionSummary.withLock(visibleToThreadSanitizerAs: self) { $0.droppingLogged = false }
    }

    private func stopSync() {
        let runtime = sync.withLock(visibleToThreadSanitizerAs: self) { r -> SyncRuntime? in defer { r = nil }; return r }
        runtime?.stopLoop()
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

    /// Runs one sync step now on the calling thread (uploads the outbox, the position and whatever fetch is due).
    /// Useful at the end of a replay and in tests; live hosts need not call it.
    public func syncNow() {
        guard let scheduler = sync.withLock(visibleToThreadSanitizerAs: self, { $0?.scheduler }) else { return }
        let wait = scheduler.step()
        let now = flightClock.now()
        core.withLock { $0.syncStepFinished(waitSeconds: wait, now: now) }
    }

    /// Uploads the outbox before the host exits (the end of `eddy replay --engine --server`): the server's 429 pacing
    /// and failures are waited out on the wall clock, for at most `timeoutSeconds`. Returns the reports the server
    /// accepted and the outbox afterwards (nil when the store could not be read). Without a server nothing is sent.
    package func drainOutbox(timeoutSeconds: Double) async -> (sent: Int, outbox: OutboxCounts?) {
        guard let scheduler = sync.withLock(visibleToThreadSanitizerAs: self, { $0?.scheduler }) else { return (0, try? store.outboxCounts()) }
        let wallClock = configuration.wallClock
        let sent = await scheduler.drainOutbox(until: wallClock.now() + timeoutSeconds, waitClock: wallClock)
        return (sent, try? store.outboxCounts())
    }

    /// Server reachability as last observed (nil before the first request or without a server).
    public var isServerReachable: Bool? { sync.withLock(visibleToThreadSanitizerAs: self) { $0?.scheduler.isReachable } }

    /// Fetching status of an area × data type.
    public func fetchingStatus(areaType: DataAreaType, dataType: DataType) -> FetchingStatus {
        guard let scheduler = sync.withLock(visibleToThreadSanitizerAs: self, { $0?.scheduler }) else { return .idle }
        return scheduler.fetchingStatus(area: areaType, dataType: dataType)
    }

    /// Runs the sync loop's next step at once (wall-clock mode).
    func wakeSync() { sync.withLock(visibleToThreadSanitizerAs: self) { $0?.wake() } }

    /// What the scheduler reported, logged and given to the core.
    private func handle(_ event: SyncEvent) {
        log(event)
        // The server refused the key or client: the next start must validate it again, online.
        if case .recordingStopped = event { try? EngineSettings.persist(validated: nil, in: store) }
        let now = hostNow()
        apply(core.withLock { $0.syncEvent(event, now: now) })
    }
}
