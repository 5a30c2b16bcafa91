#if Tools
import Crypto
import EddyProtocol
import EddyVocabulary
package import Foundation
import Synchronization

/// What the server keeps: keys, sessions, reports, nowcast issues, live flights and fleet altitude offsets.
///
/// Three backends: `SQLiteServerStorage` (one file, one process; the default), `PostgresServerStorage` (several
/// stateless instances on one database; docs/fleet-server.md) and `InMemoryServerStorage` (tests). They only store and
/// fetch, and answer every call identically; the rules about what is stored and who sees what (areas, visibility,
/// expiry) are `ServerDomain`'s. Every call that writes returns only after its write is committed, and throws only
/// `ServerDatabaseError`.
package protocol ServerStorage: Sendable {
    /// The tick epoch (Unix seconds) stored in the database when it was created, so every instance on it counts the
    /// same ticks; `now` is used only by the first instance to open a new database.
    func tickEpoch(now: Double) throws(ServerDatabaseError) -> Double

    /// Adds a key for `airline`; returns the key (shown once) and its record.
    func addKey(airline: String, label: String, now: Double, expiresAt: Double?) async throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord)
    /// Every key, oldest first.
    func listKeys() async throws(ServerDatabaseError) -> [APIKeyRecord]
    /// Revokes a key (throws `ServerDatabaseError.unknownKey` when there is none with that id).
    func revokeKey(id: Int64) async throws(ServerDatabaseError)
    /// Looks a key up: (id, airline, active) or nil.
    func lookupKey(_ key: String) async throws(ServerDatabaseError) -> APIKeyRecord?

    /// Opens a session; the reporter id is random per airline × user and kept.
    func openSession(keyId: Int64, airline: String, userId: String, now: Double, ttl: Double) async throws(ServerDatabaseError)
        -> SessionRecord
    /// The session for a token, with its key's state; nil when unknown.
    func session(token: String) async throws(ServerDatabaseError) -> SessionRecord?
    /// Test hook: expires every session now.
    func expireAllSessions(now: Double) async throws(ServerDatabaseError)

    /// Inserts the upload's reports whose ids are not held yet (by any instance), stored with the reporter id the
    /// upload names (see `ReportUpload`); returns the ids that were new.
    func insertReports(_ upload: ReportUpload) async throws(ServerDatabaseError) -> Set<UUID>
    /// The observations `query` selects (window, layers, ticks, bounding box) in the fetch order (exit time, then
    /// insertion): those after `query.after`, at most `query.limit`.
    func observations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> [StoredObservation]
    /// Whether `query` selects any observation.
    func hasObservations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> Bool
    /// Tiles of observations with exit time in `[from, to]`, for the nowcast.
    func nowcastInputs(from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredNowcastInput]

    /// Latest nowcast issue (time, tick), nil before the first.
    func latestNowcastIssue() async throws(ServerDatabaseError) -> (issueTime: Double, tick: Int)?
    /// Stores an issue, replacing every older one (no-op when an issue at or after `issueTime` exists).
    func storeNowcast(issueTime: Double, tick: Int, cells: [StoredNowcastCell]) async throws(ServerDatabaseError)
    /// The stored nowcast cells in the layer range whose centre is in `boundingBox` (everywhere when nil), ordered by cell
    /// (as a signed 64-bit integer), layer and forecast hour (`NowcastPosition`): those after `after`, at most `limit`.
    func nowcastCells(minLayer: Int, maxLayer: Int, boundingBox: GeoBoundingBox?, after: NowcastPosition?, limit: Int?)
        async throws(ServerDatabaseError) -> [IssuedNowcastCell]

    /// Writes a position upload in one transaction: the flight row, the drop of expired flights, the altitude offset
    /// (unless a newer one is held) and the drop of old offsets (see `PositionWrite`).
    func storePosition(_ write: PositionWrite) async throws(ServerDatabaseError)
    /// The stored flights updated at or after `updatedSince` (Unix seconds), ordered by public id: those whose public id
    /// comes after `afterPublicId`, at most `limit`.
    func liveFlights(updatedSince: Double, afterPublicId: String?, limit: Int?) async throws(ServerDatabaseError) -> [StoredFlight]
    /// Stored fleet altitude-offset observations in `cells` (all when nil) and the layer range, measured at or after `oldestTime`.
    func altitudeOffsetObservations(cells: [UInt64]?, minLayer: Int, maxLayer: Int, oldestTime: Double) async throws(ServerDatabaseError)
        -> [AltitudeOffsetAggregation.Input]

    /// Background upkeep, called about once a second: WAL checkpoint (SQLite), partitions ahead (PostgreSQL).
    func maintain(now: Double) async throws(ServerDatabaseError)
    /// How far the database's clock is ahead of this process's system clock, seconds, when that is more than 1 s (0
    /// otherwise, and always for SQLite): ticks are counted on the database's clock, so instances agree on them.
    var clockOffsetSeconds: Double { get }
    /// Retention: deletes the reports whose exit time is before `exitBefore` (Unix seconds), with what only served them
    /// (their upload ids); returns how many reports went.
    func purgeReports(exitBefore: Double) async throws(ServerDatabaseError) -> Int
    /// Releases connections (PostgreSQL's pool); the storage is unusable afterwards.
    func shutdown() async
    /// The storage's connection pool now (the `eddy_database_*` gauges of `/metrics`, sampled at each scrape).
    var poolLoad: ServerMetrics.DatabasePoolLoad { get }
    /// What `GET /readyz` asks: returns when the storage can serve reads and writes, throws the reason otherwise.
    func checkReady() async throws(ServerDatabaseError)
}

/// Counts the storage calls in progress, for the database-pool gauges (`ServerStorage.poolLoad`): those holding a
/// connection of the backend's pool and those still waiting for one.
///
/// PostgresNIO and GRDB expose no pool statistics, so the count is taken at the storage's boundary: each call is a
/// `Call` (`call()`), which reports `connected()` from inside the backend's connection closure (the moment the pool
/// handed it a connection) and `end()` when the work really ends. A call that gave up waiting for the database (its
/// deadline passed) but whose work still runs keeps counting, as its connection is still taken.
package final class StorageLoadMeter: Sendable {
    private let waiting = Atomic<Int>(0)
    private let holding = Atomic<Int>(0)
    /// Connections the pool may open (PostgreSQL: `maximumConnections`; SQLite: the writer plus GRDB's readers).
    package let poolSize: Int

    /// A meter for a pool of `poolSize` connections.
    package init(poolSize: Int) { self.poolSize = max(1, poolSize) }

    /// A storage call starts: it waits for a connection until it reports `connected()`; pair with `end()`.
    package func call() -> Call { Call(meter: self) }

    /// Connections held by storage calls and calls waiting for one, now.
    package var load: ServerMetrics.DatabasePoolLoad {
        ServerMetrics.DatabasePoolLoad(connectionsInUse: max(0, holding.load(ordering: .relaxed)),
                                       requestsWaiting: max(0, waiting.load(ordering: .relaxed)), poolSize: poolSize)
    }

    /// One storage call, counted as waiting, then (after `connected()`) as holding a connection, until `end()`.
    package final class Call: Sendable {
        private let meter: StorageLoadMeter
        /// 0 waiting, 1 holding a connection, 2 ended.
        private let phase = Atomic<Int>(0)

        fileprivate init(meter: StorageLoadMeter) {
            self.meter = meter
            meter.waiting.add(1, ordering: .relaxed)
        }

        /// The call holds its connection now (later calls change nothing).
        package func connected() {
            guard phase.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return }
            meter.waiting.subtract(1, ordering: .relaxed)
            meter.holding.add(1, ordering: .relaxed)
        }

        /// The call's work has ended (later calls change nothing).
        package func end() {
            switch phase.exchange(2, ordering: .relaxed) {
            case 0: meter.waiting.subtract(1, ordering: .relaxed)
            case 1: meter.holding.subtract(1, ordering: .relaxed)
            default: break
            }
        }
    }
}

/// Helpers every backend shares.
extension ServerStorage {
    /// A key that never expires (`addKey(airline:label:now:expiresAt:)`).
    package func addKey(airline: String, label: String, now: Double) async throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        try await addKey(airline: airline, label: label, now: now, expiresAt: nil)
    }

    /// Ready when the storage answers a trivial read (the latest nowcast issue: one indexed row); a database that is
    /// down fails it (PostgreSQL: within the connection-wait deadline).
    package func checkReady() async throws(ServerDatabaseError) { _ = try await latestNowcastIssue() }

    /// Every stored nowcast cell in the layer range (one read, no page).
    package func nowcastCells(minLayer: Int, maxLayer: Int) async throws(ServerDatabaseError) -> [IssuedNowcastCell] {
        try await nowcastCells(minLayer: minLayer, maxLayer: maxLayer, boundingBox: nil, after: nil, limit: nil)
    }

    /// Every stored flight updated at or after `updatedSince` (one read, no page), ordered by public id.
    package func liveFlights(updatedSince: Double) async throws(ServerDatabaseError) -> [StoredFlight] {
        try await liveFlights(updatedSince: updatedSince, afterPublicId: nil, limit: nil)
    }

    /// Key rotation: a new key for the airline and label of key `id` (returned once, like `addKey`), and key `id`
    /// revoked when `revokingOld`; throws `ServerDatabaseError.unknownKey` when there is no such key.
    package func rotateKey(id: Int64, revokingOld: Bool, now: Double) async throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        guard let old = try await listKeys().first(where: { $0.id == id }) else { throw .unknownKey(id) }
        let new = try await addKey(airline: old.airline, label: old.label, now: now)
        if revokingOld { try await revokeKey(id: id) }
        return new
    }
}

enum StorageSupport {
    /// A random public flight id: `f` and 16 hex digits (served instead of whatever id the uploader chose).
    static func publicFlightID() -> String { "f" + randomHex(bytes: 8) }

    /// Sessions that expired more than this long ago (seconds) are deleted whenever a session opens (housekeeping: an
    /// expired token and an unknown one both answer 401 `sessionExpired`).
    static let forgetSessionsExpiredSeconds = 86_400.0

    /// A new API key (`eddy_` and 48 hex digits).
    static func newAPIKey() -> String { "eddy_" + randomHex(bytes: 24) }

    /// What the storage keeps of an API key: `sha256:` and the hex SHA-256 of its UTF-8 bytes. A key is 192 random
    /// bits, so a plain (unsalted, fast) hash cannot be searched backwards, and the same key always finds its row.
    static func apiKeyHash(_ key: String) -> String {
        "sha256:" + SHA256.hash(data: Array(key.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }

    /// The part of a key that may be shown (`keys list`): `eddy_` and the first 5 hex digits.
    static func apiKeyPrefix(_ key: String) -> String { String(key.prefix(10)) }

    /// Random lower-case hex from the system CSPRNG.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
#endif
