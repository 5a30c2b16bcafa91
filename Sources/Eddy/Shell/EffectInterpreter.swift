package import EddyAlerts
import EddyNavigation
package import EddyProtocol
package import EddyStore
package import EddySync
package import EddyVocabulary

/// The I/O the core's effects need, behind one small protocol (docs/engine.md, "Core and shell"). The engine's edges
/// are its SQLite store, its sync scheduler and its terrain tiles (`EngineStoreEdges`); a test's are memory. None of
/// them is called while the core's lock is held.
package protocol EngineEdges {
    /// Stores the own reports waiting for the store, oldest first, then `new`; returns those stored, in order, and the
    /// store's error if it refused one (the rest wait in memory).
    func storeOwnReports(new: DetectedTurbulence?) -> (stored: [DetectedTurbulence], failure: StoreError?)
    /// Persists a setting.
    func persist(_ setting: EngineSetting) throws(StoreError)
    /// Forgets the session and every fetched datum (`stop()`); pending own reports stay.
    func forgetSessionAndFetchedData() throws(StoreError)
    /// Purges expired cached data as of `now`; true when observations went.
    func purgeExpired(now: Double) throws(StoreError) -> Bool
    /// The alert candidates and the history window's turbulence polygons for a request.
    func alertCandidates(for request: AlertCandidateRequest) throws(StoreError) -> (candidates: [AlertCandidate], polygons: [TurbulencePolygon])
    /// Whether the cache holds any report.
    func hasCachedReports() -> Bool
    /// Reconfigures the sync scheduler (no-op without one).
    func configureSync(_ configuration: SchedulerConfiguration)
    /// Sets (nil: clears) a fetch area.
    func setFetchArea(_ area: SyncArea?, for type: DataAreaType)
    /// Queues an own-position upload.
    func uploadPosition(_ position: PositionUpload, altitudeOffset: AltitudeOffsetObservation?)
    /// The cached fleet altitude offsets a request asks for (nil: the read failed; offsets are an aid).
    func altitudeOffsets(_ request: AltitudeOffsetRequest) -> [AltitudeOffsetCell]?
    /// The context with its height above terrain at a position filled in (unchanged without terrain).
    func withHeightAboveTerrain(_ context: AltitudeContext, latitudeDegrees: Double, longitudeDegrees: Double) -> AltitudeContext
}

/// What applying a step produced: the callbacks to deliver, in order, at `time`, and whether a sync step or a wake-up
/// of the sync loop follows them.
package struct AppliedStep: Sendable {
    /// Callbacks, in the order the effects raised them.
    package var callbacks: [EddyCallback] = []
    /// Engine time to stamp them with, Unix seconds.
    package var time: Double
    /// Run one sync step inline after the callbacks (flight-time sync).
    package var runSyncStep = false
    /// Wake the sync loop after the callbacks (wall-clock sync).
    package var wakeSync = false
}

/// The one effect interpreter (docs/engine.md, "Core and shell"): the engine's shell and the core's tests apply the
/// core's effects through it, with their own edges.
///
/// Order: storage and scheduler-state effects one after the other (a storage failure becomes a callback in place), then
/// the answers to the reads the step asked for go back to the core in one call (`feed`), whose step is applied the same
/// way after the first; callbacks, then the sync step or wake-up, are the caller's. `feed` is the only place the core
/// is touched: the interpreter never takes the core's lock while it applies an effect.
package enum EffectInterpreter {
    /// Applies `step`, and the steps its answers produce, through `edges`.
    package static func apply(_ step: EngineStep, edges: some EngineEdges, feed: ([EngineFeedback]) -> EngineStep) -> AppliedStep {
        var applied = AppliedStep(time: step.time)
        var effects = step.effects
        while !effects.isEmpty {
            var feedback: [EngineFeedback] = []
            for effect in effects { apply(effect, edges: edges, into: &applied, feedback: &feedback) }
            guard !feedback.isEmpty else { break }
            let answer = feed(feedback)
            if feedback.contains(where: { if case .alertCandidatesLoaded = $0 { true } else { false } }) { applied.time = answer.time }
            effects = answer.effects
        }
        return applied
    }

    private static func apply(_ effect: EngineEffect, edges: some EngineEdges, into applied: inout AppliedStep,
                              feedback: inout [EngineFeedback]) {
        switch effect {
        case .storeOwnReport(let detected):
            storeOwnReports(new: detected, edges: edges, into: &applied)
        case .persist(let setting):
            do { try edges.persist(setting) } catch { applied.callbacks.append(.didFailToAccessStore(StoreOperationFailure(.persistSetting, error))) }
        case .forgetSessionAndFetchedData:
            do { try edges.forgetSessionAndFetchedData() } catch {
                applied.callbacks.append(.didFailToAccessStore(StoreOperationFailure(.clearCache, error)))
            }
        case .purgeExpired(let now):
            storeOwnReports(new: nil, edges: edges, into: &applied)   // a retry at least every 10 minutes while reports wait
            do {
                if try edges.purgeExpired(now: now) { feedback.append(.cachedDataChanged) }
            } catch {
                applied.callbacks.append(.didFailToAccessStore(StoreOperationFailure(.purgeExpiredData, error)))
            }
        case .loadAlertCandidates(let request):
            do {
                let read = try edges.alertCandidates(for: request)
                feedback.append(.alertCandidatesLoaded(read.candidates, polygons: read.polygons, request: request))
            } catch {
                applied.callbacks.append(.didFailToAccessStore(StoreOperationFailure(.readAlertCandidates, error)))
            }
        case .announceCachedData(let areas):
            if edges.hasCachedReports() { applied.callbacks += areas.map { .didReceiveNewTurbulenceData(areaType: $0) } }
        case .deliverAltitudeContext(let context, let latitude, let longitude):
            applied.callbacks.append(.didUpdateAltitudeContext(
                edges.withHeightAboveTerrain(context, latitudeDegrees: latitude, longitudeDegrees: longitude)))
        case .callback(let callback):
            applied.callbacks.append(callback)
        case .configureSync(let wanted):
            edges.configureSync(wanted)
        case .setFetchArea(let area, let type):
            edges.setFetchArea(area, for: type)
        case .uploadPosition(let position, let offset):
            edges.uploadPosition(position, altitudeOffset: offset)
        case .loadAltitudeOffsets(let request):
            // A read failure leaves navigation with what it had (offsets are an aid, not a requirement).
            if let cells = edges.altitudeOffsets(request) { feedback.append(.altitudeOffsetsLoaded(cells)) }
        case .runSyncStep:
            storeOwnReports(new: nil, edges: edges, into: &applied)   // and before each sync step, so they upload with it
            applied.runSyncStep = true
        case .wakeSync:
            applied.wakeSync = true
        }
    }

    /// Stores the waiting reports and `new`; each stored one is announced (`detectedTurbulence`) as it is stored, and
    /// a refused `new` is reported once with `didFailToAccessStore(.storeOwnReport)`.
    private static func storeOwnReports(new: DetectedTurbulence?, edges: some EngineEdges, into applied: inout AppliedStep) {
        let (stored, failure) = edges.storeOwnReports(new: new)
        applied.callbacks += stored.map { .detectedTurbulence($0) }
        if let failure, let new {   // a refusal stops the attempt before the end, so `new` was refused or never reached
            applied.callbacks.append(.didFailToAccessStore(StoreOperationFailure(.storeOwnReport, failure, reportId: new.report.id)))
        }
    }
}
