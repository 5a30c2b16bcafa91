public import EddyVocabulary
import Foundation

/// A turbulence report received from the server: a tile report plus who (anonymised) and where it came from.
package struct ServerObservation: Sendable, Equatable, Hashable, Codable {
    /// The report itself (its `id` is the idempotency key: upserting the same id twice keeps one row).
    package var report: TileReport
    /// Anonymised id of the reporting aircraft / device, as the server hands it out.
    package var reporterID: String
    /// Where the report comes from (e.g. `eddy`, `pirep`): free text set by the server.
    package var source: String

    /// Creates an observation.
    package init(report: TileReport, reporterID: String, source: String) {
        self.report = report
        self.reporterID = reporterID
        self.source = source
    }
}

/// The server's aggregated turbulence polygons for one history window and one severity (a GeoJSON document).
public struct TurbulencePolygonSet: Sendable, Equatable, Hashable, Codable {
    /// History window the polygons aggregate.
    public var historyWindow: HistoryWindow
    /// Severity the polygons outline.
    public var severity: Severity
    /// The GeoJSON text as the server sent it (stored verbatim).
    public var geoJSON: String
    /// When the server produced it, Unix epoch seconds.
    public var updatedTime: Double

    /// Creates a polygon set.
    public init(historyWindow: HistoryWindow, severity: Severity, geoJSON: String, updatedTime: Double) {
        self.historyWindow = historyWindow
        self.severity = severity
        self.geoJSON = geoJSON
        self.updatedTime = updatedTime
    }
}

/// Where the sync layer is for one area type × data type: the server tick of the last delta and the last full fetch.
package struct SyncState: Sendable, Equatable, Hashable, Codable {
    /// Area type.
    package var areaType: DataAreaType
    /// Data type.
    package var dataType: DataType
    /// Opaque server tick of the last applied delta (nil before the first fetch).
    package var tick: String?
    /// When the last full fetch completed, Unix epoch seconds (nil if never).
    package var lastFullFetchTime: Double?

    /// Creates a sync state.
    package init(areaType: DataAreaType, dataType: DataType, tick: String?, lastFullFetchTime: Double?) {
        self.areaType = areaType
        self.dataType = dataType
        self.tick = tick
        self.lastFullFetchTime = lastFullFetchTime
    }
}

/// History windows the data query accepts: 0.5, 1, 2 (default), 4 and 6 hours.
public enum HistoryWindow: Int, Sendable, Codable, CaseIterable, Hashable, Comparable {
    /// 30 minutes.
    case halfHour = 30
    /// 1 hour.
    case oneHour = 60
    /// 2 hours (the default).
    case twoHours = 120
    /// 4 hours.
    case fourHours = 240
    /// 6 hours (the longest: observations older than this are purged).
    case sixHours = 360

    /// The window length in minutes.
    public var minutes: Int { rawValue }
    /// The window length in seconds.
    public var seconds: Double { Double(rawValue) * 60 }
    /// The window length in hours (0.5, 1, 2, 4, 6).
    public var hours: Double { Double(rawValue) / 60 }

    /// The window of a length in hours; nil unless it is exactly 0.5, 1, 2, 4 or 6.
    public init?(hours: Double) {
        guard hours.isFinite, let match = HistoryWindow.allCases.first(where: { $0.hours == hours }) else { return nil }
        self = match
    }

    /// Orders windows from shortest to longest.
    public static func < (lhs: HistoryWindow, rhs: HistoryWindow) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What `purgeExpired(now:)` removed.
package struct PurgeSummary: Sendable, Equatable, Hashable {
    /// Server observations older than the longest history window.
    package var observations: Int = 0
    /// Server observations evicted by the size cap (oldest first).
    package var observationsOverCap: Int = 0
    /// Own reports already sent and older than the longest history window (pending ones are never purged).
    package var sentOwnReports: Int = 0
    /// Nowcast cells past their validity.
    package var nowcastCells: Int = 0
    /// Live flights whose last position is older than the live-flight age limit.
    package var liveFlights: Int = 0
    /// Fleet altitude offsets whose newest observation is older than the offset age limit.
    package var altitudeOffsets: Int = 0

    /// Creates an empty summary.
    package init() {}
}

/// Counts of the own-report outbox.
package struct OutboxCounts: Sendable, Equatable, Hashable {
    /// Reports waiting for the server's acknowledgement.
    package var pending: Int
    /// Reports the server acknowledged (kept for queries until they expire).
    package var sent: Int
}
