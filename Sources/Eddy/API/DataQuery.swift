import Dispatch
import EddyH3
import EddyStore
import EddySync
public import EddyVocabulary
import Foundation

/// What the engine fetches and for where (SkyPath's `DataQuery`). Setting it triggers a fetch check at once.
public struct DataQuery: Sendable, Equatable, Codable {
    /// Data types fetched for the route and global areas.
    public var types: Set<DataType>
    /// Data types fetched for the viewport (default turbulence only; e.g. add `.liveFlights` for traffic on the map).
    public var viewportTypes: Set<DataType>
    /// Route corridor polygon (closed or open ring, 3…250 vertices); nil lets the engine fetch around the
    /// aircraft (a `autoRouteRadiusNM` circle, re-centred as it flies).
    public var routePolygon: [LatLng]?
    /// Map viewport polygon (3…250 vertices); nil for none.
    public var viewport: [LatLng]?
    /// Whether the whole planet is fetched too (heavy; off by default).
    public var globalEnabled: Bool
    /// History window of fetched reports.
    public var historyWindow: HistoryWindow
    /// Altitude range, feet, whole thousands (0…60,000).
    public var altitudeRangeFeet: ClosedRange<Int>
    /// Lowest severity shown by local queries (for the aircraft's class).
    public var minimumSeverity: Severity

    /// Creates a query (defaults: turbulence, around the aircraft, 2 h, every altitude, light and worse).
    public init(types: Set<DataType> = [.turbulence], viewportTypes: Set<DataType> = [.turbulence], routePolygon: [LatLng]? = nil,
                viewport: [LatLng]? = nil, globalEnabled: Bool = false, historyWindow: HistoryWindow = .twoHours,
                altitudeRangeFeet: ClosedRange<Int> = 0...60_000, minimumSeverity: Severity = .light) {
        self.types = types; self.viewportTypes = viewportTypes; self.routePolygon = routePolygon; self.viewport = viewport; self.globalEnabled = globalEnabled
        self.historyWindow = historyWindow; self.altitudeRangeFeet = altitudeRangeFeet; self.minimumSeverity = minimumSeverity
    }

    /// Checks every field; throws a typed error naming the bad one.
    public func validate() throws(EddyError) {
        guard !types.isEmpty else { throw .dataQueryInvalid("types is empty: ask for at least one data type (e.g. [.turbulence])") }
        guard !viewportTypes.isEmpty else {
            throw .dataQueryInvalid("viewportTypes is empty: ask for at least one data type (e.g. [.turbulence]), or set viewport to nil")
        }
        let (lower, upper) = (altitudeRangeFeet.lowerBound, altitudeRangeFeet.upperBound)
        guard lower % 1000 == 0, upper % 1000 == 0 else { throw .query(.altRangeNotRoundToThousandFeet(lowerFeet: lower, upperFeet: upper)) }
        guard lower >= QueryLimits.lowestAltitudeFeet, upper <= QueryLimits.highestAltitudeFeet else {
            throw .query(.altRangeOutOfBounds(lowerFeet: lower, upperFeet: upper))
        }
        for ring in [routePolygon, viewport] {
            guard let ring else { continue }
            let open = ring.count > 1 && ring.first == ring.last ? Array(ring.dropLast()) : ring
            guard open.count >= 3 else { throw .query(.polygonTooFewCoordinates(count: ring.count)) }
            guard ring.count <= QueryLimits.maximumPolygonCoordinates else {
                throw .query(.polygonTooManyCoordinates(count: ring.count, maximum: QueryLimits.maximumPolygonCoordinates))
            }
            for (index, p) in ring.enumerated()
            where !(p.latitude.isFinite && p.longitude.isFinite && abs(p.latitude) <= 90 && abs(p.longitude) <= 180) {
                throw .query(.invalidCoordinate(index: index, latitude: p.latitude, longitude: p.longitude))
            }
        }
    }
}

extension DataQuery {
    private enum CodingKeys: String, CodingKey {
        case types, viewportTypes, routePolygon, viewport, globalEnabled, historyWindow, altitudeRangeFeet, minimumSeverity
    }

    /// Decodes a query; a query persisted before `viewportTypes` existed gets the default (turbulence).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            types: try c.decode(Set<DataType>.self, forKey: .types),
            viewportTypes: try c.decodeIfPresent(Set<DataType>.self, forKey: .viewportTypes) ?? [.turbulence],
            routePolygon: try c.decodeIfPresent([LatLng].self, forKey: .routePolygon),
            viewport: try c.decodeIfPresent([LatLng].self, forKey: .viewport),
            globalEnabled: try c.decode(Bool.self, forKey: .globalEnabled),
            historyWindow: try c.decode(HistoryWindow.self, forKey: .historyWindow),
            altitudeRangeFeet: try c.decode(ClosedRange<Int>.self, forKey: .altitudeRangeFeet),
            minimumSeverity: try c.decode(Severity.self, forKey: .minimumSeverity))
    }
}
