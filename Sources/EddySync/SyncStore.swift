package import EddyProtocol
package import EddyStore
import EddySupport
package import EddyVocabulary
package import Foundation
import Synchronization

/// What the sync scheduler needs from the local store: the outbox of own reports, a place for fetched
/// data, and the last server tick per area × data type. `EddyStore` satisfies it; `InMemorySyncStore`
/// is a small in-memory one for tests and hosts that keep no database.
package protocol SyncStore: Sendable {
    /// Oldest pending own reports, at most `limit`.
    func pendingReports(limit: Int) throws(StoreError) -> [TileReport]
    /// Marks own reports as acknowledged by the server (they leave the outbox).
    func markReportsSent(_ ids: [UUID]) throws(StoreError)
    /// Drops own reports the server refused for good.
    func markReportsRejected(_ rejected: [RejectedReport]) throws(StoreError)
    /// Stores one page of a fetch answer (for `request`, received at `now`): a page whose `request.cursor` is set
    /// continues the page before it; the answer's tick is stored with the last page only (`nextCursor` nil), so a fetch
    /// interrupted between pages asks again from the same tick.
    func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) throws(StoreError)
    /// The tick of the last stored answer for an area type × data type (nil: fetch full).
    func lastTick(area: DataAreaType, dataType: DataType) throws(StoreError) -> Int?
    /// Forgets the tick of an area type (its polygon changed: the next fetch is full).
    func resetTicks(area: DataAreaType) throws(StoreError)
}

/// An in-memory `SyncStore` (thread-safe).
package final class InMemorySyncStore: SyncStore {
    private struct State {
        var outbox: [UUID: TileReport] = [:]
        var outboxOrder: [UUID] = []
        var sent: Set<UUID> = []
        var rejected: [UUID: String] = [:]
        var observations: [UUID: Observation] = [:]
        var nowcast: [DataAreaType: [NowcastCell]] = [:]
        var polygons: [DataAreaType: PolygonCollection] = [:]
        var flights: [DataAreaType: [LiveFlight]] = [:]
        var altitudeOffsets: [AltitudeOffsetKey: AltitudeOffsetCell] = [:]
        var ticks: [String: Int] = [:]
    }
    private let state = Mutex(State())

    /// Creates an empty store.
    package init() {}

    /// Adds own reports to the outbox (a report already held is ignored).
    package func enqueue(_ reports: [TileReport]) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            for report in reports where s.outbox[report.id] == nil && !s.sent.contains(report.id) {
                s.outbox[report.id] = report
                s.outboxOrder.append(report.id)
            }
        }
    }

    /// Pending own reports.
    package func pendingReports(limit: Int) -> [TileReport] {
        state.withLock(visibleToThreadSanitizerAs: self) { s in Array(s.outboxOrder.prefix(limit)).compactMap { s.outbox[$0] } }
    }

    /// Acknowledged ids leave the outbox.
    package func markReportsSent(_ ids: [UUID]) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            let set = Set(ids)
            for id in set where s.outbox.removeValue(forKey: id) != nil { s.sent.insert(id) }
            s.outboxOrder.removeAll { set.contains($0) }
        }
    }

    /// Refused ids leave the outbox.
    package func markReportsRejected(_ rejected: [RejectedReport]) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            for r in rejected {
                s.outbox.removeValue(forKey: r.id)
                s.rejected[r.id] = r.reason
            }
            let set = Set(rejected.map(\.id))
            s.outboxOrder.removeAll { set.contains($0) }
        }
    }

    /// Stores a page of a fetch answer: the first page of a nowcast or live-flight answer replaces what is held, the
    /// next pages add to it; the tick comes with the last page.
    package func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) {
        let area = request.area.type
        let continued = request.cursor != nil
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            for observation in response.observations { s.observations[observation.report.id] = observation }
            for cell in response.altitudeOffsets ?? [] {
                let key = AltitudeOffsetKey(h3: cell.h3, layer: cell.layer)
                if let held = s.altitudeOffsets[key], held.newestTime > cell.newestTime { continue }
                s.altitudeOffsets[key] = cell
            }
            switch response.dataType {
            case .nowcast where response.full: s.nowcast[area] = (continued ? s.nowcast[area] ?? [] : []) + response.nowcast
            case .turbulencePolygons: if let polygons = response.polygons { s.polygons[area] = polygons }
            case .liveFlights: s.flights[area] = (continued ? s.flights[area] ?? [] : []) + response.liveFlights
            default: break
            }
            if response.nextCursor == nil { s.ticks["\(area.rawValue)/\(response.dataType.rawValue)"] = response.serverTick }
        }
    }

    /// Last tick.
    package func lastTick(area: DataAreaType, dataType: DataType) -> Int? {
        state.withLock(visibleToThreadSanitizerAs: self) { $0.ticks["\(area.rawValue)/\(dataType.rawValue)"] }
    }

    /// Forgets an area's ticks.
    package func resetTicks(area: DataAreaType) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in for type in DataType.allCases { s.ticks["\(area.rawValue)/\(type.rawValue)"] = nil } }
    }

    /// Ids acknowledged by the server.
    package var sentIds: Set<UUID> { state.withLock(visibleToThreadSanitizerAs: self) { $0.sent } }
    /// Pending count.
    package var pendingCount: Int { state.withLock(visibleToThreadSanitizerAs: self) { $0.outbox.count } }
    /// Server observations held.
    package var observations: [Observation] { state.withLock(visibleToThreadSanitizerAs: self) { Array($0.observations.values) } }
    /// Nowcast cells held for an area.
    package func nowcast(area: DataAreaType) -> [NowcastCell] { state.withLock(visibleToThreadSanitizerAs: self) { $0.nowcast[area] ?? [] } }
    /// Polygons held for an area.
    package func polygons(area: DataAreaType) -> PolygonCollection? { state.withLock(visibleToThreadSanitizerAs: self) { $0.polygons[area] } }
    /// Live flights held for an area.
    package func liveFlights(area: DataAreaType) -> [LiveFlight] { state.withLock(visibleToThreadSanitizerAs: self) { $0.flights[area] ?? [] } }
    /// Fleet altitude offsets held (the newest per cell × layer), by h3 then layer.
    package var altitudeOffsets: [AltitudeOffsetCell] {
        state.withLock(visibleToThreadSanitizerAs: self) { $0.altitudeOffsets.values.sorted { ($0.h3, $0.layer) < ($1.h3, $1.layer) } }
    }

    private struct AltitudeOffsetKey: Hashable { var h3: UInt64; var layer: Int }
}
