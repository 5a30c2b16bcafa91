package import EddyVocabulary
package import Foundation

// Wire types shared by the EddySync client and eddy-server (docs/protocol.md, docs/openapi.yaml).
// JSON over HTTP(S); times are Unix epoch seconds; EDR is m^(2/3) s^-1; coordinates are WGS-84 degrees.

/// Protocol constants shared by both sides.
package enum EddyWire {
    /// Protocol version this module speaks (path prefix `/v1`).
    package static let version = 1
    /// Path prefix of every API endpoint.
    package static let pathPrefix = "/v1"
    /// Maximum vertices of an area polygon (route corridor or viewport).
    package static let maxPolygonVertices = 250
    /// History windows a fetch may ask for, hours.
    package static let historyWindowsHours: [Double] = [0.5, 1, 2, 4, 6]
    /// Default history window, hours.
    package static let defaultHistoryHours: Double = 2
    /// Header carrying the client version on every request (426 when too old).
    package static let clientVersionHeader = "X-Eddy-Client-Version"
}

/// A WGS-84 point in degrees.
package struct GeoPoint: Sendable, Codable, Hashable {
    /// Latitude, degrees (−90…90).
    package var lat: Double
    /// Longitude, degrees (−180…180).
    package var lng: Double
    /// Creates a point.
    package init(lat: Double, lng: Double) { self.lat = lat; self.lng = lng }
}

// MARK: - Session

/// `POST /v1/session` body: who is starting a session.
package struct SessionStartRequest: Sendable, Codable, Equatable {
    /// The operator-issued API key.
    package var apiKey: String
    /// Company ICAO code (3 letters, e.g. `DAL`).
    package var airline: String
    /// Any id unique within the company.
    package var userId: String
    /// Client semantic version (`MAJOR.MINOR.PATCH`); older than the server's minimum gives 426.
    package var clientVersion: String
    /// Creates a request.
    package init(apiKey: String, airline: String, userId: String, clientVersion: String) {
        self.apiKey = apiKey; self.airline = airline; self.userId = userId; self.clientVersion = clientVersion
    }
}

/// Server-provided settings sent with every new session.
package struct ServerSettings: Sendable, Codable, Equatable {
    /// Fetch interval for the `minimal` update frequency, seconds.
    package var minimalIntervalSeconds: Double
    /// Fetch interval for the `medium` update frequency, seconds.
    package var mediumIntervalSeconds: Double
    /// Fetch interval for the `fast` update frequency, seconds.
    package var fastIntervalSeconds: Double
    /// Length of one server tick, seconds (about 60).
    package var tickSeconds: Double
    /// A delta older than this many ticks is answered with a full refresh.
    package var fullRefreshAfterTicks: Int
    /// Most reports accepted in one upload batch.
    package var maxReportsPerBatch: Int
    /// Largest accepted request body, bytes.
    package var maxRequestBytes: Int
    /// Live flights not updated for this long are dropped, seconds.
    package var liveFlightExpirySeconds: Double
    /// The client thresholds the server sets (low power, in air, accuracy limits); nil from a server older than them,
    /// and before the first session: the client then uses its local defaults.
    package var thresholds: ClientThresholds?
    /// Creates settings.
    package init(
        minimalIntervalSeconds: Double, mediumIntervalSeconds: Double, fastIntervalSeconds: Double,
        tickSeconds: Double, fullRefreshAfterTicks: Int, maxReportsPerBatch: Int, maxRequestBytes: Int,
        liveFlightExpirySeconds: Double, thresholds: ClientThresholds? = nil
    ) {
        self.thresholds = thresholds
        self.minimalIntervalSeconds = minimalIntervalSeconds
        self.mediumIntervalSeconds = mediumIntervalSeconds
        self.fastIntervalSeconds = fastIntervalSeconds
        self.tickSeconds = tickSeconds
        self.fullRefreshAfterTicks = fullRefreshAfterTicks
        self.maxReportsPerBatch = maxReportsPerBatch
        self.maxRequestBytes = maxRequestBytes
        self.liveFlightExpirySeconds = liveFlightExpirySeconds
    }

    /// The documented defaults (minimal 10 min, medium 5 min, fast 1 min; tick 60 s).
    package static let defaults = ServerSettings(
        minimalIntervalSeconds: 600, mediumIntervalSeconds: 300, fastIntervalSeconds: 60,
        tickSeconds: 60, fullRefreshAfterTicks: 60, maxReportsPerBatch: 1000, maxRequestBytes: 1 << 20,
        liveFlightExpirySeconds: 600
    )
}

/// Thresholds a server sets for its clients (`ServerSettings.thresholds`). Every field is optional: a value the server
/// does not send leaves the client's local default in force (docs/protocol.md "Client thresholds").
package struct ClientThresholds: Sendable, Codable, Equatable {
    /// Below this ground speed (after landing) the client may enter low power mode, knots.
    package var lowPowerSpeedKnots: Double?
    /// How long the aircraft must stay on the ground and slow before low power mode, seconds.
    package var lowPowerAfterSeconds: Double?
    /// A climb of this much above the last on-ground altitude counts as in the air, feet.
    package var inAirAltitudeFeet: Double?
    /// At or above this ground speed the aircraft counts as in the air, knots.
    package var inAirSpeedKnots: Double?
    /// Fixes whose horizontal accuracy (68 % radius) is worse than this are not used for position, metres.
    package var maximumHorizontalAccuracyMeters: Double?
    /// Fixes whose vertical accuracy (68 %) is worse than this have their GNSS altitude ignored, metres.
    package var maximumVerticalAccuracyMeters: Double?

    /// Creates thresholds (nil: not set by the server).
    package init(lowPowerSpeedKnots: Double? = nil, lowPowerAfterSeconds: Double? = nil, inAirAltitudeFeet: Double? = nil,
                 inAirSpeedKnots: Double? = nil, maximumHorizontalAccuracyMeters: Double? = nil,
                 maximumVerticalAccuracyMeters: Double? = nil) {
        self.lowPowerSpeedKnots = lowPowerSpeedKnots
        self.lowPowerAfterSeconds = lowPowerAfterSeconds
        self.inAirAltitudeFeet = inAirAltitudeFeet
        self.inAirSpeedKnots = inAirSpeedKnots
        self.maximumHorizontalAccuracyMeters = maximumHorizontalAccuracyMeters
        self.maximumVerticalAccuracyMeters = maximumVerticalAccuracyMeters
    }

    /// What `eddy-server` sends unless told otherwise: the engine's own defaults (30 kt / 300 s low power, 500 ft /
    /// 50 kt in air, 50 m / 100 m accuracy).
    package static let serverDefaults = ClientThresholds(
        lowPowerSpeedKnots: 30, lowPowerAfterSeconds: 300, inAirAltitudeFeet: 500, inAirSpeedKnots: 50,
        maximumHorizontalAccuracyMeters: 50, maximumVerticalAccuracyMeters: 100)

    /// Whether every value is a positive finite number (the server refuses to start with anything else).
    package var isValid: Bool {
        [lowPowerSpeedKnots, lowPowerAfterSeconds, inAirAltitudeFeet, inAirSpeedKnots, maximumHorizontalAccuracyMeters,
         maximumVerticalAccuracyMeters].allSatisfy { $0.map { $0.isFinite && $0 > 0 } ?? true }
    }
}

/// `POST /v1/session` answer: a bearer token and the settings to use.
package struct SessionStartResponse: Sendable, Codable, Equatable {
    /// Bearer token for `Authorization: Bearer …` (secret; never logged).
    package var token: String
    /// Token expiry, Unix seconds (the server answers 401 after it).
    package var expiresAt: Double
    /// Server tick when the session started.
    package var serverTick: Int
    /// Settings the client should follow.
    package var settings: ServerSettings
    /// Creates a response.
    package init(token: String, expiresAt: Double, serverTick: Int, settings: ServerSettings) {
        self.token = token; self.expiresAt = expiresAt; self.serverTick = serverTick; self.settings = settings
    }
}

// MARK: - Report upload

/// `POST /v1/reports` body: a batch of own tile reports; idempotent by `TileReport.id`.
package struct ReportBatch: Sendable, Codable, Equatable {
    /// Reports, at most `ServerSettings.maxReportsPerBatch`.
    package var reports: [TileReport]
    /// Creates a batch.
    package init(reports: [TileReport]) { self.reports = reports }
}

/// `POST /v1/reports` answer: which ids the server now holds.
package struct ReportBatchAck: Sendable, Codable, Equatable {
    /// Every id of the batch the server now holds (new or already known): the client may drop them from its outbox.
    package var acceptedIds: [UUID]
    /// How many were new.
    package var newCount: Int
    /// How many the server already had (a retried upload).
    package var duplicateCount: Int
    /// Reports refused for good (invalid content): the client drops them, retrying cannot help.
    package var rejected: [RejectedReport]
    /// Server tick at ingest.
    package var serverTick: Int
    /// Creates an acknowledgement.
    package init(acceptedIds: [UUID], newCount: Int, duplicateCount: Int, rejected: [RejectedReport] = [], serverTick: Int) {
        self.acceptedIds = acceptedIds; self.newCount = newCount; self.duplicateCount = duplicateCount
        self.rejected = rejected; self.serverTick = serverTick
    }
}

/// A report the server refused, and why.
package struct RejectedReport: Sendable, Codable, Equatable {
    /// The report id.
    package var id: UUID
    /// What is wrong with it.
    package var reason: String
    /// Creates a rejection.
    package init(id: UUID, reason: String) { self.id = id; self.reason = reason }
}

// MARK: - Delta fetch

/// An area: its type and, except for `global`, a polygon ring (≤ 250 vertices, closing vertex optional).
package struct SyncArea: Sendable, Codable, Hashable {
    /// Area type.
    package var type: DataAreaType
    /// Polygon ring, degrees; empty for `global`.
    package var polygon: [GeoPoint]
    /// Creates an area.
    package init(type: DataAreaType, polygon: [GeoPoint] = []) { self.type = type; self.polygon = polygon }
    /// The whole planet.
    package static let global = SyncArea(type: .global)
}

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
    /// Creates a request.
    package init(
        dataType: DataType, area: SyncArea, sinceTick: Int? = nil, historyHours: Double = EddyWire.defaultHistoryHours,
        minLayer: Int = 0, maxLayer: Int = 60, viewerClass: AircraftClass = .medium
    ) {
        self.dataType = dataType; self.area = area; self.sinceTick = sinceTick; self.historyHours = historyHours
        self.minLayer = minLayer; self.maxLayer = maxLayer; self.viewerClass = viewerClass
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

/// The own position for the live-flights layer (the fields of the `POST /v1/position` body).
package typealias PositionUpload = LiveFlight

/// `POST /v1/position` body: the own position (`LiveFlight`'s wire fields) plus, from an aircraft that knows both its
/// GNSS and its pressure altitude, an optional fleet altitude offset `altitudeOffset` (docs/protocol.md).
package struct PositionUploadBody: Sendable, Equatable, Codable {
    /// The position (its wire fields are the body's top-level fields).
    package var position: PositionUpload
    /// The aircraft's measured geometric − pressure altitude offset; nil when it has no pressure source (not sent).
    package var altitudeOffset: AltitudeOffsetObservation?

    /// Creates a body.
    package init(position: PositionUpload, altitudeOffset: AltitudeOffsetObservation? = nil) {
        self.position = position
        self.altitudeOffset = altitudeOffset
    }

    private enum CodingKeys: String, CodingKey { case altitudeOffset }

    /// Reads the position's wire fields and the optional `altitudeOffset` (absent or `null`: none).
    package init(from decoder: any Decoder) throws {
        position = try PositionUpload(from: decoder)
        altitudeOffset = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(AltitudeOffsetObservation.self, forKey: .altitudeOffset)
    }

    /// Writes the position's wire fields, then `altitudeOffset` when there is one.
    package func encode(to encoder: any Encoder) throws {
        try position.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(altitudeOffset, forKey: .altitudeOffset)
    }
}

/// A GeoJSON (RFC 7946) polygon feature of merged tiles.
package struct PolygonFeature: Sendable, Codable, Equatable {
    /// Always `Feature`.
    package var type: String
    /// Geometry.
    package var geometry: PolygonGeometry
    /// Properties.
    package var properties: PolygonProperties
    /// Creates a feature.
    package init(geometry: PolygonGeometry, properties: PolygonProperties) {
        self.type = "Feature"; self.geometry = geometry; self.properties = properties
    }
}

/// GeoJSON Polygon geometry: rings of `[lng, lat]` positions, first ring outer, closed.
package struct PolygonGeometry: Sendable, Codable, Equatable {
    /// Always `Polygon`.
    package var type: String
    /// Rings (outer first), each closed (`first == last`), positions `[lng, lat]` in degrees.
    package var coordinates: [[[Double]]]
    /// Creates a geometry.
    package init(coordinates: [[[Double]]]) { self.type = "Polygon"; self.coordinates = coordinates }
}

/// Properties of a turbulence polygon.
package struct PolygonProperties: Sendable, Codable, Equatable {
    /// Severity name (as `Severity.name`) for the viewer class of the request.
    package var severity: String
    /// Lowest layer of the band (thousands of feet).
    package var layerMin: Int
    /// Highest layer of the band (thousands of feet).
    package var layerMax: Int
    /// History window, hours.
    package var historyHours: Double
    /// Worst peak EDR among the merged tiles.
    package var edrPeak: Double
    /// Number of tiles merged.
    package var tileCount: Int
    /// Creates properties.
    package init(severity: String, layerMin: Int, layerMax: Int, historyHours: Double, edrPeak: Double, tileCount: Int) {
        self.severity = severity; self.layerMin = layerMin; self.layerMax = layerMax; self.historyHours = historyHours
        self.edrPeak = edrPeak; self.tileCount = tileCount
    }
}

/// A GeoJSON FeatureCollection of turbulence polygons.
package struct PolygonCollection: Sendable, Codable, Equatable {
    /// Always `FeatureCollection`.
    package var type: String
    /// Features.
    package var features: [PolygonFeature]
    /// Creates a collection.
    package init(features: [PolygonFeature]) { self.type = "FeatureCollection"; self.features = features }
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
    /// with turbulence answers, full or delta; nil: not sent, e.g. by an older server).
    package var altitudeOffsets: [AltitudeOffsetCell]?
    /// Creates a response.
    package init(
        dataType: DataType, serverTick: Int, full: Bool, observations: [Observation] = [],
        nowcast: [NowcastCell] = [], polygons: PolygonCollection? = nil, liveFlights: [LiveFlight] = [],
        altitudeOffsets: [AltitudeOffsetCell]? = nil
    ) {
        self.dataType = dataType; self.serverTick = serverTick; self.full = full; self.observations = observations
        self.nowcast = nowcast; self.polygons = polygons; self.liveFlights = liveFlights
        self.altitudeOffsets = altitudeOffsets
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

/// Error body of every non-2xx answer.
package struct ErrorBody: Sendable, Codable, Equatable {
    /// Machine-readable code (`sessionExpired`, `keyRevoked`, `clientTooOld`, `rateLimited`, `badRequest`, …).
    package var error: String
    /// Human-readable explanation (never contains secrets).
    package var message: String
    /// Seconds to wait before retrying (429 and 503 only).
    package var retryAfterSeconds: Double?
    /// Creates an error body.
    package init(error: String, message: String, retryAfterSeconds: Double? = nil) {
        self.error = error; self.message = message; self.retryAfterSeconds = retryAfterSeconds
    }
}

/// Semantic version comparison for `clientVersion` (`MAJOR.MINOR.PATCH`, missing parts are 0).
package struct WireVersion: Sendable, Comparable, CustomStringConvertible {
    /// Numeric parts.
    package var parts: [Int]
    /// Parses `1.2.3`; nil when a part is not a non-negative integer or there are more than 3.
    package init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard let value = Int(piece), value >= 0 else { return nil }
            parts.append(value)
        }
        while parts.count < 3 { parts.append(0) }
        self.parts = parts
    }
    /// Lexicographic order of the parts.
    package static func < (lhs: WireVersion, rhs: WireVersion) -> Bool { lhs.parts.lexicographicallyPrecedes(rhs.parts) }
    /// `MAJOR.MINOR.PATCH`.
    package var description: String { parts.map(String.init).joined(separator: ".") }
}

/// Geometry helpers both sides use for areas.
package enum AreaGeometry {
    /// Whether `point` lies inside the ring `polygon` (even-odd rule, planar in degrees; the ring may be open or closed).
    package static func contains(_ polygon: [GeoPoint], _ point: GeoPoint) -> Bool {
        guard polygon.count >= 3 else { return false }
        var inside = false
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[j]
            if (a.lat > point.lat) != (b.lat > point.lat) {
                let crossLng = (b.lng - a.lng) * (point.lat - a.lat) / (b.lat - a.lat) + a.lng
                if point.lng < crossLng { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Bounding box (minLat, maxLat, minLng, maxLng) of a ring.
    package static func boundingBox(_ polygon: [GeoPoint]) -> (minLat: Double, maxLat: Double, minLng: Double, maxLng: Double) {
        var box = (minLat: Double.infinity, maxLat: -Double.infinity, minLng: Double.infinity, maxLng: -Double.infinity)
        for p in polygon {
            box.minLat = min(box.minLat, p.lat); box.maxLat = max(box.maxLat, p.lat)
            box.minLng = min(box.minLng, p.lng); box.maxLng = max(box.maxLng, p.lng)
        }
        return box
    }

    /// A corridor polygon around a route polyline: `halfWidthNM` each side, as one ring (flat-earth per segment, fine ≤ 250 NM).
    ///
    /// The ring goes out along the left offsets and back along the right offsets (vertices = 2 × route points);
    /// both ends are extended by `halfWidthNM` along the route (square caps), so the end points' tiles are inside.
    package static func corridor(route: [GeoPoint], halfWidthNM: Double) -> [GeoPoint] {
        guard route.count >= 2 else { return [] }
        let degPerNM = 1.0 / 60.0
        func extended(_ from: GeoPoint, beyond to: GeoPoint) -> GeoPoint {
            let cosLat = max(0.01, cos(to.lat * .pi / 180))
            let dx = (to.lng - from.lng) * cosLat, dy = to.lat - from.lat
            let length = max(1e-12, (dx * dx + dy * dy).squareRoot())
            let step = halfWidthNM * degPerNM / length
            return GeoPoint(lat: to.lat + dy * step, lng: to.lng + dx * step / cosLat)
        }
        var route = route
        route[0] = extended(route[1], beyond: route[0])
        route[route.count - 1] = extended(route[route.count - 2], beyond: route[route.count - 1])
        var left: [GeoPoint] = [], right: [GeoPoint] = []
        for (i, p) in route.enumerated() {
            let a = route[max(0, i - 1)], b = route[min(route.count - 1, i + 1)]
            let cosLat = max(0.01, cos(p.lat * .pi / 180))
            let dx = (b.lng - a.lng) * cosLat, dy = b.lat - a.lat
            let length = max(1e-12, (dx * dx + dy * dy).squareRoot())
            let nx = -dy / length, ny = dx / length   // unit normal (east, north)
            let offLat = ny * halfWidthNM * degPerNM, offLng = nx * halfWidthNM * degPerNM / cosLat
            left.append(GeoPoint(lat: p.lat + offLat, lng: p.lng + offLng))
            right.append(GeoPoint(lat: p.lat - offLat, lng: p.lng - offLng))
        }
        return left + right.reversed()
    }
}
