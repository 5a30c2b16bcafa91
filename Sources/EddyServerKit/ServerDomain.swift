#if Tools
package import EddyProtocol
package import EddyVocabulary
package import Foundation

/// The server's domain rules, decided once, over any storage backend (SQLite, PostgreSQL, in memory), which only
/// stores and fetches.
///
/// Here, and nowhere in a backend:
/// - **areas**: a fetch's polygon is tested exactly here (`AreaGeometry.contains` on each tile centre or position); the
///   storage is asked only for the polygon's bounding box, which SQL answers from an index;
/// - **visibility** of live flights: the asking reporter never sees its own flights, every flight is served under its
///   random public id, and its flight number only to viewers of the uploader's airline;
/// - **expiry**: live flights count for `expiry` seconds after their last position and are then dropped; fleet altitude
///   offsets older than their window are dropped with each position upload;
/// - **who a report is served as**: the public id of the uploader's live flight, else a random id per upload, never the
///   reporter id (docs/protocol.md "Live flights");
/// - **nowcast cells**: the valid time of a stored cell is its issue time plus its forecast hour.
package struct ServerDomain: Sendable {
    /// Where the data is kept.
    package let storage: any ServerStorage

    /// The rules over `storage`.
    package init(storage: any ServerStorage) { self.storage = storage }

    // MARK: reports

    /// Stores validated reports of `reporterId` (ids already held are left alone) and returns the ids that were new,
    /// once committed. They are served under the public id of the uploader's live flight updated in the last
    /// `flightExpiry` seconds, else under a random id drawn for this batch, so reports of different flights cannot be
    /// linked.
    package func ingest(
        _ rows: [IngestRow], reporterId: String, flightExpiry: Double, tick: Int, now: Double
    ) async throws(ServerDatabaseError) -> Set<UUID> {
        try await storage.insertReports(ReportUpload(
            rows: rows, reporterId: reporterId, liveFlightUpdatedSince: now - flightExpiry,
            fallbackPublicId: StorageSupport.publicFlightID(), tick: tick, receivedAt: now))
    }

    /// Every observation matching `filter`, in the fetch order (exit time, then insertion), in one read: the storage's
    /// candidates in the polygon's bounding box, those whose tile centre is inside the polygon.
    package func observations(_ filter: ObservationFilter) async throws(ServerDatabaseError) -> [Observation] {
        try await observationPage(filter, after: nil, limit: nil).items
    }

    /// At most `limit` observations matching `filter` after `after` in the fetch order, and where the next page starts
    /// (nil when none follows). The storage is read `limit` candidates at a time, so memory is bounded by the page.
    package func observationPage(
        _ filter: ObservationFilter, after: ObservationPosition?, limit: Int?
    ) async throws(ServerDatabaseError) -> (items: [Observation], next: ObservationPosition?) {
        let polygon = filter.polygon
        return try await Self.page(after: after, limit: limit, read: { (position, count) throws(ServerDatabaseError) in
            var query = filter.storageQuery
            (query.after, query.limit) = (position, count)
            return try await storage.observations(query)
        }, position: \.position, keep: { candidate in
            if let polygon, !AreaGeometry.contains(polygon, candidate.center) { return nil }
            return candidate.observation
        })
    }

    /// Whether any observation matches `filter` (a delta fetch of polygons asks before building them).
    package func hasObservations(_ filter: ObservationFilter) async throws(ServerDatabaseError) -> Bool {
        guard filter.polygon != nil else { return try await storage.hasObservations(filter.storageQuery) }
        return try await !observationPage(filter, after: nil, limit: 1).items.isEmpty
    }

    /// The worst peak EDR of every tile (cell × layer) with an observation matching `filter`, read page by page:
    /// memory grows with the tiles, not with the reports (what the turbulence polygons are drawn from).
    package func worstEDRByTile(_ filter: ObservationFilter, pageSize: Int) async throws(ServerDatabaseError) -> [TileID: Double] {
        var worst: [TileID: Double] = [:]
        var after: ObservationPosition?
        repeat {
            let page = try await observationPage(filter, after: after, limit: pageSize)
            for observation in page.items {
                let tile = observation.report.tile
                worst[tile] = max(worst[tile] ?? 0, observation.report.edrPeak)
            }
            after = page.next
        } while after != nil
        return worst
    }

    /// Fewest candidates read from the storage at a time for a page (a page of one item, as `hasObservations` asks,
    /// still reads the storage in batches).
    static let minimumReadBatch = 1_000

    /// One page of items: reads the storage `max(limit, minimumReadBatch)` candidates at a time from `after`
    /// (`read(position, count)`), keeps those `keep` turns into items, and stops once `limit` items are kept and one more
    /// candidate would be kept (the page then ends at the last candidate looked at) or the storage has no more (no next
    /// page). Without a limit, everything in one read.
    static func page<Candidate, Item, Position>(
        after: Position?, limit: Int?,
        read: (Position?, Int?) async throws(ServerDatabaseError) -> [Candidate],
        position: (Candidate) -> Position, keep: (Candidate) -> Item?
    ) async throws(ServerDatabaseError) -> (items: [Item], next: Position?) {
        guard let limit else { return (try await read(after, nil).compactMap(keep), nil) }
        var items: [Item] = []
        var last = after
        let batch = max(limit, minimumReadBatch)
        while true {
            let candidates = try await read(last, batch)
            for candidate in candidates {
                if let item = keep(candidate) {
                    if items.count == limit { return (items, last) }
                    items.append(item)
                }
                last = position(candidate)
            }
            if candidates.count < batch { return (items, nil) }
        }
    }

    // MARK: nowcast

    /// The latest issue's cells in the layer range whose centre is inside `polygon` (everywhere when nil), ordered by
    /// cell, layer and forecast hour.
    package func nowcast(polygon: [GeoPoint]?, minLayer: Int, maxLayer: Int) async throws(ServerDatabaseError) -> [NowcastCell] {
        try await nowcastPage(polygon: polygon, minLayer: minLayer, maxLayer: maxLayer, after: nil, limit: nil).items
    }

    /// At most `limit` of the latest issue's cells in the layer range inside `polygon` after `after`, and where the next
    /// page starts (nil when none follows). The storage selects the polygon's bounding box.
    package func nowcastPage(
        polygon: [GeoPoint]?, minLayer: Int, maxLayer: Int, after: NowcastPosition?, limit: Int?
    ) async throws(ServerDatabaseError) -> (items: [NowcastCell], next: NowcastPosition?) {
        let box = polygon.map(GeoBoundingBox.init(around:))
        return try await Self.page(after: after, limit: limit, read: { (position, count) throws(ServerDatabaseError) in
            try await storage.nowcastCells(minLayer: minLayer, maxLayer: maxLayer, boundingBox: box, after: position, limit: count)
        }, position: \.position, keep: { stored in
            if let polygon, !AreaGeometry.contains(polygon, stored.cell.center) { return nil }
            let cell = stored.cell
            return NowcastCell(
                tile: TileID(h3: cell.cell, layer: cell.layer), validTime: stored.issueTime + Double(cell.forecastHour) * 3600,
                forecastHour: cell.forecastHour, edr: cell.edr, issueTime: stored.issueTime, provenance: cell.provenance)
        })
    }

    // MARK: live flights

    /// Stores `reporterId`'s position of `flight` (one row per uploader × flight id; a random public id is drawn the
    /// first time) and drops the flights not updated in the last `expiry` seconds; in the same transaction keeps
    /// `altitudeOffset` as the reporter's newest in its cell × layer and drops offsets measured before
    /// `altitudeOffsetsOlderThan`.
    package func upsertFlight(
        _ flight: LiveFlight, reporterId: String, airline: String, now: Double, expiry: Double,
        altitudeOffset: (observation: AltitudeOffsetObservation, cell: UInt64, layer: Int)?, altitudeOffsetsOlderThan: Double?
    ) async throws(ServerDatabaseError) {
        // A decoded upload always has aircraftType, headingDegrees and speedKnots (the wire requires them).
        let stored = StoredFlight(
            reporterId: reporterId, clientFlightId: flight.flightID, publicId: StorageSupport.publicFlightID(), airline: airline,
            flightNumber: flight.flightNumber, aircraftType: flight.aircraftType ?? "", latitude: flight.latitude,
            longitude: flight.longitude, altitudeFeet: flight.altitudeFeet, headingDegrees: flight.headingDegrees ?? 0,
            speedKnots: flight.groundSpeedKnots ?? 0, time: flight.time, updatedAt: now)
        try await storage.storePosition(PositionWrite(
            flight: stored, dropFlightsUpdatedBefore: now - expiry,
            altitudeOffset: altitudeOffset.map {
                StoredAltitudeOffset(reporterId: reporterId, cell: $0.cell, layer: $0.layer, observation: $0.observation, receivedAt: now)
            },
            dropAltitudeOffsetsMeasuredBefore: altitudeOffsetsOlderThan))
    }

    /// The live flights a viewer may see: updated in the last `expiry` seconds, inside `polygon` (everywhere when nil),
    /// not the viewer's own (`excludingReporter`), under their public ids, with the flight number only when the viewer's
    /// airline is the uploader's; ordered by public id.
    package func flights(
        polygon: [GeoPoint]?, now: Double, expiry: Double, excludingReporter: String, viewerAirline: String
    ) async throws(ServerDatabaseError) -> [LiveFlight] {
        try await flightPage(polygon: polygon, now: now, expiry: expiry, excludingReporter: excludingReporter, viewerAirline: viewerAirline,
                             afterPublicId: nil, limit: nil).items
    }

    /// `flights(…)` a page at a time: at most `limit` after the public id `afterPublicId`, and the public id the next
    /// page starts after (nil when none follows).
    package func flightPage(
        polygon: [GeoPoint]?, now: Double, expiry: Double, excludingReporter: String, viewerAirline: String,
        afterPublicId: String?, limit: Int?
    ) async throws(ServerDatabaseError) -> (items: [LiveFlight], next: String?) {
        try await Self.page(after: afterPublicId, limit: limit, read: { (position, count) throws(ServerDatabaseError) in
            try await storage.liveFlights(updatedSince: now - expiry, afterPublicId: position, limit: count)
        }, position: \.publicId, keep: { stored in
            guard stored.reporterId != excludingReporter else { return nil }
            if let polygon, !AreaGeometry.contains(polygon, GeoPoint(lat: stored.latitude, lng: stored.longitude)) { return nil }
            return LiveFlight(
                flightID: stored.publicId, latitude: stored.latitude, longitude: stored.longitude, altitudeFeet: stored.altitudeFeet,
                headingDegrees: stored.headingDegrees, groundSpeedKnots: stored.speedKnots, aircraftType: stored.aircraftType,
                flightNumber: stored.airline == viewerAirline ? stored.flightNumber : nil, time: stored.time)
        })
    }
}
#endif
