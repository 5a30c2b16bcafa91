import EddyAlerts
import EddyNavigation
import EddyVocabulary

/// Alert monitoring inside the engine: the monitored query, notify-on-change, the clusterer, the candidates read near
/// the aircraft and the tiles it has flown through (own reports count as felt from the last visit of their tile).
/// Pure; part of `EngineCore`, which feeds it fixes and the candidates the shell read.
struct EngineAlerts: Sendable {
    /// The monitored alert query (nil when not monitoring).
    private(set) var query: AlertQuery?
    private var monitor = AlertMonitor()
    private var clusterer = TurbulenceClusterer()
    private var candidates: AlertCandidates?
    private var visits = OwnTileVisits()

    /// Starts monitoring a (validated) query for a viewer class.
    mutating func start(_ query: AlertQuery, viewerClass: AircraftClass) {
        var query = query
        query.viewerClass = viewerClass
        self.query = query
        monitor.reset()
        clusterer.reset()
        candidates = nil
    }

    /// Stops monitoring and forgets what was alerted.
    mutating func stop() {
        query = nil
        monitor.reset()
        clusterer.reset()
    }

    /// Forgets what was alerted (a new flight, a stop); the query stays.
    mutating func forgetAlerted() {
        monitor.reset()
        clusterer.reset()
    }

    /// Forgets the candidates read (they are read again at the next fix).
    mutating func forgetCandidates() { candidates = nil }

    /// Forgets everything but the query (a demo starts or ends).
    mutating func restart() {
        visits = OwnTileVisits()
        forgetAlerted()
        candidates = nil
    }

    /// Another aircraft class: the query's viewer class follows it and the candidates are read again.
    mutating func setViewerClass(_ viewerClass: AircraftClass) {
        candidates = nil
        if var q = query { q.viewerClass = viewerClass; query = q }
    }

    /// The aircraft was in `tile` at `t`.
    mutating func recordVisit(_ tile: TileID, at t: Double) { visits.record(tile, at: t) }

    /// Evaluates the query at a fix: with fresh candidates at once, otherwise they are asked for. No alerts on the
    /// ground (taxi tracks make a meaningless beam); airborne, or not yet decided, they run. The aircraft's layer is
    /// the altitude estimate's (pressure altitude, flight-level hold).
    mutating func evaluate(at fix: LocationSample, estimate: AltitudeEstimate?, phase: FlightPhase, generation: Int,
                           history: HistoryWindow, isSimulated: Bool, _ effects: inout [EngineEffect]) {
        guard let query, phase != .onGround,
              let position = estimate.map({ AlertPosition(fix: fix, layer: $0.layer) }) ?? AlertPosition(fix: fix) else { return }
        // Below the floor nothing alerts, and an alert still shown is cleared (an unknown altitude does not hold it back).
        if let floorFeet = query.floorFeet, let altitude = estimate?.pressureAltitudeFeet ?? fix.layerAltitudeFeet, altitude < floorFeet {
            belowFloor(at: fix, isSimulated: isSimulated, &effects)
            return
        }
        if let candidates, candidates.isFresh(for: position, generation: generation) {
            evaluate(query, fix: fix, position: position, candidates: candidates.candidates, polygons: candidates.polygons,
                     isSimulated: isSimulated, &effects)
        } else {
            effects.append(.loadAlertCandidates(AlertCandidateRequest(
                query: query, position: position, history: history, generation: generation, fix: fix)))
        }
    }

    /// The candidates asked for with `.loadAlertCandidates(request)`: kept, then the request's fix is evaluated.
    /// An answer for a query that is no longer monitored is dropped (the next fix asks again).
    mutating func candidatesLoaded(_ loaded: [AlertCandidate], polygons: [TurbulencePolygon], for request: AlertCandidateRequest,
                                   isSimulated: Bool, _ effects: inout [EngineEffect]) {
        guard let query, query == request.query else { return }
        candidates = AlertCandidates(position: request.position, generation: request.generation, candidates: loaded, polygons: polygons)
        evaluate(query, fix: request.fix, position: request.position, candidates: loaded, polygons: polygons,
                 isSimulated: isSimulated, &effects)
    }

    /// Below the alert floor: what was alerted is cleared once (`.cleared`) and forgotten, so climbing back alerts anew.
    private mutating func belowFloor(at fix: LocationSample, isSimulated: Bool, _ effects: inout [EngineEffect]) {
        guard !monitor.alerted.isEmpty || monitor.alertedPolygonSeverity != nil else { return }
        monitor.reset()
        clusterer.process(items: [])
        effects.append(.callback(.didReceiveAlert(EddyAlert(t: fix.t, mode: nil, items: [], newOrWorse: [], clusters: [],
                                                            isSimulated: isSimulated))))
    }

    private mutating func evaluate(_ query: AlertQuery, fix: LocationSample, position: AlertPosition, candidates: [AlertCandidate],
                                   polygons: [TurbulencePolygon], isSimulated: Bool, _ effects: inout [EngineEffect]) {
        guard let evaluation = try? AlertEvaluator.evaluate(query: query, position: position, candidates: visits.felt(candidates),
                                                            polygons: polygons),
              let notification = monitor.process(evaluation, at: position.time)
        else { return }
        switch notification {
        case .alert(let evaluation, let newOrWorse):
            clusterer.process(items: AlertComputation.clusterItems(evaluation.items))
            effects.append(.callback(.didReceiveAlert(EddyAlert(t: fix.t, mode: evaluation.mode, items: evaluation.items,
                                                                newOrWorse: newOrWorse, clusters: clusterer.clusters,
                                                                isSimulated: isSimulated,
                                                                source: evaluation.source, polygonItems: evaluation.polygonItems))))
        case .cleared:
            clusterer.process(items: [])
            effects.append(.callback(.didReceiveAlert(EddyAlert(t: fix.t, mode: nil, items: [], newOrWorse: [], clusters: [],
                                                                isSimulated: isSimulated))))
        }
    }
}
