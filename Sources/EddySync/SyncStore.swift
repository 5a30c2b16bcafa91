import EddyCore
import EddyProtocol
import Foundation
import Synchronization

/// Where scheduling time comes from (injected, so tests need no sleeping).
public protocol SyncClock: Sendable {
    /// Now, Unix seconds.
    func now() -> Double
    /// Waits `seconds` (a manual clock may return at once).
    func sleep(seconds: Double) async
}

/// The wall clock.
public struct SystemSyncClock: SyncClock {
    /// Creates the clock.
    public init() {}
    /// Now, Unix seconds.
    public func now() -> Double { Date().timeIntervalSince1970 }
    /// Sleeps for real.
    public func sleep(seconds: Double) async { try? await Task.sleep(for: .seconds(max(0, seconds))) }
}

/// A clock tests move by hand.
public final class ManualSyncClock: SyncClock {
    private let current: Mutex<Double>
    /// Starts at `start` (Unix seconds).
    public init(start: Double) { current = Mutex(start) }
    /// Now.
    public func now() -> Double { current.withLock { $0 } }
    /// Moves time forward.
    public func advance(by seconds: Double) { current.withLock { $0 += seconds } }
    /// Advances the clock instead of sleeping (and yields, so a loop on this clock lets other tasks run).
    public func sleep(seconds: Double) async {
        advance(by: max(0, seconds))
        await Task.yield()
    }
}

/// What the sync scheduler needs from the local store: the outbox of own reports, a place for fetched
/// data, and the last server tick per area × data type. `EddyStore` satisfies it; `InMemorySyncStore`
/// is a small in-memory one for tests and hosts that keep no database.
public protocol SyncStore: Sendable {
    /// Oldest pending own reports, at most `limit`.
    func pendingReports(limit: Int) throws -> [TileReport]
    /// Marks own reports as acknowledged by the server (they leave the outbox).
    func markReportsSent(_ ids: [UUID]) throws
    /// Drops own reports the server refused for good.
    func markReportsRejected(_ rejected: [RejectedReport]) throws
    /// Stores a fetch answer (for `request`, received at `now`) and its tick.
    func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) throws
    /// The tick of the last stored answer for an area type × data type (nil: fetch full).
    func lastTick(area: SyncAreaType, dataType: SyncDataType) throws -> Int?
    /// Forgets the tick of an area type (its polygon changed: the next fetch is full).
    func resetTicks(area: SyncAreaType) throws
}

/// An in-memory `SyncStore` (thread-safe).
public final class InMemorySyncStore: SyncStore {
    private struct State {
        var outbox: [UUID: TileReport] = [:]
        var outboxOrder: [UUID] = []
        var sent: Set<UUID> = []
        var rejected: [UUID: String] = [:]
        var observations: [UUID: Observation] = [:]
        var nowcast: [SyncAreaType: [NowcastCell]] = [:]
        var polygons: [SyncAreaType: PolygonCollection] = [:]
        var flights: [SyncAreaType: [LiveFlight]] = [:]
        var ticks: [String: Int] = [:]
    }
    private let state = Mutex(State())

    /// Creates an empty store.
    public init() {}

    /// Adds own reports to the outbox (a report already held is ignored).
    public func enqueue(_ reports: [TileReport]) {
        state.withLock { s in
            for report in reports where s.outbox[report.id] == nil && !s.sent.contains(report.id) {
                s.outbox[report.id] = report
                s.outboxOrder.append(report.id)
            }
        }
    }

    /// Pending own reports.
    public func pendingReports(limit: Int) -> [TileReport] {
        state.withLock { s in Array(s.outboxOrder.prefix(limit)).compactMap { s.outbox[$0] } }
    }

    /// Acknowledged ids leave the outbox.
    public func markReportsSent(_ ids: [UUID]) {
        state.withLock { s in
            let set = Set(ids)
            for id in set where s.outbox.removeValue(forKey: id) != nil { s.sent.insert(id) }
            s.outboxOrder.removeAll { set.contains($0) }
        }
    }

    /// Refused ids leave the outbox.
    public func markReportsRejected(_ rejected: [RejectedReport]) {
        state.withLock { s in
            for r in rejected {
                s.outbox.removeValue(forKey: r.id)
                s.rejected[r.id] = r.reason
            }
            let set = Set(rejected.map(\.id))
            s.outboxOrder.removeAll { set.contains($0) }
        }
    }

    /// Stores a fetch answer.
    public func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) {
        let area = request.area.type
        state.withLock { s in
            for observation in response.observations { s.observations[observation.report.id] = observation }
            switch response.dataType {
            case .nowcast where response.full: s.nowcast[area] = response.nowcast
            case .polygons: if let polygons = response.polygons { s.polygons[area] = polygons }
            case .liveFlights: s.flights[area] = response.liveFlights
            default: break
            }
            s.ticks["\(area.rawValue)/\(response.dataType.rawValue)"] = response.serverTick
        }
    }

    /// Last tick.
    public func lastTick(area: SyncAreaType, dataType: SyncDataType) -> Int? {
        state.withLock { $0.ticks["\(area.rawValue)/\(dataType.rawValue)"] }
    }

    /// Forgets an area's ticks.
    public func resetTicks(area: SyncAreaType) {
        state.withLock { s in for type in SyncDataType.allCases { s.ticks["\(area.rawValue)/\(type.rawValue)"] = nil } }
    }

    /// Ids acknowledged by the server.
    public var sentIds: Set<UUID> { state.withLock { $0.sent } }
    /// Pending count.
    public var pendingCount: Int { state.withLock { $0.outbox.count } }
    /// Server observations held.
    public var observations: [Observation] { state.withLock { Array($0.observations.values) } }
    /// Nowcast cells held for an area.
    public func nowcast(area: SyncAreaType) -> [NowcastCell] { state.withLock { $0.nowcast[area] ?? [] } }
    /// Polygons held for an area.
    public func polygons(area: SyncAreaType) -> PolygonCollection? { state.withLock { $0.polygons[area] } }
    /// Live flights held for an area.
    public func liveFlights(area: SyncAreaType) -> [LiveFlight] { state.withLock { $0.flights[area] ?? [] } }
}
