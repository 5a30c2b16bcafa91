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

    /// Observations matching `filter`, in arrival order (tick, then insertion): the storage's candidates in the
    /// polygon's bounding box, those whose tile centre is inside the polygon.
    package func observations(_ filter: ObservationFilter) async throws(ServerDatabaseError) -> [Observation] {
        let candidates = try await storage.observations(filter.storageQuery)
        guard let polygon = filter.polygon else { return candidates.map(\.observation) }
        return candidates.compactMap { AreaGeometry.contains(polygon, $0.center) ? $0.observation : nil }
    }

    /// Whether any observation matches `filter` (a delta fetch of polygons asks before building them).
    package func hasObservations(_ filter: ObservationFilter) async throws(ServerDatabaseError) -> Bool {
        guard let polygon = filter.polygon else { return try await storage.hasObservations(filter.storageQuery) }
        return try await storage.observations(filter.storageQuery).contains { AreaGeometry.contains(polygon, $0.center) }
    }

    // MARK: nowcast

    /// The latest issue's cells in the layer range whose centre is inside `polygon` (everywhere when nil), ordered by
    /// cell, layer and forecast hour.
    package func nowcast(polygon: [GeoPoint]?, minLayer: Int, maxLayer: Int) async throws(ServerDatabaseError) -> [NowcastCell] {
        try await storage.nowcastCells(minLayer: minLayer, maxLayer: maxLayer).compactMap { stored in
            if let polygon, !AreaGeometry.contains(polygon, stored.cell.center) { return nil }
            let cell = stored.cell
            return NowcastCell(
                tile: TileID(h3: cell.cell, layer: cell.layer), validTime: stored.issueTime + Double(cell.forecastHour) * 3600,
                forecastHour: cell.forecastHour, edr: cell.edr, issueTime: stored.issueTime)
        }
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
        try await storage.liveFlights(updatedSince: now - expiry).compactMap { stored in
            guard stored.reporterId != excludingReporter else { return nil }
            if let polygon, !AreaGeometry.contains(polygon, GeoPoint(lat: stored.latitude, lng: stored.longitude)) { return nil }
            return LiveFlight(
                flightID: stored.publicId, latitude: stored.latitude, longitude: stored.longitude, altitudeFeet: stored.altitudeFeet,
                headingDegrees: stored.headingDegrees, groundSpeedKnots: stored.speedKnots, aircraftType: stored.aircraftType,
                flightNumber: stored.airline == viewerAirline ? stored.flightNumber : nil, time: stored.time)
        }
    }
}
