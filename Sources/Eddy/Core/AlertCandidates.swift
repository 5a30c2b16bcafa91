import EddyAlerts
import EddyH3
import EddyVocabulary

/// The alert candidates the core holds near the aircraft, and when they must be read again: when data changed
/// (a newer generation), the aircraft moved `refreshDistanceNM`, changed layer by more than `layerSlack`, or
/// `refreshSeconds` passed. Reading them is the shell's job (`AlertCandidateLoader`).
struct AlertCandidates: Sendable {
    /// Where and when they were read.
    var position: AlertPosition
    /// The core's data generation they reflect.
    var generation: Int
    /// The candidates.
    var candidates: [AlertCandidate]
    /// The turbulence polygons of the history window (the fallback where no report is in the alert area).
    var polygons: [TurbulencePolygon] = []

    /// Candidates are re-read after the aircraft moved this far, NM.
    static let refreshDistanceNM = 20.0
    /// Candidates are re-read at least this often, seconds.
    static let refreshSeconds = 60.0
    /// Candidates are re-read after a change of more than this many layers (and read this many layers beyond the band).
    static let layerSlack = 3

    /// Whether they still serve a position at `position` for data `generation`.
    func isFresh(for position: AlertPosition, generation: Int) -> Bool {
        generation == self.generation
            && abs(position.layer - self.position.layer) <= Self.layerSlack
            && position.time - self.position.time < Self.refreshSeconds && position.time >= self.position.time
            && Geodesy.distanceNM(from: (self.position.latitudeDegrees, self.position.longitudeDegrees),
                                  to: (position.latitudeDegrees, position.longitudeDegrees))
                <= Self.refreshDistanceNM
    }
}

/// Alert evaluation shared by monitoring and one-shot queries (pure).
enum AlertComputation {
    /// The alerting items as clusterer input (tile centres).
    static func clusterItems(_ items: [AlertItem]) -> [TurbulenceClusterItem] {
        items.compactMap { item in
            guard let c = try? H3.cellToLatLng(H3Index(rawValue: item.tile.h3)) else { return nil }
            return TurbulenceClusterItem(tile: item.tile, severity: item.severity, latitudeDegrees: c.latitude, longitudeDegrees: c.longitude)
        }
    }

    /// One evaluation of `query` at `fix` over `candidates`, without notify-on-change bookkeeping.
    static func oneShot(query: AlertQuery, fix: LocationSample, position: AlertPosition,
                        candidates: [AlertCandidate], polygons: [TurbulencePolygon] = []) throws(EddyError) -> EddyAlert {
        let evaluation: AlertEvaluation
        do { evaluation = try AlertEvaluator.evaluate(query: query, position: position, candidates: candidates, polygons: polygons) }
        catch { throw .alertQuery(error) }
        var clusterer = TurbulenceClusterer()
        clusterer.process(items: clusterItems(evaluation.items))
        return EddyAlert(t: fix.t, mode: evaluation.mode, items: evaluation.items, newOrWorse: evaluation.items.map(\.tile),
                         clusters: clusterer.clusters, source: evaluation.source, polygonItems: evaluation.polygonItems)
    }
}
