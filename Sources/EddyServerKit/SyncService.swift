#if Tools
import EddyH3
package import EddyProtocol
package import EddySupport
import EddyVocabulary
import Foundation
package import Logging
import Synchronization

/// Server settings (command-line options).
package struct ServerOptions: Sendable {
    /// Defaults suited to production (one-minute ticks, an hour-long session, 600 requests a minute).
    package init() {}

    /// Tick length, seconds.
    package var tickSeconds: Double = 60
    /// Session lifetime, seconds.
    package var sessionTTLSeconds: Double = 3600
    /// Requests allowed per session per minute (sustained); ≤ 0 disables the limit.
    package var rateLimitPerMinute: Double = 600
    /// Requests a session may burst.
    package var rateLimitBurst: Int = 60
    /// Oldest client version accepted.
    package var minimumClientVersion = WireVersion("1.0.0")!
    /// Nowcast issue interval, seconds (an hour in production).
    package var nowcastIntervalSeconds: Double = 3600
    /// Layers per polygon band.
    package var polygonLayersPerBand = 5
    /// Enables `/v1/_test/*` fault-injection endpoints (tests only; never in production).
    package var testHooks = false
    /// Settings sent to clients (with the client thresholds `eddy-server serve` is configured with; the engine's own
    /// defaults unless told otherwise).
    package var settings: ServerSettings = {
        var settings = ServerSettings.defaults
        settings.thresholds = .serverDefaults
        return settings
    }()
    /// Retention: reports whose exit time is older than this are deleted (hourly, by the upkeep service), seconds;
    /// nil keeps every report. `eddy-server serve --retention-days` (default 30; docs/fleet-server.md "Retention").
    package var retentionSeconds: Double? = nil
    /// Fleet altitude offsets are aggregated over the observations of the last this many seconds (60 min: the offset
    /// follows the weather, which moves little in an hour; docs/protocol.md "Fleet altitude assistance").
    package var altitudeOffsetWindowSeconds: Double = 3600
    /// How far in the future a client's time may be (clock skew), seconds: reports and altitude offsets beyond it are
    /// refused.
    package var clockSkewSeconds: Double = 600
    /// Serves `GET /metrics` (Prometheus text, unauthenticated; `eddy-server serve --no-metrics` turns it off).
    package var metricsEnabled = true
    /// Most items (observations, nowcast cells, live flights) in one fetch answer (`eddy-server serve --max-answer-items`;
    /// docs/protocol.md "Pages"): a page of 10,000 observations is about 2.6 MB of JSON (0.5 MB gzipped), and a route
    /// corridor's full fetch of 10,000 tiles (`eddy-bench sync`) still fits one page.
    package var maxItemsPerAnswer = 10_000
    /// Requests per API key per minute, over all its sessions and session starts (sustained); ≤ 0 disables the quota
    /// (`eddy-server serve --key-rate-limit`; docs/fleet-server.md "Limits"). 6,000 a minute is twice what 1,000
    /// aircraft at the fast interval send (3 requests a minute each).
    package var keyRateLimitPerMinute: Double = 6_000
    /// Requests an API key may burst (`--key-rate-burst`): every device of a 1,000-aircraft fleet coming back at once.
    package var keyRateLimitBurst: Int = 1_000
    /// Header, body and idle limits of each connection (`ConnectionLimitsHandler`).
    package var connectionTimeouts = ConnectionTimeouts()
    /// Logs every request at info (the access log, `eddy-server serve --access-log`); otherwise at debug.
    package var accessLog = false
}

/// The server's behaviour, independent of HTTP framing (the Hummingbird router calls these): it checks requests, asks
/// the domain (`ServerDomain`: areas, visibility, expiry) for what to store and serve, and answers with `APIError`s only.
package final class SyncService: Sendable {
    /// The server's storage (SQLite, PostgreSQL or in memory).
    package let database: any ServerStorage
    /// The domain rules over `database`.
    package let domain: ServerDomain
    let geometry: any CellGeometry
    let clock: any EpochClock
    /// The settings the server runs with.
    package let options: ServerOptions
    /// Where the server logs (sessions, nowcast issues, request lines, failures).
    package let logger: Logger
    let tickEpoch: Double
    /// The highest tick answered so far: ticks never step backwards, even when the database clock's measured lead
    /// shrinks (a delta fetch asking from a tick the server later goes back before could miss reports).
    private let highestTick = Atomic<Int>(0)
    let limiter: RateLimiter
    /// The per-key quota: one bucket per API key id, over all of its sessions.
    let keyLimiter: RateLimiter
    /// Faults queued through `POST /v1/_test/faults` (only consulted when `options.testHooks` is on).
    package let faults = FaultQueue()
    /// This server's metrics (its own registry: several servers in one process count apart; `ServerMetrics`).
    package let metrics = ServerMetrics()
    private let nowcastLock = Mutex<Bool>(false)
    /// The resolution-3 cells of recently fetched areas (clients fetch the same route or viewport every minute).
    private let offsetAreaCells = Mutex<[[GeoPoint]: [UInt64]]>([:])
    /// Most areas whose cells are remembered; the memory is cleared when it is full.
    static let offsetAreaCacheSize = 256

    init(
        database: any ServerStorage, geometry: any CellGeometry, clock: any EpochClock, options: ServerOptions, logger: Logger
    ) throws(ServerDatabaseError) {
        self.database = database
        self.domain = ServerDomain(storage: database)
        self.geometry = geometry
        self.clock = clock
        self.options = options
        self.logger = RequestID.attach(to: logger)
        self.tickEpoch = try database.tickEpoch(now: clock.now())
        self.limiter = RateLimiter(perMinute: options.rateLimitPerMinute, burst: options.rateLimitBurst)
        self.keyLimiter = RateLimiter(perMinute: options.keyRateLimitPerMinute, burst: options.keyRateLimitBurst)
        metrics.databasePoolSampler = { [database] in database.poolLoad }
    }

    /// A service on H3 cells and `clock` (the system clock for `eddy-server serve`; tests freeze time with a manual one).
    package convenience init(database: any ServerStorage, clock: any EpochClock = SystemEpochClock(), options: ServerOptions,
                             logger: Logger) throws(ServerDatabaseError) {
        try self.init(database: database, geometry: H3CellGeometry(), clock: clock, options: options, logger: logger)
    }

    /// The current tick: whole `tickSeconds` since the database's epoch, on the database's clock (the storage's
    /// `clockOffsetSeconds`: several PostgreSQL instances agree even when a host's clock drifts), and never less than a
    /// tick answered before.
    package func currentTick() -> Int {
        let counted = max(0, Int(saturating: (clock.now() + database.clockOffsetSeconds - tickEpoch) / options.tickSeconds, rounding: .down))
        return highestTick.max(counted, ordering: .relaxed).newValue
    }

    /// Runs the storage call `body`. A database failure (`ServerDatabaseError.failed`: a query, the connection or the
    /// commit) is logged at error level with its cause and answered 503 `storageFailed`, so nothing that is not
    /// committed is ever acknowledged and the client retries.
    func stored<T>(_ body: @autoclosure () async throws(ServerDatabaseError) -> T) async throws(APIError) -> T {
        do {
            return try await body()
        } catch {
            switch error {
            case .failed(let operation, let cause):
                logger.error("storage failed: nothing of this request is acknowledged",
                             metadata: ["operation": "\(operation)", "cause": "\(cause)"])
            case .unknownKey:
                // Only key management (`eddy-server keys`) throws it; no request reaches it.
                logger.error("storage failed: \(error)")
            }
            throw .storageFailed
        }
    }

    // MARK: sessions

    /// Starts a session; `notes` learns the key once the storage has named it (the per-key request counter).
    func startSession(_ request: SessionStartRequest, notes: RequestNotes? = nil) async throws(APIError) -> SessionStartResponse {
        guard let version = WireVersion(request.clientVersion) else {
            throw APIError.badRequest("clientVersion must look like 1.2.3")
        }
        let airline = request.airline
        guard airline.unicodeScalars.count == 3, airline.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw APIError.badRequest("airline must be a 3-character ICAO code in upper case")
        }
        guard (1...128).contains(request.userId.unicodeScalars.count) else { throw APIError.badRequest("userId must have 1 to 128 characters") }
        guard !request.apiKey.isEmpty, request.apiKey.unicodeScalars.count <= 200 else { throw APIError.badRequest("apiKey must have 1 to 200 characters") }
        guard version >= options.minimumClientVersion else { throw APIError.clientTooOld(options.minimumClientVersion) }
        guard let key = try await stored(await database.lookupKey(request.apiKey)) else {
            throw APIError.apiKeyInvalid
        }
        notes?.apiKey = APIKeyNote(id: key.id, airline: key.airline)
        guard key.active else { throw APIError.keyRevoked }
        guard key.isUsable(at: clock.now()) else { throw APIError.keyExpired }
        guard key.airline == airline else { throw APIError.airlineMismatch }
        try takeKeyQuota(keyId: key.id)
        let now = clock.now()
        let session = try await stored(
            await database.openSession(keyId: key.id, airline: airline, userId: request.userId, now: now, ttl: options.sessionTTLSeconds))
        metrics.recordSessionOpened()
        logger.info("session started", metadata: ["airline": "\(airline)", "reporter": "\(session.reporterId)", "key": "\(key.id)"])
        return SessionStartResponse(token: session.token, expiresAt: session.expiresAt, serverTick: currentTick(), settings: options.settings)
    }

    /// Resolves a bearer token to a session, or throws 401 / 403 / 429; `notes` learns the session's key as soon as it
    /// is known (so a refusal of a known key is counted against it too).
    func authenticate(authorization: String?, notes: RequestNotes? = nil) async throws(APIError) -> SessionRecord {
        guard let authorization, authorization.hasPrefix("Bearer ") else { throw APIError.missingToken }
        let token = String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 200, let session = try await stored(await database.session(token: token)) else {
            throw APIError.sessionExpired
        }
        notes?.apiKey = APIKeyNote(id: session.keyId, airline: session.airline)
        guard session.keyActive else { throw APIError.keyRevoked }
        if let keyExpiry = session.keyExpiresAt, keyExpiry <= clock.now() { throw APIError.keyExpired }
        guard session.expiresAt > clock.now() else { throw APIError.sessionExpired }
        if let wait = limiter.take(session.token, now: clock.now()) { throw APIError.rateLimited(wait) }
        try takeKeyQuota(keyId: session.keyId)
        return session
    }

    /// Counts a request against its API key's quota (every session of the key and its session starts share it), or
    /// throws 429: a key cannot escape its limit by opening more sessions.
    func takeKeyQuota(keyId: Int64) throws(APIError) {
        if let wait = keyLimiter.take("k\(keyId)", now: clock.now()) { throw APIError.rateLimited(wait, scope: "this API key") }
    }

    // MARK: uploads

    /// Ingests a batch (idempotent by report id).
    func ingest(_ batch: ReportBatch, session: SessionRecord) async throws(APIError) -> ReportBatchAck {
        guard batch.reports.count <= options.settings.maxReportsPerBatch else {
            throw APIError.badRequest("at most \(options.settings.maxReportsPerBatch) reports per batch")
        }
        // What the schema forbids is a bad request (400), like an undecodable body; content the schema allows but the
        // server cannot use is a per-report rejection below.
        for (index, report) in batch.reports.enumerated() {
            if let u90 = report.altitudeU90Feet, !(u90.isFinite && u90 >= 0) {
                throw APIError.badRequest("reports[\(index)].altitudeU90Feet must be a finite number of feet ≥ 0, got \(u90)")
            }
        }
        var rows: [IngestRow] = []
        rows.reserveCapacity(batch.reports.count)
        var rejected: [RejectedReport] = []
        var seen = Set<UUID>()
        for report in batch.reports {
            if let reason = validate(report) {
                rejected.append(RejectedReport(id: report.id, reason: reason))
                metrics.recordRejection(reason: ServerMetrics.reportRejectionReason(reason))
                continue
            }
            guard seen.insert(report.id).inserted else { continue }
            rows.append(.init(report: report, center: geometry.center(of: report.tile.h3)))
        }
        let tick = currentTick()
        // Acknowledged only after the commit: `ingest` returns once the database has committed the batch, and a failed
        // commit is a 503 the client retries (issue 30).
        let fresh = try await stored(await domain.ingest(
            rows, reporterId: session.reporterId, flightExpiry: options.settings.liveFlightExpirySeconds, tick: tick, now: clock.now()))
        let accepted = rows.map(\.report.id)
        metrics.recordIngest(new: fresh.count, duplicate: accepted.count - fresh.count)
        return ReportBatchAck(
            acceptedIds: accepted, newCount: fresh.count, duplicateCount: accepted.count - fresh.count,
            rejected: rejected, serverTick: tick)
    }

    /// Why a report is refused, nil when it is fine.
    func validate(_ report: TileReport) -> String? {
        guard geometry.isValidCell(report.tile.h3) else { return "tile.h3 is not a valid H3 resolution-5 cell" }
        guard (-2...99).contains(report.tile.layer) else { return "tile.layer must be in -2...99" }
        guard report.enterTime.isFinite, report.exitTime.isFinite, report.exitTime >= report.enterTime else {
            return "exitTime must be finite and not before enterTime"
        }
        guard report.exitTime <= clock.now() + options.clockSkewSeconds else { return "exitTime is in the future" }
        guard report.edrPeak.isFinite, report.edrMedian.isFinite, (0...2).contains(report.edrPeak), (0...2).contains(report.edrMedian),
              report.edrMedian <= report.edrPeak
        else { return "EDR values must be in 0...2 with median ≤ peak" }
        return nil
    }

    /// Stores an own position for the live-flights layer and, when the upload carries one, the aircraft's fleet
    /// altitude offset (validated first: a bad offset refuses the whole upload with 400, nothing stored).
    func uploadPosition(_ flight: LiveFlight, altitudeOffset: AltitudeOffsetObservation? = nil, session: SessionRecord) async throws(APIError) {
        // A decoded upload always has aircraftType, headingDegrees and speedKnots (the wire requires them).
        guard (1...32).contains(flight.flightID.unicodeScalars.count), (1...8).contains((flight.aircraftType ?? "").unicodeScalars.count) else {
            throw APIError.badRequest("flightId must have 1–32 characters and aircraftType 1–8")
        }
        if let number = flight.flightNumber, !(1...LiveFlight.maximumFlightNumberLength).contains(number.unicodeScalars.count) {
            throw APIError.badRequest("flightNumber must have 1–\(LiveFlight.maximumFlightNumberLength) characters when present")
        }
        guard (-90...90).contains(flight.latitude), (-180...180).contains(flight.longitude), (-2000...70000).contains(flight.altitudeFeet),
              (0...360).contains(flight.headingDegrees ?? .nan), (0...2000).contains(flight.groundSpeedKnots ?? .nan), flight.time.isFinite
        else { throw APIError.badRequest("position out of range (lat, lng, altitudeFeet, headingDegrees, speedKnots)") }
        let now = clock.now()
        // A fix from the future would stay "live" until then (issue 30 stored one at time 1e12, year 33658).
        guard flight.time <= now + options.clockSkewSeconds else {
            throw APIError.badRequest(
                "position time must be at most \(Int(options.clockSkewSeconds)) s after the server's clock (Unix seconds), got \(flight.time)")
        }
        let oldest = now - options.altitudeOffsetWindowSeconds
        var kept: (observation: AltitudeOffsetObservation, cell: UInt64, layer: Int)?
        if let altitudeOffset {
            let place = try validatedPlace(altitudeOffset, now: now)
            if altitudeOffset.time >= oldest { kept = (altitudeOffset, place.cell, place.layer) }
        }
        // Expired offsets go with the expired flights, on every position upload.
        try await stored(await domain.upsertFlight(
            flight, reporterId: session.reporterId, airline: session.airline, now: now, expiry: options.settings.liveFlightExpirySeconds,
            altitudeOffset: kept, altitudeOffsetsOlderThan: oldest))
    }

    /// Checks an uploaded altitude offset (400 with what is wrong) and returns its H3 resolution-3 cell and layer.
    /// An observation older than the aggregation window passes but is not stored (it could never be served).
    func validatedPlace(_ observation: AltitudeOffsetObservation, now: Double) throws(APIError) -> (cell: UInt64, layer: Int) {
        let o = observation
        guard o.latitudeDegrees.isFinite, o.longitudeDegrees.isFinite, (-90...90).contains(o.latitudeDegrees),
              (-180...180).contains(o.longitudeDegrees)
        else { throw APIError.badRequest("altitudeOffset.latitudeDegrees must be in -90...90 and longitudeDegrees in -180...180") }
        guard o.offsetFeet.isFinite, abs(o.offsetFeet) <= AltitudeOffsetCell.maximumOffsetFeet else {
            throw APIError.badRequest("altitudeOffset.offsetFeet must be finite and within ±5000 ft, got \(o.offsetFeet)")
        }
        guard o.pressureAltitudeFeet.isFinite, (-2000...60000).contains(o.pressureAltitudeFeet) else {
            throw APIError.badRequest("altitudeOffset.pressureAltitudeFeet must be in -2000...60000 ft, got \(o.pressureAltitudeFeet)")
        }
        guard o.uncertaintyFeet.isFinite, o.uncertaintyFeet > 0, o.uncertaintyFeet <= AltitudeOffsetCell.maximumUncertaintyFeet else {
            throw APIError.badRequest("altitudeOffset.uncertaintyFeet must be > 0 and ≤ 10000 ft, got \(o.uncertaintyFeet)")
        }
        guard o.time.isFinite, o.time <= now + options.clockSkewSeconds else {
            throw APIError.badRequest(
                "altitudeOffset.time must be finite and at most \(Int(options.clockSkewSeconds)) s after the server's clock, got \(o.time)")
        }
        guard let cell = try? H3.latLngToCell(
            latitude: o.latitudeDegrees, longitude: o.longitudeDegrees, resolution: AltitudeOffsetCell.h3Resolution)
        else { throw APIError.badRequest("altitudeOffset position has no H3 cell") }
        return (cell.rawValue, TileID.layer(altitudeFeet: o.pressureAltitudeFeet))
    }

    /// The current fleet altitude offsets of an area (nil polygon: everywhere) in a layer range.
    func altitudeOffsets(polygon: [GeoPoint]?, minLayer: Int, maxLayer: Int, now: Double) async throws(APIError) -> [AltitudeOffsetCell] {
        var cells: [UInt64]?
        if let polygon {
            if let known = offsetAreaCells.withLock(visibleToThreadSanitizerAs: self, { $0[polygon] }) {
                cells = known
            } else {
                let computed = AltitudeOffsetArea.cells(polygon: polygon)
                offsetAreaCells.withLock(visibleToThreadSanitizerAs: self) { cache in
                    if cache.count >= Self.offsetAreaCacheSize { cache.removeAll(keepingCapacity: true) }
                    cache[polygon] = computed
                }
                cells = computed
            }
        }
        let inputs = try await stored(await database.altitudeOffsetObservations(
            cells: cells, minLayer: minLayer, maxLayer: maxLayer, oldestTime: now - options.altitudeOffsetWindowSeconds))
        return AltitudeOffsetAggregation.aggregate(inputs)
    }

    // MARK: fetch

    /// Answers a delta fetch, one page of it (docs/protocol.md "Pages"): at most `pageSize` items (capped at
    /// `maxItemsPerAnswer`) and a `nextCursor` when more follow. A request without `pageSize` gets the whole answer, or
    /// 400 `answerTooLarge` when that would exceed `maxItemsPerAnswer`: the server never holds more than one page.
    func fetch(_ request: DeltaFetchRequest, session: SessionRecord) async throws(APIError) -> DeltaFetchResponse {
        let polygon = try validatedPolygon(request.area)
        guard EddyWire.historyWindowsHours.contains(request.historyHours) else {
            throw APIError.badRequest("historyHours must be one of 0.5, 1, 2, 4, 6")
        }
        guard request.minLayer <= request.maxLayer, (-2...99).contains(request.minLayer), (-2...99).contains(request.maxLayer) else {
            throw APIError.badRequest("minLayer ≤ maxLayer, both in -2...99 (thousands of feet)")
        }
        if let pageSize = request.pageSize, pageSize < 1 { throw APIError.badRequest("pageSize must be at least 1") }
        let limit = min(request.pageSize ?? options.maxItemsPerAnswer, options.maxItemsPerAnswer)
        var cursor: FetchCursor?
        if let text = request.cursor {
            guard request.pageSize != nil, let parsed = FetchCursor(text: text, dataType: request.dataType),
                  parsed.answerTick <= currentTick()
            else { throw APIError.badCursor }
            cursor = parsed
        }
        /// The page's cursor, or 400 `answerTooLarge` for a request that cannot follow one.
        func next(_ next: FetchCursor?) throws(APIError) -> String? {
            guard let next else { return nil }
            guard request.pageSize != nil else { throw APIError.answerTooLarge(limit) }
            return next.text
        }
        let tick = cursor?.answerTick ?? currentTick()
        let now = clock.now()
        var full = true
        if let since = request.sinceTick, since >= 0, since <= tick, tick - since <= options.settings.fullRefreshAfterTicks {
            full = false
        }
        var filter = ObservationFilter(
            polygon: polygon, minExitTime: now - request.historyHours * 3600, minLayer: request.minLayer,
            maxLayer: request.maxLayer, minTick: full ? nil : request.sinceTick)
        switch (request.dataType, cursor) {
        case (.turbulence, let cursor):
            var after: ObservationPosition?
            if case .observations(_, let minTick, let position) = cursor {
                (filter.minTick, full, after) = (minTick, minTick == nil, position)
            }
            let page = try await stored(await domain.observationPage(filter, after: after, limit: limit))
            // The fleet's altitude offsets (a small current aggregate) go with the first page only.
            let offsets = cursor == nil
                ? try await altitudeOffsets(polygon: polygon, minLayer: request.minLayer, maxLayer: request.maxLayer, now: now) : []
            return DeltaFetchResponse(
                dataType: .turbulence, serverTick: tick, full: full, observations: page.items,
                altitudeOffsets: offsets.isEmpty ? nil : offsets,
                nextCursor: try next(page.next.map { .observations(answerTick: tick, minTick: filter.minTick, after: $0) }))
        case (.turbulencePolygons, nil):
            if !full, try await !stored(await domain.hasObservations(filter)) {
                return DeltaFetchResponse(dataType: .turbulencePolygons, serverTick: tick, full: false, polygons: nil)
            }
            filter.minTick = nil
            // One answer (polygons are not paged): read a page at a time, keeping each tile's worst EDR.
            let worst = try await stored(await domain.worstEDRByTile(filter, pageSize: options.maxItemsPerAnswer))
            let tiles = worst.map { PolygonBuilder.TileEDR(cell: $0.key.h3, layer: $0.key.layer, edrPeak: $0.value) }
            let builder = PolygonBuilder(geometry: geometry, layersPerBand: options.polygonLayersPerBand)
            let features = builder.build(tiles: tiles, viewer: request.viewerClass, historyHours: request.historyHours)
            return DeltaFetchResponse(dataType: .turbulencePolygons, serverTick: tick, full: true, polygons: PolygonCollection(features: features))
        case (.nowcast, let cursor):
            var after: NowcastPosition?
            var issueTime: Double?
            if case .nowcast(_, let time, let position) = cursor {
                (issueTime, after) = (time, position)
                guard try await stored(await database.latestNowcastIssue())?.issueTime == time else { throw APIError.cursorExpired }
            } else {
                let issue = try await issueNowcastIfDue()
                if !full, let since = request.sinceTick, issue.tick < since {
                    return DeltaFetchResponse(dataType: .nowcast, serverTick: tick, full: false)
                }
            }
            let page = try await stored(await domain.nowcastPage(
                polygon: polygon, minLayer: request.minLayer, maxLayer: request.maxLayer, after: after, limit: limit))
            // Every page of a fetch serves one issue: a new issue between two pages ends the pages (the client starts again).
            let pageIssue = issueTime ?? page.items.first?.issueTime ?? 0
            guard page.items.allSatisfy({ $0.issueTime == pageIssue }) else { throw APIError.cursorExpired }
            return DeltaFetchResponse(
                dataType: .nowcast, serverTick: tick, full: true, nowcast: page.items,
                nextCursor: try next(page.next.map { .nowcast(answerTick: tick, issueTime: pageIssue, after: $0) }))
        case (.liveFlights, let cursor):
            var after: String?
            if case .liveFlights(_, let publicId) = cursor { after = publicId }
            let page = try await stored(await domain.flightPage(
                polygon: polygon, now: now, expiry: options.settings.liveFlightExpirySeconds, excludingReporter: session.reporterId,
                viewerAirline: session.airline, afterPublicId: after, limit: limit))
            return DeltaFetchResponse(
                dataType: .liveFlights, serverTick: tick, full: true, liveFlights: page.items,
                nextCursor: try next(page.next.map { .liveFlights(answerTick: tick, afterPublicId: $0) }))
        case (.turbulencePolygons, .some):
            throw APIError.badCursor
        }
    }

    /// Issues the nowcast for the current interval if not yet issued; returns the latest issue.
    func issueNowcastIfDue() async throws(APIError) -> (issueTime: Double, tick: Int) {
        let now = clock.now()
        let interval = options.nowcastIntervalSeconds
        let issueTime = (now / interval).rounded(.down) * interval
        if let latest = try await stored(await database.latestNowcastIssue()), latest.issueTime >= issueTime { return latest }
        let blend = NowcastBlend()
        let inputs = try await stored(await blend.inputs(from: database, issueTime: issueTime, through: issueTime + interval))
        let outputs = blend.issue(at: issueTime, inputs: inputs)
        let tick = currentTick()
        let cells = outputs.map {
            StoredNowcastCell(cell: $0.cell, layer: $0.layer, forecastHour: $0.forecastHour, edr: $0.edr, center: geometry.center(of: $0.cell),
                              provenance: $0.provenance)
        }
        try await stored(await database.storeNowcast(issueTime: issueTime, tick: tick, cells: cells))
        logger.info("nowcast issued", metadata: ["issueTime": "\(issueTime)", "cells": "\(cells.count)"])
        await verifyPastIssue(before: issueTime)
        return try await stored(await database.latestNowcastIssue()) ?? (issueTime, tick)
    }

    /// The area's polygon (nil for global), validated.
    func validatedPolygon(_ area: SyncArea) throws(APIError) -> [GeoPoint]? {
        if area.type == .global {
            guard area.polygon.isEmpty else { throw APIError.badRequest("a global area takes no polygon") }
            return nil
        }
        guard (3...EddyWire.maxPolygonVertices + 1).contains(area.polygon.count) else {
            throw APIError.badRequest("polygon needs 3 to \(EddyWire.maxPolygonVertices) vertices (polygonTooManyCoordinates)")
        }
        guard area.polygon.allSatisfy({ (-90...90).contains($0.lat) && (-180...180).contains($0.lng) }) else {
            throw APIError.badRequest("polygon vertices need lat in -90...90 and lng in -180...180")
        }
        return area.polygon
    }
}
#endif
