#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
package import Foundation
import Synchronization

/// The server's storage in this process's memory: everything is lost when it goes. For tests, and for a host that
/// embeds `EddyServerKit` and keeps nothing (there is no `eddy-server serve` option for it: a server whose keys vanish
/// at every start could not admit a client).
///
/// One `Mutex` guards the whole state; each call holds it for its work only (no I/O, no waiting inside), so a call is
/// one transaction: it commits when it returns, and nothing can fail in between. It answers every call as the SQLite and
/// PostgreSQL backends do (the same storage test suite runs on all three); the domain rules above it (`ServerDomain`)
/// are the same.
package final class InMemoryServerStorage: ServerStorage {
    /// Everything stored.
    struct State {
        /// Unix seconds; set by the first `tickEpoch` call.
        var tickEpoch: Double?
        /// Keys by id, with the stored hash.
        var keys: [(record: APIKeyRecord, hash: String)] = []
        /// The last key id handed out.
        var lastKeyId: Int64 = 0
        /// Reporter ids by airline and user id.
        var reporters: [ReporterKey: String] = [:]
        /// Sessions by token.
        var sessions: [String: (keyId: Int64, airline: String, reporterId: String, expiresAt: Double)] = [:]
        /// Reports in insertion order, each with its insertion number (SQL's rowid / sequence).
        var observations: [(sequence: Int, tick: Int, exitTime: Double, stored: StoredObservation)] = []
        /// The ids of `observations`.
        var reportIds: Set<UUID> = []
        /// The last insertion number handed out.
        var lastSequence = 0
        /// Every nowcast issue stored (time, tick).
        var nowcastIssues: [(issueTime: Double, tick: Int)] = []
        /// The latest issue's cells.
        var nowcastCells: [IssuedNowcastCell] = []
        /// Live flights by uploader × client flight id.
        var flights: [FlightKey: StoredFlight] = [:]
        /// Fleet altitude offsets by reporter × cell × layer.
        var altitudeOffsets: [OffsetKey: StoredAltitudeOffset] = [:]
    }

    /// Airline × user id.
    struct ReporterKey: Hashable { var airline: String; var userId: String }
    /// Uploader × client flight id.
    struct FlightKey: Hashable { var reporterId: String; var clientFlightId: String }
    /// Reporter × cell × layer.
    struct OffsetKey: Hashable { var reporterId: String; var cell: UInt64; var layer: Int }

    private let state = Mutex(State())
    /// Forecast cells held for the blend (`Blend/InMemoryForecastGrids.swift`; tests put them there).
    let forecastGrid = Mutex<[StoredForecastCell]>([])
    /// Calls in progress, for `/metrics` (the pool is the one lock: size 1).
    let meter = StorageLoadMeter(poolSize: 1)

    /// An empty storage.
    package init() {}

    /// Runs `body` on the state under the lock (one call, one transaction), counted by the meter.
    private func withState<T: Sendable, Failure: Error>(_ body: (inout State) throws(Failure) -> T) throws(Failure) -> T {
        let call = meter.call()
        defer { call.end() }
        return try state.withLock(visibleToThreadSanitizerAs: self) { (state: inout sending State) throws(Failure) -> sending T in
            call.connected()
            return try body(&state)
        }
    }

    /// The tick epoch: `now` (whole seconds) at the first call, the same ever after.
    package func tickEpoch(now: Double) -> Double {
        withState { state in
            if let epoch = state.tickEpoch { return epoch }
            state.tickEpoch = now.rounded(.down)
            return now.rounded(.down)
        }
    }

    // MARK: keys

    /// Adds a key for `airline`; returns the key (shown once) and its record.
    package func addKey(airline: String, label: String, now: Double, expiresAt: Double?) -> (key: String, record: APIKeyRecord) {
        let key = StorageSupport.newAPIKey()
        let record = withState { state in
            state.lastKeyId += 1
            let record = APIKeyRecord(id: state.lastKeyId, airline: airline, label: label, prefix: StorageSupport.apiKeyPrefix(key),
                                      active: true, createdAt: now, expiresAt: expiresAt)
            state.keys.append((record, StorageSupport.apiKeyHash(key)))
            return record
        }
        return (key, record)
    }

    /// Every key, oldest first.
    package func listKeys() -> [APIKeyRecord] { withState { $0.keys.map(\.record) } }

    /// Revokes a key (`unknownKey` when there is none with that id).
    package func revokeKey(id: Int64) throws(ServerDatabaseError) {
        try withState { (state: inout State) throws(ServerDatabaseError) in
            guard let index = state.keys.firstIndex(where: { $0.record.id == id }) else { throw .unknownKey(id) }
            state.keys[index].record.active = false
        }
    }

    /// Looks a key up by its hash.
    package func lookupKey(_ key: String) -> APIKeyRecord? {
        let hash = StorageSupport.apiKeyHash(key)
        return withState { state in state.keys.first { $0.hash == hash }?.record }
    }

    // MARK: sessions

    /// Opens a session; the reporter id is random per airline × user and kept. Sessions expired for a day are forgotten.
    package func openSession(keyId: Int64, airline: String, userId: String, now: Double, ttl: Double) -> SessionRecord {
        let token = StorageSupport.randomHex(bytes: 32)
        let candidate = "r_" + StorageSupport.randomHex(bytes: 8)
        let reporterId = withState { state in
            let reporter = state.reporters[ReporterKey(airline: airline, userId: userId), default: candidate]
            state.reporters[ReporterKey(airline: airline, userId: userId)] = reporter
            state.sessions = state.sessions.filter { $0.value.expiresAt >= now - StorageSupport.forgetSessionsExpiredSeconds }
            state.sessions[token] = (keyId, airline, reporter, now + ttl)
            if let index = state.keys.firstIndex(where: { $0.record.id == keyId }) {
                state.keys[index].record.lastUsedAt = now
                state.keys[index].record.sessionsStarted += 1
            }
            return reporter
        }
        return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporterId, expiresAt: now + ttl, keyActive: true)
    }

    /// The session for a token, with its key's state; nil when unknown.
    package func session(token: String) -> SessionRecord? {
        withState { state in
            guard let session = state.sessions[token], let key = state.keys.first(where: { $0.record.id == session.keyId }) else {
                return nil
            }
            return SessionRecord(token: token, keyId: session.keyId, airline: session.airline, reporterId: session.reporterId,
                                 expiresAt: session.expiresAt, keyActive: key.record.active, keyExpiresAt: key.record.expiresAt)
        }
    }

    /// Test hook: expires every session now.
    package func expireAllSessions(now: Double) {
        withState { state in
            for token in state.sessions.keys { state.sessions[token]?.expiresAt = now - 1 }
        }
    }

    // MARK: reports

    /// Inserts the reports whose ids are not held, served as the domain decided; returns the ids that were new.
    package func insertReports(_ upload: ReportUpload) -> Set<UUID> {
        withState { state in
            let served = state.flights.values
                .filter { $0.reporterId == upload.reporterId && $0.updatedAt >= upload.liveFlightUpdatedSince }
                .max { $0.updatedAt < $1.updatedAt }?.publicId ?? upload.fallbackPublicId
            var fresh = Set<UUID>()
            for row in upload.rows where state.reportIds.insert(row.report.id).inserted {
                state.lastSequence += 1
                let observation = Observation(report: row.report, reporterId: served, tick: upload.tick)
                let position = ObservationPosition(exitTime: row.report.exitTime, sequence: Int64(state.lastSequence))
                state.observations.append((state.lastSequence, upload.tick, row.report.exitTime,
                                           StoredObservation(observation: observation, center: row.center, position: position)))
                fresh.insert(row.report.id)
            }
            return fresh
        }
    }

    /// The observations `query` selects, in the fetch order (exit time, then insertion): after `query.after`, at most
    /// `query.limit`.
    package func observations(_ query: ObservationQuery) -> [StoredObservation] {
        let selected = withState { state in
            state.observations.filter { Self.matches($0, query) }.map(\.stored)
        }.sorted { ($0.position.exitTime, $0.position.sequence) < ($1.position.exitTime, $1.position.sequence) }
        return query.limit.map { Array(selected.prefix($0)) } ?? selected
    }

    /// Whether `query` selects any observation.
    package func hasObservations(_ query: ObservationQuery) -> Bool {
        withState { state in state.observations.contains { Self.matches($0, query) } }
    }

    /// Whether a stored report is one `query` selects.
    private static func matches(_ row: (sequence: Int, tick: Int, exitTime: Double, stored: StoredObservation), _ query: ObservationQuery) -> Bool {
        let tile = row.stored.observation.report.tile
        let position = row.stored.position
        return row.exitTime >= query.minExitTime && tile.layer >= query.minLayer && tile.layer <= query.maxLayer
            && row.tick >= (query.minTick ?? Int.min) && (query.boundingBox?.contains(row.stored.center) ?? true)
            && query.after.map { (position.exitTime, position.sequence) > ($0.exitTime, $0.sequence) } ?? true
    }

    /// Tiles of observations with exit time in `[from, to]`, for the nowcast, in insertion order.
    package func nowcastInputs(from: Double, to: Double) -> [StoredNowcastInput] {
        withState { state in
            state.observations.filter { $0.exitTime >= from && $0.exitTime <= to }.map { row in
                let report = row.stored.observation.report
                return StoredNowcastInput(cell: report.tile.h3, layer: report.tile.layer, exitTime: report.exitTime, edrPeak: report.edrPeak)
            }
        }
    }

    /// Retention: forgets the reports (and their ids) whose exit time is before `exitBefore`.
    package func purgeReports(exitBefore: Double) -> Int {
        withState { state in
            let before = state.observations.count
            state.observations.removeAll { row in
                guard row.exitTime < exitBefore else { return false }
                state.reportIds.remove(row.stored.observation.report.id)
                return true
            }
            return before - state.observations.count
        }
    }

    // MARK: nowcast

    /// Latest nowcast issue (time, tick), nil before the first.
    package func latestNowcastIssue() -> (issueTime: Double, tick: Int)? {
        withState { state in state.nowcastIssues.max { $0.issueTime < $1.issueTime } }
    }

    /// Stores an issue, replacing every older one's cells (no-op when an issue at or after `issueTime` exists).
    package func storeNowcast(issueTime: Double, tick: Int, cells: [StoredNowcastCell]) {
        withState { state in
            guard !state.nowcastIssues.contains(where: { $0.issueTime >= issueTime }) else { return }
            state.nowcastCells = cells.map { IssuedNowcastCell(issueTime: issueTime, cell: $0) }
            state.nowcastIssues.append((issueTime, tick))
        }
    }

    /// The stored nowcast cells in the layer range and box, ordered by cell (as SQL's signed 64-bit column), layer and
    /// hour: after `after`, at most `limit`.
    package func nowcastCells(minLayer: Int, maxLayer: Int, boundingBox: GeoBoundingBox?, after: NowcastPosition?, limit: Int?)
        -> [IssuedNowcastCell] {
        let selected = withState { state in
            state.nowcastCells.filter { issued in
                issued.cell.layer >= minLayer && issued.cell.layer <= maxLayer && (boundingBox?.contains(issued.cell.center) ?? true)
                    && after.map { issued.position > $0 } ?? true
            }
        }.sorted { $0.position < $1.position }
        return limit.map { Array(selected.prefix($0)) } ?? selected
    }

    // MARK: live flights

    /// Writes a position upload (see `PositionWrite`).
    package func storePosition(_ write: PositionWrite) {
        withState { state in
            let key = FlightKey(reporterId: write.flight.reporterId, clientFlightId: write.flight.clientFlightId)
            var flight = write.flight
            if let held = state.flights[key] { flight.publicId = held.publicId }
            state.flights[key] = flight
            state.flights = state.flights.filter { $0.value.updatedAt >= write.dropFlightsUpdatedBefore }
            if let offset = write.altitudeOffset {
                let offsetKey = OffsetKey(reporterId: offset.reporterId, cell: offset.cell, layer: offset.layer)
                if let held = state.altitudeOffsets[offsetKey], held.observation.time > offset.observation.time {
                    // A newer observation is already held: it wins.
                } else {
                    state.altitudeOffsets[offsetKey] = offset
                }
            }
            if let cutoff = write.dropAltitudeOffsetsMeasuredBefore {
                state.altitudeOffsets = state.altitudeOffsets.filter { $0.value.observation.time >= cutoff }
            }
        }
    }

    /// Flights updated at or after `updatedSince`, ordered by public id: after `afterPublicId`, at most `limit`.
    package func liveFlights(updatedSince: Double, afterPublicId: String?, limit: Int?) -> [StoredFlight] {
        let selected = withState { state in
            state.flights.values.filter { $0.updatedAt >= updatedSince && $0.publicId > (afterPublicId ?? "") }
        }.sorted { $0.publicId < $1.publicId }
        return limit.map { Array(selected.prefix($0)) } ?? selected
    }

    /// Stored fleet altitude-offset observations in `cells` (all when nil) and the layer range, measured at or after
    /// `oldestTime`.
    package func altitudeOffsetObservations(cells: [UInt64]?, minLayer: Int, maxLayer: Int, oldestTime: Double) -> [AltitudeOffsetAggregation.Input] {
        let wanted = cells.map(Set.init)
        return withState { state in
            state.altitudeOffsets.values.filter { offset in
                offset.layer >= minLayer && offset.layer <= maxLayer && offset.observation.time >= oldestTime
                    && (wanted?.contains(offset.cell) ?? true)
            }.sorted {
                // A fixed order, so the aggregate's sums come out the same every time.
                ($0.cell, $0.layer, $0.reporterId) < ($1.cell, $1.layer, $1.reporterId)
            }.map { offset in
                AltitudeOffsetAggregation.Input(cell: offset.cell, layer: offset.layer, offsetFeet: offset.observation.offsetFeet,
                                                uncertaintyFeet: offset.observation.uncertaintyFeet, time: offset.observation.time)
            }
        }
    }

    // MARK: upkeep

    /// Nothing to keep up.
    package func maintain(now: Double) {}
    /// One process: its own clock is the storage's.
    package var clockOffsetSeconds: Double { 0 }
    /// Nothing to release.
    package func shutdown() async {}
    /// Calls in progress on the one lock.
    package var poolLoad: ServerMetrics.DatabasePoolLoad { meter.load }
}
#endif
