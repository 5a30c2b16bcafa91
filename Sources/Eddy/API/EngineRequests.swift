import EddyH3
import EddyStore
public import EddyVocabulary

/// What `EddyEngine.turbulence(_:)` reads from the local cache (the anchor SDK's `TurbulenceQuery`, in Eddy's
/// words). The engine supplies "now" (engine time) and the viewer class (the aircraft's); build a fresh request
/// for each call. Defaults: server reports, around the aircraft, the data query's history window, every altitude,
/// the data query's minimum severity, worst report per tile.
public struct TurbulenceRequest: Sendable, Equatable {
    /// Which reports: `.server`, `.serverExcludingOwn(timeSpanSeconds:)` or `.own(timeSpanSeconds:)`.
    public var reports: ReportSelection
    /// Where: `.route(points, widthNM:)`, `.polygon(ring)`, `.tiles(…)` or `.everywhere`; nil: the data query's
    /// route area (its route polygon, or the circle around the aircraft).
    public var area: QueryArea?
    /// Altitude range, feet, whole thousands (e.g. 30_000...40_000); nil: every altitude.
    public var altitudeRangeFeet: ClosedRange<Int>?
    /// Lowest severity for the aircraft's class; nil: the data query's `minimumSeverity`.
    public var minimumSeverity: Severity?
    /// Only these severities (applied after `minimumSeverity`); nil: every severity from the minimum up.
    public var severities: Set<Severity>?
    /// Worst report per tile (default) or every report.
    public var aggregation: Aggregation
    /// History window of server reports; nil: the data query's.
    public var historyWindow: HistoryWindow?
    /// Half-width of the corridor around the track within which items get along-track fields, nautical miles.
    public var alongTrackCorridorHalfWidthNM: Double

    /// Creates a request (see the type's defaults).
    public init(reports: ReportSelection = .server, area: QueryArea? = nil, altitudeRangeFeet: ClosedRange<Int>? = nil,
                minimumSeverity: Severity? = nil, severities: Set<Severity>? = nil, aggregation: Aggregation = .worstPerTile,
                historyWindow: HistoryWindow? = nil, alongTrackCorridorHalfWidthNM: Double = 20) {
        self.reports = reports; self.area = area; self.altitudeRangeFeet = altitudeRangeFeet
        self.minimumSeverity = minimumSeverity; self.severities = severities; self.aggregation = aggregation
        self.historyWindow = historyWindow; self.alongTrackCorridorHalfWidthNM = alongTrackCorridorHalfWidthNM
    }
}

/// What `EddyEngine.nowcast(_:)` reads from the local cache: one forecast hour's cells.
public struct NowcastRequest: Sendable, Equatable {
    /// Hours ahead (0 = the current hour … 12).
    public var hoursAhead: Int
    /// Altitude range, feet, whole thousands; nil: every altitude.
    public var altitudeRangeFeet: ClosedRange<Int>?
    /// Where; nil: the data query's route area.
    public var area: QueryArea?
    /// Lowest severity for the aircraft's class.
    public var minimumSeverity: Severity

    /// Creates a request (defaults: the current hour, every altitude, the route area, every severity).
    public init(hoursAhead: Int = 0, altitudeRangeFeet: ClosedRange<Int>? = nil, area: QueryArea? = nil,
                minimumSeverity: Severity = .none) {
        self.hoursAhead = hoursAhead; self.altitudeRangeFeet = altitudeRangeFeet; self.area = area
        self.minimumSeverity = minimumSeverity
    }
}

/// What `EddyEngine.polygons(_:)` reads from the local cache: turbulence polygons of a history window.
public struct PolygonsRequest: Sendable, Equatable {
    /// History window; nil: the data query's.
    public var historyWindow: HistoryWindow?
    /// Lowest severity (polygons start at light).
    public var minimumSeverity: Severity
    /// Altitude range, feet, whole thousands: polygons whose layer band overlaps it; nil: every altitude.
    public var altitudeRangeFeet: ClosedRange<Int>?

    /// Creates a request (defaults: the data query's window, light and worse, every altitude).
    public init(historyWindow: HistoryWindow? = nil, minimumSeverity: Severity = .light, altitudeRangeFeet: ClosedRange<Int>? = nil) {
        self.historyWindow = historyWindow; self.minimumSeverity = minimumSeverity; self.altitudeRangeFeet = altitudeRangeFeet
    }
}

/// What `EddyEngine.liveFlights(_:)` reads from the local cache.
public struct LiveFlightsRequest: Sendable, Equatable {
    /// Flights last seen longer ago than this are left out, seconds; nil: the store's default.
    public var maximumAgeSeconds: Double?
    /// Altitude range, feet; nil: every altitude.
    public var altitudeRangeFeet: ClosedRange<Int>?
    /// Only flights inside this ring (closed or open); nil: every cached flight.
    public var polygon: [LatLng]?

    /// Creates a request (defaults: the store's age limit, everywhere, every altitude).
    public init(maximumAgeSeconds: Double? = nil, altitudeRangeFeet: ClosedRange<Int>? = nil, polygon: [LatLng]? = nil) {
        self.maximumAgeSeconds = maximumAgeSeconds; self.altitudeRangeFeet = altitudeRangeFeet; self.polygon = polygon
    }
}

/// The device's mount state as detection last reported it (`EddyEngine.devicePosition`).
public struct DevicePositionState: Sendable, Equatable {
    /// The device is steady in its mount (a reference orientation is set).
    public var inPosition: Bool
    /// The device lies flat (nothing is recorded while flat).
    public var isHorizontal: Bool
    /// The device is being handled or vibrates (nothing is recorded in noise).
    public var inNoise: Bool
    /// Creates a state.
    public init(inPosition: Bool, isHorizontal: Bool, inNoise: Bool) {
        self.inPosition = inPosition; self.isHorizontal = isHorizontal; self.inNoise = inNoise
    }
}
