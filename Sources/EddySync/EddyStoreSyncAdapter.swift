import EddyH3
package import EddyProtocol
package import EddyStore
package import EddyVocabulary
package import Foundation

/// `EddyStore` is the engine's `SyncStore`: the outbox is its own-report table, fetched data goes into its
/// server tables, and the tick of each area × data type is its sync state.
///
/// Each call is its own transaction; `apply` writes the data before the tick, so a crash in between only
/// makes the next fetch ask again for what it already has (every write is an idempotent upsert).
extension EddyStore: SyncStore {
    /// Oldest pending own reports.
    package func pendingReports(limit: Int) throws(StoreError) -> [TileReport] { try pendingOwnReports(limit: limit) }

    /// Acknowledged reports leave the outbox.
    package func markReportsSent(_ ids: [UUID]) throws(StoreError) { _ = try markOwnReportsSent(ids: ids) }

    /// Refused reports leave the outbox too (the store has no "rejected" state; they stay in the own-report
    /// history, and retrying them could never succeed).
    package func markReportsRejected(_ rejected: [RejectedReport]) throws(StoreError) { _ = try markOwnReportsSent(ids: rejected.map(\.id)) }

    /// Stores a page of a fetch answer (with the fleet altitude offsets it carries; a cell the store cannot hold is
    /// skipped), then, with the last page, its tick (every write is an upsert, so pages simply add up).
    package func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) throws(StoreError) {
        if let offsets = response.altitudeOffsets {
            try upsertAltitudeOffsets(offsets.filter { $0.storeProblem == nil })
        }
        switch response.dataType {
        case .turbulence:
            try upsertObservations(response.observations.map {
                ServerObservation(report: $0.report, reporterID: $0.reporterId, source: "eddy-server")
            })
        case .nowcast:
            try upsertNowcast(response.nowcast)
        case .turbulencePolygons:
            if let collection = response.polygons {
                try upsertTurbulencePolygons(Self.polygonSets(collection, historyHours: request.historyHours, now: now))
            }
        case .liveFlights:
            try upsertLiveFlights(response.liveFlights.compactMap(Self.placed))
        }
        guard response.nextCursor == nil else { return }
        let area = request.area.type
        let type = response.dataType
        let previous = try syncState(area: area, data: type)
        try setSyncState(SyncState(
            areaType: area, dataType: type, tick: String(response.serverTick),
            lastFullFetchTime: response.full ? now : previous?.lastFullFetchTime))
    }

    /// The tick of the last answer stored for an area type × data type.
    package func lastTick(area: DataAreaType, dataType: DataType) throws(StoreError) -> Int? {
        try syncState(area: area, data: dataType)?.tick.flatMap { Int($0) }
    }

    /// Forgets the ticks of one area type (its polygon changed).
    package func resetTicks(area: DataAreaType) throws(StoreError) {
        for type in DataType.allCases {
            let previous = try syncState(area: area, data: type)
            try setSyncState(SyncState(areaType: area, dataType: type, tick: nil, lastFullFetchTime: previous?.lastFullFetchTime))
        }
    }

    /// One GeoJSON FeatureCollection per severity (light … severe), as the store keeps polygons; a severity
    /// without features gets an empty collection, so polygons that vanished on the server vanish here.
    static func polygonSets(_ collection: PolygonCollection, historyHours: Double, now: Double) throws(StoreError) -> [TurbulencePolygonSet] {
        guard let window = HistoryWindow.allCases.first(where: { Double($0.rawValue) / 60 == historyHours }) else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var sets: [TurbulencePolygonSet] = []
        for severity in Severity.allCases where severity > .none {
            let features = collection.features.filter { $0.properties.severity == severity.name }
            let data: Data
            do { data = try encoder.encode(PolygonCollection(features: features)) } catch {
                throw .invalidArgument("turbulence polygons (\(severity.name)) cannot be encoded as GeoJSON: \(error)")
            }
            sets.append(TurbulencePolygonSet(historyWindow: window, severity: severity, geoJSON: String(decoding: data, as: UTF8.self), updatedTime: now))
        }
        return sets
    }

    /// A fetched live flight placed in its tile, as the store keeps it; nil when the position has no H3 cell.
    static func placed(_ flight: LiveFlight) -> LiveFlight? {
        guard let tile = flight.positionTile else { return nil }
        var flight = flight
        flight.tile = tile
        return flight
    }
}
