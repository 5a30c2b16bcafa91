package import EddyVocabulary

// `POST /v1/fetch` (request, answer, observations) and `GET /v1/tick`: delta fetches by server tick.

/// `POST /v1/fetch` body.
package struct DeltaFetchRequest: Sendable, Codable, Equatable {
    /// Data type wanted.
    package var dataType: DataType
    /// Area wanted.
    package var area: SyncArea
    /// Tick of the last answer for this area × type; nil asks for a full answer.
    package var sinceTick: Int?
    /// History window, hours (0.5, 1, 2, 4, 6).
    package var historyHours: Double
    /// Lowest altitude layer wanted (thousands of feet), inclusive.
    package var minLayer: Int
    /// Highest altitude layer wanted (thousands of feet), inclusive.
    package var maxLayer: Int
    /// Viewer aircraft class (polygons are drawn at this class's severity).
    package var viewerClass: AircraftClass
    /// Most items (observations, nowcast cells, live flights) the client takes in one answer; a client that sends it
    /// follows `nextCursor` until the last page. Nil (older clients): the whole answer at once, refused with 400
    /// `answerTooLarge` when it would exceed the server's page limit (docs/protocol.md "Pages").
    package var pageSize: Int?
    /// The `nextCursor` of the previous page of this fetch; nil for the first page.
    package var cursor: String?
    /// Creates a request.
    package init(
        dataType: DataType, area: SyncArea, sinceTick: Int? = nil, historyHours: Double = EddyWire.defaultHistoryHours,
        minLayer: Int = 0, maxLayer: Int = 60, viewerClass: AircraftClass = .medium, pageSize: Int? = nil, cursor: String? = nil
    ) {
        self.dataType = dataType; self.area = area; self.sinceTick = sinceTick; self.historyHours = historyHours
        self.minLayer = minLayer; self.maxLayer = maxLayer; self.viewerClass = viewerClass
        self.pageSize = pageSize; self.cursor = cursor
    }
}

/// A turbulence observation as the server sends it: a tile report plus who (anonymised) and when it arrived.
package struct Observation: Sendable, Codable, Equatable, Hashable {
    /// The report (its id is the idempotency id the reporter chose).
    package var report: TileReport
    /// Anonymised reporter id (stable per airline × user, not reversible).
    package var reporterId: String
    /// Server tick at which the server received it.
    package var tick: Int
    /// Creates an observation.
    package init(report: TileReport, reporterId: String, tick: Int) {
        self.report = report; self.reporterId = reporterId; self.tick = tick
    }
}

/// `POST /v1/fetch` answer. Exactly the array matching `dataType` is filled (others empty / nil).
package struct DeltaFetchResponse: Sendable, Codable, Equatable {
    /// Data type answered.
    package var dataType: DataType
    /// Server tick of this answer: send it as `sinceTick` next time.
    package var serverTick: Int
    /// True when this is a full answer (first fetch, tick too old, or a type always sent whole):
    /// the client replaces what it holds for this area × type instead of merging.
    package var full: Bool
    /// Observations (turbulence).
    package var observations: [Observation]
    /// Nowcast cells of the latest issue (nowcast).
    package var nowcast: [NowcastCell]
    /// Polygons (polygons); nil when unchanged since `sinceTick`.
    package var polygons: PolygonCollection?
    /// Live flights (liveFlights).
    package var liveFlights: [LiveFlight]
    /// The fleet's geometric − pressure altitude offsets of the area's H3 resolution-3 cells, current aggregate (sent
    /// with the first page of turbulence answers, full or delta; nil: not sent, e.g. by an older server).
    package var altitudeOffsets: [AltitudeOffsetCell]?
    /// More items follow: ask again with the same request and this as `cursor`. Nil on the last (or only) page. Every
    /// page of one fetch carries the first page's `serverTick` and `full`; record the tick only after the last page.
    package var nextCursor: String?
    /// Creates a response.
    package init(
        dataType: DataType, serverTick: Int, full: Bool, observations: [Observation] = [],
        nowcast: [NowcastCell] = [], polygons: PolygonCollection? = nil, liveFlights: [LiveFlight] = [],
        altitudeOffsets: [AltitudeOffsetCell]? = nil, nextCursor: String? = nil
    ) {
        self.dataType = dataType; self.serverTick = serverTick; self.full = full; self.observations = observations
        self.nowcast = nowcast; self.polygons = polygons; self.liveFlights = liveFlights
        self.altitudeOffsets = altitudeOffsets; self.nextCursor = nextCursor
    }

    /// Number of items carried (observations, cells, features or flights).
    package var itemCount: Int {
        observations.count + nowcast.count + (polygons?.features.count ?? 0) + liveFlights.count
    }
}

/// `GET /v1/tick` answer.
package struct TickResponse: Sendable, Codable, Equatable {
    /// Current server tick.
    package var serverTick: Int
    /// Server time, Unix seconds.
    package var serverTime: Double
    /// Creates a response.
    package init(serverTick: Int, serverTime: Double) { self.serverTick = serverTick; self.serverTime = serverTime }
}
