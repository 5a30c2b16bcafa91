import EddyCore
import EddyH3
import EddyProtocol
import EddyStore
import EddySync
import Foundation
import Synchronization

/// The wall-clock sync loop: a background thread stepping the scheduler, woken early by `wake()`.
final class SyncLoop: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = true
    private var woken = false
    private let scheduler: SyncScheduler
    private let idleSeconds: Double
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(scheduler: SyncScheduler, idleSeconds: Double) {
        self.scheduler = scheduler
        self.idleSeconds = idleSeconds
    }

    func start() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                let keepGoing = running
                condition.unlock()
                guard keepGoing else { break }
                let wait = scheduler.step()
                condition.lock()
                if running && !woken {
                    _ = condition.wait(until: Date().addingTimeInterval(min(max(wait, 0.05), idleSeconds)))
                }
                woken = false
                condition.unlock()
            }
            finished.signal()
        }
        thread.name = "eddy-sync"
        self.thread = thread
        thread.start()
    }

    /// Runs the next step at once.
    func wake() {
        condition.lock(); woken = true; condition.signal(); condition.unlock()
    }

    /// Stops the loop and waits for the running step to end.
    func stop() {
        condition.lock(); running = false; condition.signal(); condition.unlock()
        if thread != nil { finished.wait() }
        thread = nil
    }
}

/// The session persisted in the store so a later start works offline.
struct PersistedSession: Codable, Equatable {
    var apiKey: String
    var airline: String
    var userId: String
    var environment: EddyEnvironment
}

/// Geometry of the areas the engine builds itself.
enum EngineGeometry {
    /// A circle of `radiusNM` around a point as a closed-free ring of `vertices` points.
    static func circle(latitude: Double, longitude: Double, radiusNM: Double, vertices: Int = 24) -> [LatLng] {
        (0..<vertices).map { i in
            let p = Geodesy.destination(from: (latitude, longitude), bearingDegrees: Double(i) * 360 / Double(vertices),
                                        distanceNM: radiusNM)
            return LatLng(latitude: p.latitude, longitude: p.longitude)
        }
    }

    static func geoPoints(_ ring: [LatLng]) -> [GeoPoint] { ring.map { GeoPoint(lat: $0.latitude, lng: $0.longitude) } }
}

/// The alert candidates near the aircraft, re-read from the store only when data changed, the aircraft moved
/// `refreshDistanceNM`, changed layer by more than `layerSlack`, or `refreshSeconds` passed.
struct AlertCandidateCache {
    var latitude: Double
    var longitude: Double
    var layer: Int
    var time: Double
    var generation: Int
    var candidates: [AlertCandidate]

    static let refreshDistanceNM = 20.0
    static let refreshSeconds = 60.0
    static let layerSlack = 3

    func isFresh(for position: AlertPosition, generation: Int) -> Bool {
        generation == self.generation
            && abs(position.layer - layer) <= Self.layerSlack
            && position.time - time < Self.refreshSeconds && position.time >= time
            && Geodesy.distanceNM(from: (latitude, longitude), to: (position.latitudeDegrees, position.longitudeDegrees))
                <= Self.refreshDistanceNM
    }

    /// Reads the candidates for `query` around `position` from `store`: server reports (own ones younger than the
    /// exclusion excluded by the store) and own reports of the history window.
    static func load(store: EddyStore, query: AlertQuery, position: AlertPosition, history: HistoryWindow,
                     generation: Int) throws -> AlertCandidateCache {
        let slack = query.layerBand + layerSlack
        let lower = max(QueryLimits.lowestAltitudeFeet / 1000, position.layer - slack) * 1000
        let upper = min(QueryLimits.highestAltitudeFeet / 1000, position.layer + slack) * 1000
        let ring = EngineGeometry.circle(latitude: position.latitudeDegrees, longitude: position.longitudeDegrees,
                                         radiusNM: query.lookAheadNM + refreshDistanceNM + 10)
        let area = QueryArea.polygon(ring)
        let minimum = max(query.minimumSeverity, .light)
        let range: ClosedRange<Int>? = lower <= upper ? lower...upper : nil
        var candidates: [AlertCandidate] = []
        if range != nil {
            let serverSelection: ReportSelection = query.excludeOwnSeconds > 0
                ? .serverExcludingOwn(timeSpanSeconds: min(query.excludeOwnSeconds, HistoryWindow.sixHours.seconds)) : .server
            let server = TurbulenceQuery(area: area, altitudeRangeFeet: range, historyWindow: history, minimumSeverity: minimum,
                                         viewer: query.viewerClass, selection: serverSelection, now: position.time)
            candidates += try store.turbulence(server).map { AlertCandidate(report: $0.report, origin: .server) }
            let own = TurbulenceQuery(area: area, altitudeRangeFeet: range, historyWindow: history, minimumSeverity: minimum,
                                      viewer: query.viewerClass, selection: .own(timeSpanSeconds: history.seconds),
                                      now: position.time)
            candidates += try store.turbulence(own).map { AlertCandidate(report: $0.report, origin: .own) }
        }
        return AlertCandidateCache(latitude: position.latitudeDegrees, longitude: position.longitudeDegrees,
                                   layer: position.layer, time: position.time, generation: generation, candidates: candidates)
    }
}
