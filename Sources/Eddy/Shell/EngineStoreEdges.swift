import EddyAlerts
import EddyNavigation
import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyTerrain
import EddyVocabulary
import Logging
import Synchronization

/// The engine's edges: its SQLite store, its sync scheduler and its terrain tiles. Made by the engine for each step it
/// applies; never used under the core's lock.
struct EngineStoreEdges: EngineEdges {
    /// The engine (its store, terrain, log, and the own reports waiting for the store).
    let engine: EddyEngine
    /// The sync scheduler of the current session (nil: offline or stopped), looked up once per step.
    let scheduler: SyncScheduler?

    private var store: EddyStore { engine.store }
    private var terrain: TerrainDirectory? { engine.terrain }
    private var logger: Logger? { engine.logger }

    func storeOwnReports(new: DetectedTurbulence?) -> (stored: [DetectedTurbulence], failure: StoreError?) {
        var new = new
        if let detected = new, !detected.isSimulated,
           let floor = engine.reportFloorTime.withLock(visibleToThreadSanitizerAs: engine, { $0 }), detected.report.enterTime < floor {
            new = nil   // a resumed replay's warm-up: already stored by the run that was killed
        }
        var waiting = engine.unstoredReports.withLock(visibleToThreadSanitizerAs: engine) { $0.takeAll() }
        if waiting.isEmpty, new == nil { return ([], nil) }
        if let new { waiting.append(new) }
        var stored: [DetectedTurbulence] = []
        for detected in waiting {
            do {
                // Stored before anything else happens to it; a demo's report as a local simulated observation.
                if detected.isSimulated {
                    try store.upsertObservations([ServerObservation(
                        report: detected.report, reporterID: EddyEngine.simulatedReportSource, source: EddyEngine.simulatedReportSource)])
                } else {
                    _ = try store.insertOwnReports([detected.report])
                }
                stored.append(detected)
            } catch {
                let dropped = engine.unstoredReports.withLock(visibleToThreadSanitizerAs: engine) { $0.putBack(waiting[stored.count...]) }
                for lost in dropped {
                    logger?.error("own report \(lost.report.id) dropped: \(UnstoredReports.capacity) reports already wait for the store")
                }
                return (stored, error)
            }
        }
        return (stored, nil)
    }

    func persist(_ setting: EngineSetting) throws(StoreError) {
        try EngineSettings.persist(setting, in: store)
    }

    func forgetSessionAndFetchedData() throws(StoreError) {
        try EngineSettings.forgetSession(in: store, credentials: engine.sessionCredentials)
        try store.clearFetchedData()
    }

    func purgeExpired(now: Double) throws(StoreError) -> Bool {
        let summary = try store.purgeExpired(now: now)
        return summary.observations + summary.observationsOverCap > 0
    }

    func alertCandidates(for request: AlertCandidateRequest) throws(StoreError) -> (candidates: [AlertCandidate], polygons: [TurbulencePolygon]) {
        (try AlertCandidateLoader.load(store: store, request),
         try AlertCandidateLoader.polygons(store: store, query: request.query, history: request.history))
    }

    func hasCachedReports() -> Bool { ((try? store.observationCount()) ?? 0) > 0 }

    func configureSync(_ configuration: SchedulerConfiguration) { scheduler?.configure { $0 = configuration } }

    func setFetchArea(_ area: SyncArea?, for type: DataAreaType) { try? scheduler?.setArea(area, for: type) }

    func uploadPosition(_ position: PositionUpload, altitudeOffset: AltitudeOffsetObservation?) {
        scheduler?.updatePosition(position, altitudeOffset: altitudeOffset)
    }

    func altitudeOffsets(_ request: AltitudeOffsetRequest) -> [AltitudeOffsetCell]? {
        try? store.altitudeOffsets(nearLatitude: request.latitudeDegrees, longitude: request.longitudeDegrees, layer: request.layer,
                                   maxAgeSeconds: request.maxAgeSeconds, now: request.now)
    }

    /// HAT = MSL − terrain elevation, the DEM's LE90 and the altitude's uncertainty in quadrature (I/O at the edge,
    /// outside the lock). A terrain read error leaves HAT empty.
    func withHeightAboveTerrain(_ context: AltitudeContext, latitudeDegrees: Double, longitudeDegrees: Double) -> AltitudeContext {
        guard let terrain, let msl = context.mslMeters, let u68 = context.mslU68Meters,
              let elevation = try? terrain.elevationMeters(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees),
              let hat = elevation.heightAboveTerrain(mslMeters: msl, uMSL68Meters: u68) else { return context }
        var filled = context
        filled.hatMeters = hat.meters
        filled.hatU68Meters = hat.uncertainty68Meters
        filled.hatU90Meters = hat.uncertainty90Meters
        return filled
    }
}
