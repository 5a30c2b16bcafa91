public import EddyH3
public import EddyVocabulary
import Foundation

/// Why a query was refused (checked before the store is touched); each case says what to fix.
public enum QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A polygon has more than 250 coordinates (SkyPath `polygonTooManyCoordinates`).
    case polygonTooManyCoordinates(count: Int, maximum: Int)
    /// A polygon needs at least 3 distinct vertices.
    case polygonTooFewCoordinates(count: Int)
    /// A route has more than 250 points.
    case routeTooManyCoordinates(count: Int, maximum: Int)
    /// A route needs at least 2 distinct points.
    case routeTooFewCoordinates(count: Int)
    /// The corridor width each side of a route must be finite, > 0 and ≤ the maximum.
    case invalidRouteWidth(nauticalMiles: Double, maximum: Double)
    /// A coordinate is not finite, or latitude is outside ±90° / longitude outside ±180°.
    case invalidCoordinate(index: Int, latitude: Double, longitude: Double)
    /// The area covers more tiles than a query may (query a smaller area, or everywhere).
    case areaTooLarge(estimatedCells: Int, maximum: Int)
    /// The tile list is empty or too long.
    case invalidTileCount(count: Int, maximum: Int)
    /// A tile's H3 index is not a valid resolution-5 cell.
    case invalidTile(h3: String)
    /// An altitude range bound is not a whole number of thousands of feet (SkyPath `altRangeNotRoundToThousandFeet`).
    case altRangeNotRoundToThousandFeet(lowerFeet: Int, upperFeet: Int)
    /// The altitude range is outside the layers the store knows (−2,000 … 60,000 ft).
    case altRangeOutOfBounds(lowerFeet: Int, upperFeet: Int)
    /// A history window other than 0.5, 1, 2, 4 or 6 hours.
    case invalidHistoryWindow(hours: Double)
    /// The own-report time span must be finite and > 0 seconds (and at most the longest history window).
    case invalidTimeSpan(seconds: Double)
    /// A forecast hour outside 0 … 12.
    case invalidForecastHour(Int)
    /// "Now" must be a finite Unix time.
    case invalidNow(Double)

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case let .polygonTooManyCoordinates(count, maximum):
            "polygonTooManyCoordinates: the polygon has \(count) coordinates; at most \(maximum) are allowed. Simplify it."
        case let .polygonTooFewCoordinates(count):
            "the polygon has \(count) distinct vertices; it needs at least 3."
        case let .routeTooManyCoordinates(count, maximum):
            "the route has \(count) points; at most \(maximum) are allowed. Simplify it."
        case let .routeTooFewCoordinates(count):
            "the route has \(count) distinct points; it needs at least 2."
        case let .invalidRouteWidth(width, maximum):
            "the corridor width \(width) NM each side is invalid; use a value > 0 and ≤ \(maximum) NM."
        case let .invalidCoordinate(index, latitude, longitude):
            "coordinate #\(index + 1) (\(latitude), \(longitude)) is invalid; latitude must be within ±90° and longitude within ±180°."
        case let .areaTooLarge(cells, maximum):
            "the area covers about \(cells) tiles; at most \(maximum) per query. Query a smaller area or everywhere."
        case let .invalidTileCount(count, maximum):
            "the tile list has \(count) tiles; give between 1 and \(maximum)."
        case let .invalidTile(h3):
            "'\(h3)' is not a valid H3 resolution-5 cell."
        case let .altRangeNotRoundToThousandFeet(lower, upper):
            "altRangeNotRoundToThousandFeet: \(lower)…\(upper) ft; both bounds must be whole thousands of feet (e.g. 30000…40000)."
        case let .altRangeOutOfBounds(lower, upper):
            "the altitude range \(lower)…\(upper) ft is invalid; the lower bound must not exceed the upper and both must be within −2000…60000 ft."
        case let .invalidHistoryWindow(hours):
            "history window \(hours) h is not supported; use 0.5, 1, 2, 4 or 6."
        case let .invalidTimeSpan(seconds):
            "time span \(seconds) s is invalid; use a value > 0 and ≤ 6 h."
        case let .invalidForecastHour(hour):
            "forecast hour \(hour) is invalid; use 0…12."
        case let .invalidNow(now):
            "'now' (\(now)) must be a finite Unix time in seconds."
        }
    }
}

extension HistoryWindow {
    /// The window of a length in hours, or `QueryError.invalidHistoryWindow` unless it is 0.5, 1, 2, 4 or 6.
    public static func validated(hours: Double) throws(QueryError) -> HistoryWindow {
        guard let window = HistoryWindow(hours: hours) else { throw .invalidHistoryWindow(hours: hours) }
        return window
    }
}

/// Where to look.
public enum QueryArea: Sendable, Equatable {
    /// Tiles whose centre lies inside a polygon (a ring of ≤ 250 coordinates, closed or not; degrees).
    case polygon([LatLng])
    /// Tiles whose centre lies within `widthNM` of a route (a polyline of ≤ 250 points), plus the tiles the route
    /// passes through.
    case route([LatLng], widthNM: Double)
    /// Exactly these tiles (H3 resolution-5 cell × layer).
    case tiles([TileID])
    /// Everywhere (no spatial filter).
    case everywhere
}

/// Which reports a turbulence query returns.
public enum ReportSelection: Sendable, Equatable {
    /// Server observations.
    case server
    /// Server observations, leaving out this device's own reports made within the last `timeSpanSeconds`
    /// (the server echoes our reports back under the same ids).
    case serverExcludingOwn(timeSpanSeconds: Double)
    /// This device's own reports (pending and sent) made within the last `timeSpanSeconds`.
    case own(timeSpanSeconds: Double)
}

/// Every report, or only the worst report of each tile.
public enum Aggregation: Sendable, Equatable {
    /// The worst report per tile (highest peak EDR; ties: the latest, then the smallest id).
    case worstPerTile
    /// Every matching report.
    case everyReport
}

/// A turbulence query over the cache. Build a fresh one for each call: `now` anchors the history window.
package struct TurbulenceQuery: Sendable, Equatable {
    /// The area to look in.
    package var area: QueryArea
    /// Altitude range in feet (whole thousands); a layer is included when its 1000 ft band starts within the range
    /// (30000…40000 = layers 30 … 40). Nil: every altitude.
    package var altitudeRangeFeet: ClosedRange<Int>?
    /// Reports whose exit time is within this window before `now` (server reports; own reports use their time span).
    package var historyWindow: HistoryWindow
    /// Only reports at least this severe for the viewer (`.none` includes smooth reports).
    package var minimumSeverity: Severity
    /// The class of the aircraft looking at the map: severity is derived from EDR for this class.
    package var viewer: AircraftClass
    /// Worst per tile, or every report.
    package var aggregation: Aggregation
    /// Which reports.
    package var selection: ReportSelection
    /// The present, Unix epoch seconds (the store never reads the clock).
    package var now: Double
    /// Also return each server report's anonymised reporter id and source (read from disk; slower for big areas).
    package var includeReporterDetails: Bool

    /// Creates a query (defaults: every altitude, 2 h, severity ≥ none, medium viewer, worst per tile, server,
    /// no reporter details).
    package init(
        area: QueryArea, altitudeRangeFeet: ClosedRange<Int>? = nil, historyWindow: HistoryWindow = .twoHours,
        minimumSeverity: Severity = .none, viewer: AircraftClass = .medium, aggregation: Aggregation = .worstPerTile,
        selection: ReportSelection = .server, now: Double, includeReporterDetails: Bool = false
    ) {
        self.includeReporterDetails = includeReporterDetails
        self.area = area
        self.altitudeRangeFeet = altitudeRangeFeet
        self.historyWindow = historyWindow
        self.minimumSeverity = minimumSeverity
        self.viewer = viewer
        self.aggregation = aggregation
        self.selection = selection
        self.now = now
    }
}


/// One query result: a report with its severity for the viewer.
public struct TurbulenceItem: Sendable, Equatable, Hashable {
    /// The report.
    public var report: TileReport
    /// Severity for the query's viewer class (from the peak EDR).
    public var severity: Severity
    /// Own report or server observation.
    public var origin: ReportOrigin
    /// Anonymised reporter id (server observations, when the query asked for reporter details).
    public var reporterID: String?
    /// Source (server observations, when the query asked for reporter details).
    public var source: String?
    /// How many matching reports the tile had (1 unless aggregated worst-per-tile).
    public var reportCount: Int
    /// The tile's latest report against the report cached before it in the same tile (cell × layer), severities for
    /// the viewer; for every-report queries, this report against the one before it. Nil when not computed.
    public var trend: TurbulenceTrend?
    /// Distance, time to reach and time to pass along the aircraft's track; filled by the engine's queries (nil when
    /// the track is unknown, the tile is not ahead or outside the corridor, or the item comes straight from the store).
    public var alongTrack: AlongTrack?

    /// Creates an item.
    public init(
        report: TileReport, severity: Severity, origin: ReportOrigin, reporterID: String?, source: String?, reportCount: Int,
        trend: TurbulenceTrend? = nil, alongTrack: AlongTrack? = nil
    ) {
        self.trend = trend
        self.alongTrack = alongTrack
        self.report = report
        self.severity = severity
        self.origin = origin
        self.reporterID = reporterID
        self.source = source
        self.reportCount = reportCount
    }
}

/// Query limits.
public enum QueryLimits {
    /// Most coordinates in a polygon (SkyPath's limit).
    public static let maximumPolygonCoordinates = 250
    /// Most points in a route.
    public static let maximumRouteCoordinates = 250
    /// Widest corridor each side of a route, NM.
    public static let maximumRouteWidthNM = 250.0
    /// Most tiles in a tile list.
    public static let maximumTiles = 100_000
    /// Most resolution-5 cells an area may cover (≈ 50 million km², a continent).
    public static let maximumCells = 200_000
    /// Lowest altitude a range may start at, feet.
    public static let lowestAltitudeFeet = -2000
    /// Highest altitude a range may end at, feet.
    public static let highestAltitudeFeet = 60000
    /// Latest forecast hour a nowcast query accepts.
    public static let maximumForecastHour = 12
}

/// A validated query: everything the SQL needs.
struct PreparedQuery {
    /// Cells to look in (sorted, unique); nil for everywhere.
    var cells: [UInt64]?
    /// Exact tiles for `.tiles` queries.
    var tiles: Set<TileID>?
    var layers: ClosedRange<Int>?
    var sinceTime: Double
    var minimumEDR: Double?
    var excludeOwnSince: Double?
}

extension TurbulenceQuery {
    /// Checks the query and computes its cell set; throws `QueryError` on bad input. `covering`, when given, is the
    /// cell set of the same area already computed for another query (polygon and route areas are not covered again).
    func prepare(covering: [UInt64]? = nil) throws(QueryError) -> PreparedQuery {
        guard now.isFinite else { throw .invalidNow(now) }
        let layers = try Self.layers(altitudeRangeFeet)
        var prepared = PreparedQuery(cells: nil, tiles: nil, layers: layers, sinceTime: now - historyWindow.seconds)
        switch selection {
        case .server: break
        case let .serverExcludingOwn(span):
            try Self.checkTimeSpan(span)
            prepared.excludeOwnSince = now - span
        case let .own(span):
            try Self.checkTimeSpan(span)
            prepared.sinceTime = now - span
        }
        if minimumSeverity != .none {
            prepared.minimumEDR = SeverityScale.minimumEDR(for: minimumSeverity, viewer: viewer)
        }
        switch area {
        case .everywhere:
            break
        case let .tiles(tiles):
            guard !tiles.isEmpty, tiles.count <= QueryLimits.maximumTiles else {
                throw .invalidTileCount(count: tiles.count, maximum: QueryLimits.maximumTiles)
            }
            for tile in tiles {
                let cell = H3Index(rawValue: tile.h3)
                guard H3.isValidCell(cell), H3.resolution(of: cell) == TileID.h3Resolution else {
                    throw .invalidTile(h3: tile.h3String)
                }
            }
            prepared.tiles = Set(tiles)
            prepared.cells = Array(Set(tiles.map(\.h3))).sorted()
        case let .polygon(ring):
            if let covering { prepared.cells = covering } else { prepared.cells = try CellCover.polygon(ring) }
        case let .route(points, width):
            if let covering { prepared.cells = covering } else { prepared.cells = try CellCover.route(points, widthNM: width) }
        }
        return prepared
    }

    static func checkTimeSpan(_ seconds: Double) throws(QueryError) {
        guard seconds.isFinite, seconds > 0, seconds <= HistoryWindow.sixHours.seconds else {
            throw .invalidTimeSpan(seconds: seconds)
        }
    }

    /// The layers of an altitude range (validated: whole thousands, ordered, within bounds).
    static func layers(_ range: ClosedRange<Int>?) throws(QueryError) -> ClosedRange<Int>? {
        guard let range else { return nil }
        guard range.lowerBound % 1000 == 0, range.upperBound % 1000 == 0 else {
            throw .altRangeNotRoundToThousandFeet(lowerFeet: range.lowerBound, upperFeet: range.upperBound)
        }
        guard range.lowerBound >= QueryLimits.lowestAltitudeFeet, range.upperBound <= QueryLimits.highestAltitudeFeet else {
            throw .altRangeOutOfBounds(lowerFeet: range.lowerBound, upperFeet: range.upperBound)
        }
        return (range.lowerBound / 1000)...(range.upperBound / 1000)
    }

    /// Builds an altitude range from two bounds in feet, refusing lower > upper with a typed error
    /// (a `ClosedRange` cannot even hold it).
    package static func altitudeRange(lowerFeet: Int, upperFeet: Int) throws(QueryError) -> ClosedRange<Int> {
        guard lowerFeet % 1000 == 0, upperFeet % 1000 == 0 else {
            throw .altRangeNotRoundToThousandFeet(lowerFeet: lowerFeet, upperFeet: upperFeet)
        }
        guard lowerFeet <= upperFeet else { throw .altRangeOutOfBounds(lowerFeet: lowerFeet, upperFeet: upperFeet) }
        return lowerFeet...upperFeet
    }
}
