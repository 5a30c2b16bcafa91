import EddyCore
import EddyH3
import EddyProtocol
import EddyStore
import Foundation

/// `EddyStore` is the engine's `SyncStore`: the outbox is its own-report table, fetched data goes into its
/// server tables, and the tick of each area × data type is its sync state.
///
/// Each call is its own transaction; `apply` writes the data before the tick, so a crash in between only
/// makes the next fetch ask again for what it already has (every write is an idempotent upsert).
extension EddyStore: SyncStore {
    /// Oldest pending own reports.
    public func pendingReports(limit: Int) throws -> [TileReport] { try pendingOwnReports(limit: limit) }

    /// Acknowledged reports leave the outbox.
    public func markReportsSent(_ ids: [UUID]) throws { _ = try markOwnReportsSent(ids: ids) }

    /// Refused reports leave the outbox too (the store has no "rejected" state; they stay in the own-report
    /// history, and retrying them could never succeed).
    public func markReportsRejected(_ rejected: [RejectedReport]) throws { _ = try markOwnReportsSent(ids: rejected.map(\.id)) }

    /// Stores a fetch answer, then its tick.
    public func apply(_ response: DeltaFetchResponse, request: DeltaFetchRequest, now: Double) throws {
        switch response.dataType {
        case .turbulence:
            try upsertObservations(response.observations.map {
                ServerObservation(report: $0.report, reporterID: $0.reporterId, source: "eddy-server")
            })
        case .nowcast:
            try upsertNowcast(response.nowcast.map {
                StoreNowcastCell(tile: $0.tile, validTime: $0.validTime, forecastHour: $0.forecastHour, edr: $0.edr, issueTime: $0.issueTime)
            })
        case .polygons:
            if let collection = response.polygons {
                try upsertTurbulencePolygons(Self.polygonSets(collection, historyHours: request.historyHours, now: now))
            }
        case .liveFlights:
            try upsertLiveFlights(response.liveFlights.compactMap(Self.storeFlight))
        }
        let area = DataAreaType(request.area.type)
        let type = DataType(response.dataType)
        let previous = try syncState(area: area, data: type)
        try setSyncState(SyncState(
            areaType: area, dataType: type, tick: String(response.serverTick),
            lastFullFetchTime: response.full ? now : previous?.lastFullFetchTime))
    }

    /// The tick of the last answer stored for an area type × data type.
    public func lastTick(area: SyncAreaType, dataType: SyncDataType) throws -> Int? {
        try syncState(area: DataAreaType(area), data: DataType(dataType))?.tick.flatMap { Int($0) }
    }

    /// Forgets the ticks of one area type (its polygon changed).
    public func resetTicks(area: SyncAreaType) throws {
        let areaType = DataAreaType(area)
        for type in DataType.allCases {
            let previous = try syncState(area: areaType, data: type)
            try setSyncState(SyncState(areaType: areaType, dataType: type, tick: nil, lastFullFetchTime: previous?.lastFullFetchTime))
        }
    }

    /// One GeoJSON FeatureCollection per severity (light … severe), as the store keeps polygons; a severity
    /// without features gets an empty collection, so polygons that vanished on the server vanish here.
    static func polygonSets(_ collection: PolygonCollection, historyHours: Double, now: Double) throws -> [TurbulencePolygonSet] {
        guard let window = HistoryWindow.allCases.first(where: { Double($0.rawValue) / 60 == historyHours }) else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try Severity.allCases.filter { $0 > .none }.map { severity in
            let features = collection.features.filter { $0.properties.severity == severity.name }
            let json = String(decoding: try encoder.encode(PolygonCollection(features: features)), as: UTF8.self)
            return TurbulencePolygonSet(historyWindow: window, severity: severity, geoJSON: json, updatedTime: now)
        }
    }

    /// A live flight as the store keeps it (with its tile); nil when the position has no H3 cell.
    static func storeFlight(_ flight: EddyProtocol.LiveFlight) -> StoreLiveFlight? {
        guard let cell = try? H3.latLngToCell(latitude: flight.lat, longitude: flight.lng, resolution: TileID.h3Resolution) else { return nil }
        return StoreLiveFlight(
            flightID: flight.flightId, latitude: flight.lat, longitude: flight.lng, altitudeFeet: flight.altitudeFeet,
            headingDegrees: flight.headingDegrees, groundSpeedKnots: flight.speedKnots, aircraftType: flight.aircraftType,
            tile: TileID(h3: cell.rawValue, layer: TileID.layer(altitudeFeet: flight.altitudeFeet)), time: flight.time)
    }
}

// The store's and the wire's names of the same areas and data types.

extension DataAreaType {
    /// The store's name of a wire area type.
    public init(_ area: SyncAreaType) {
        switch area {
        case .route: self = .route
        case .viewport: self = .viewport
        case .global: self = .global
        }
    }
}

extension SyncAreaType {
    /// The wire's name of a store area type.
    public init(_ area: DataAreaType) {
        switch area {
        case .route: self = .route
        case .viewport: self = .viewport
        case .global: self = .global
        }
    }
}

extension DataType {
    /// The store's name of a wire data type.
    public init(_ type: SyncDataType) {
        switch type {
        case .turbulence: self = .turbulence
        case .nowcast: self = .nowcast
        case .polygons: self = .turbulencePolygons
        case .liveFlights: self = .liveFlights
        }
    }
}

extension SyncDataType {
    /// The wire's name of a store data type.
    public init(_ type: DataType) {
        switch type {
        case .turbulence: self = .turbulence
        case .nowcast: self = .nowcast
        case .turbulencePolygons: self = .polygons
        case .liveFlights: self = .liveFlights
        }
    }
}
