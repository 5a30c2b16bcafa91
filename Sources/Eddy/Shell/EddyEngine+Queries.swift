public import EddyAlerts
import EddyH3
import EddyProtocol
import EddyStore
public import EddyVocabulary
import Foundation

/// The engine's query surface (docs/engine.md, "Queries"): hosts read the local cache through these, never through
/// `store`. Each reads the SQLite cache synchronously on the calling thread: call them off the main thread.
extension EddyEngine {
    /// The device's mount state as detection last reported it (nil before detection ran);
    /// `didChangeDevicePosition(inPosition:horizontal:)` tells when `inPosition` or `isHorizontal` change.
    public var devicePosition: DevicePositionState? {
        core.withLock { $0.devicePosition.map { DevicePositionState(inPosition: $0.inPosition, isHorizontal: $0.horizontal, inNoise: $0.inNoise) } }
    }
    /// Whether the device is steady in its mount (false before detection ran).
    public var inPosition: Bool { devicePosition?.inPosition ?? false }
    /// Whether the device lies flat (false before detection ran).
    public var isHorizontal: Bool { devicePosition?.isHorizontal ?? false }
    /// Whether the device is handled or vibrates too much to measure (false before detection ran).
    public var inNoise: Bool { devicePosition?.inNoise ?? false }

    /// The cached turbulence the data query asks for in one of its areas (worst report per tile): its history window,
    /// altitude range and `minimumSeverity` for the aircraft's class, at engine time. Empty when that area is not set
    /// (the route area without a route polygon is the circle around the latest position).
    public func turbulence(in areaType: DataAreaType) throws(EddyError) -> [TurbulenceItem] {
        let (query, motion) = core.withLock { ($0.turbulenceQuery(for: areaType), $0.ownMotion) }
        guard let query else { return [] }
        let items = try runStoreQuery { () throws(StoreError) in try store.turbulence(query) }
        return EngineQueries.alongTrack(items, motion: motion, corridorHalfWidthNM: AlongTrackGeometry.defaultCorridorHalfWidthNM)
    }

    /// Cached turbulence for `request` at engine time, for the aircraft's class, with each item's trend and its
    /// distance, time to reach and time to pass along the track. Sorted by tile. Call off the main thread.
    public func turbulence(_ request: TurbulenceRequest) throws(EddyError) -> [TurbulenceItem] {
        let (snapshot, motion) = core.withLock { ($0.querySnapshot(area: request.area), $0.ownMotion) }
        guard let area = snapshot.area else { return [] }
        let query = TurbulenceQuery(
            area: area, altitudeRangeFeet: request.altitudeRangeFeet, historyWindow: request.historyWindow ?? snapshot.historyWindow,
            minimumSeverity: request.minimumSeverity ?? snapshot.minimumSeverity, viewer: snapshot.viewer,
            aggregation: request.aggregation, selection: request.reports, now: snapshot.now)
        var items = try runStoreQuery { () throws(StoreError) in try store.turbulence(query) }
        if let severities = request.severities { items = items.filter { severities.contains($0.severity) } }
        return EngineQueries.alongTrack(items, motion: motion, corridorHalfWidthNM: request.alongTrackCorridorHalfWidthNM)
    }

    /// `turbulence(_:)` as an RFC 7946 GeoJSON FeatureCollection (one hexagon per item; properties in docs/json.md).
    public func turbulenceGeoJSON(_ request: TurbulenceRequest) throws(EddyError) -> String {
        let items = try turbulence(request)
        do { return try GeoJSON.featureCollection(items) } catch { throw .store(.unexpected(path: configuration.storePath, detail: "\(error)")) }
    }

    /// Cached nowcast cells of `request.hoursAhead` still valid at engine time, sorted by tile. Call off the main thread.
    public func nowcast(_ request: NowcastRequest) throws(EddyError) -> [NowcastCell] {
        let snapshot = core.withLock { $0.querySnapshot(area: request.area) }
        guard let area = snapshot.area else { return [] }
        let query = NowcastQuery(forecastHour: request.hoursAhead, area: area, altitudeRangeFeet: request.altitudeRangeFeet,
                                 minimumSeverity: request.minimumSeverity, viewer: snapshot.viewer, now: snapshot.now)
        return try runStoreQuery { () throws(StoreError) in try store.nowcast(query) }
    }

    /// Cached turbulence polygons, typed (rings of `LatLng`, outer first), most severe first. Call off the main thread.
    public func polygons(_ request: PolygonsRequest = PolygonsRequest()) throws(EddyError) -> [TurbulencePolygon] {
        var layers: ClosedRange<Int>?
        if let r = request.altitudeRangeFeet {
            let checked: ClosedRange<Int>
            do { checked = try TurbulenceQuery.altitudeRange(lowerFeet: r.lowerBound, upperFeet: r.upperBound) } catch { throw .query(error) }
            layers = (checked.lowerBound / 1000)...(checked.upperBound / 1000)
        }
        let sets = try polygonsGeoJSON(request)
        var polygons: [TurbulencePolygon] = []
        for set in sets {
            do { polygons += try EngineQueries.polygons(of: set) }
            catch { throw .store(.unexpected(path: configuration.storePath, detail: "\(error)")) }
        }
        if let layers { polygons = polygons.filter { $0.layers.overlaps(layers) } }
        return polygons
    }

    /// Cached turbulence polygons as the server sent them: one GeoJSON FeatureCollection per severity, most severe
    /// first. Call off the main thread.
    public func polygonsGeoJSON(_ request: PolygonsRequest = PolygonsRequest()) throws(EddyError) -> [TurbulencePolygonSet] {
        let window = request.historyWindow ?? core.withLock { $0.dataQuery.historyWindow }
        return try runStoreQuery { () throws(StoreError) in try store.turbulencePolygons(historyWindow: window, minimumSeverity: max(.light, request.minimumSeverity)) }
    }

    /// Cached live flights (traffic) seen within the age limit before engine time, newest first. Call off the main thread.
    public func liveFlights(_ request: LiveFlightsRequest = LiveFlightsRequest()) throws(EddyError) -> [LiveFlight] {
        if let ring = request.polygon { try DataQuery(viewport: ring).validate() }
        let now = core.withLock { $0.currentTime }
        var flights = try runStoreQuery { () throws(StoreError) in try store.liveFlights(now: now, maximumAgeSeconds: request.maximumAgeSeconds) }
        if let range = request.altitudeRangeFeet {
            flights = flights.filter { Double(range.lowerBound) <= $0.altitudeFeet && $0.altitudeFeet <= Double(range.upperBound) }
        }
        if let ring = request.polygon { flights = flights.filter { PlanarPolygon.contains(ring, ($0.latitude, $0.longitude)) } }
        return flights
    }

    /// Runs a store read, mapping its errors: a refused query → `.query`, storage → `.store`.
    private func runStoreQuery<T>(_ body: () throws(StoreError) -> T) throws(EddyError) -> T {
        do { return try body() } catch { throw EddyError(error) }
    }
}

/// Pure helpers of the engine's queries.
enum EngineQueries {
    /// Items with their along-track fields for `motion` (unchanged when there is no fix yet).
    static func alongTrack(_ items: [TurbulenceItem], motion: OwnMotion?, corridorHalfWidthNM: Double) -> [TurbulenceItem] {
        guard let motion else { return items }
        let width = corridorHalfWidthNM.isFinite && corridorHalfWidthNM > 0 ? corridorHalfWidthNM : AlongTrackGeometry.defaultCorridorHalfWidthNM
        return items.map { item in
            var item = item
            item.alongTrack = AlongTrackGeometry.relation(tile: item.report.tile, motion: motion, corridorHalfWidthNM: width)
            return item
        }
    }

    /// The typed polygons of one stored set (GeoJSON `Polygon` features as `PolygonCollection` carries them).
    static func polygons(of set: TurbulencePolygonSet) throws -> [TurbulencePolygon] {
        let collection = try JSONDecoder().decode(PolygonCollection.self, from: Data(set.geoJSON.utf8))
        return collection.features.compactMap { feature in
            let p = feature.properties
            guard p.layerMin <= p.layerMax else { return nil }
            let rings = feature.geometry.coordinates.map { ring in
                ring.compactMap { $0.count >= 2 ? LatLng(latitude: $0[1], longitude: $0[0]) : nil }
            }
            guard let outer = rings.first, outer.count >= 3 else { return nil }
            return TurbulencePolygon(severity: Severity(name: p.severity) ?? set.severity, layers: p.layerMin...p.layerMax,
                                     rings: rings, edrPeak: p.edrPeak, tileCount: p.tileCount)
        }
    }
}
