public import EddyH3
public import EddyVocabulary

/// What an alert looks for, with the anchor SDK's defaults (docs/alerts.md).
public struct AlertQuery: Sendable, Equatable {
    /// Lowest severity (for the viewer's class) that alerts; `.none` counts as `.light` (smooth never alerts).
    public var minimumSeverity: Severity = .light
    /// Farthest report that alerts, nautical miles (great-circle distance to the tile centre).
    public var lookAheadNM: Double = 100
    /// Half-width of the beam around the track, degrees (beam = track ± this).
    public var beamHalfAngleDegrees: Double = 15
    /// Route polyline (≥ 2 points) for corridor mode; nil for beam mode only.
    public var route: [LatLng]? = nil
    /// Alert area (a ring of 3…250 vertices, closed or open): tiles whose centre lies inside it alert, ahead or not
    /// (polygon mode). Set either this or `route`, not both.
    public var polygon: [LatLng]? = nil
    /// Only items reached within this many seconds at the current ground speed alert (along the track: the near
    /// edge of the tile's hexagon); nil: no time limit. Items with no time to reach (not moving) are left out.
    public var timeFrameSeconds: Double? = nil
    /// Half-width of the route corridor, nautical miles (20 NM each side = 40 NM corridor).
    public var corridorHalfWidthNM: Double = 20
    /// Off-route distance beyond which corridor mode switches to beam mode, nautical miles.
    public var switchToBeamOffRouteNM: Double = 20
    /// Layers above and below the current layer that count (2 → current ± 2 layers of 1000 ft).
    public var layerBand: Int = 2
    /// Own reports younger than this are ignored (the crew felt them), seconds.
    public var excludeOwnSeconds: Double = 3600
    /// Reports older than this are ignored, seconds; nil keeps every candidate given.
    public var maximumAgeSeconds: Double? = nil
    /// Class of the viewing aircraft: severity is derived from EDR for it.
    public var viewerClass: AircraftClass = .medium
    /// Below which altitude the engine sends no alerts (docs/alerts.md "Alert floor"); default: 10,000 ft for medium
    /// and large aircraft (the anchor SDK's policy), none for small ones.
    public var floor: AlertFloor = .byAircraftClass

    /// The floor in force for the viewer's class, feet of pressure altitude (nil: none).
    public var floorFeet: Double? {
        switch floor {
        case .byAircraftClass: viewerClass == .small ? nil : AlertFloor.transportFloorFeet
        case .none: nil
        case .feet(let feet): feet
        }
    }

    /// Most vertices an alert polygon may have (the anchor SDK's limit).
    public static let maximumPolygonCoordinates = 250

    /// Creates a query with the defaults.
    public init() {}

    /// Checks the query; throws a typed error naming the bad field.
    public func validate() throws(AlertQueryError) {
        func positive(_ v: Double, _ name: String) throws(AlertQueryError) {
            guard v.isFinite, v > 0 else { throw .invalidValue(field: name, value: v) }
        }
        try positive(lookAheadNM, "lookAheadNM")
        try positive(corridorHalfWidthNM, "corridorHalfWidthNM")
        try positive(switchToBeamOffRouteNM, "switchToBeamOffRouteNM")
        guard beamHalfAngleDegrees.isFinite, beamHalfAngleDegrees > 0, beamHalfAngleDegrees <= 180 else {
            throw .invalidValue(field: "beamHalfAngleDegrees", value: beamHalfAngleDegrees)
        }
        guard excludeOwnSeconds.isFinite, excludeOwnSeconds >= 0 else {
            throw .invalidValue(field: "excludeOwnSeconds", value: excludeOwnSeconds)
        }
        if let maximumAgeSeconds { try positive(maximumAgeSeconds, "maximumAgeSeconds") }
        if let timeFrameSeconds { try positive(timeFrameSeconds, "timeFrameSeconds") }
        if let polygon {
            guard route == nil else { throw .routeAndPolygon }
            guard polygon.count <= Self.maximumPolygonCoordinates else {
                throw .polygonTooManyCoordinates(count: polygon.count, maximum: Self.maximumPolygonCoordinates)
            }
            for (index, p) in polygon.enumerated()
            where !(p.latitude.isFinite && p.longitude.isFinite && abs(p.latitude) <= 90 && abs(p.longitude) <= 180) {
                throw .invalidPolygonPoint(index: index, p)
            }
            let open = polygon.count > 1 && polygon.first == polygon.last ? Array(polygon.dropLast()) : polygon
            guard Set(open).count >= 3 else { throw .invalidPolygon(pointCount: Set(open).count) }
        }
        if case .feet(let feet) = floor, !feet.isFinite { throw .invalidValue(field: "floor", value: feet) }
        guard layerBand >= 0 else { throw .invalidValue(field: "layerBand", value: Double(layerBand)) }
        if let route {
            guard route.count >= 2 else { throw .invalidRoute(pointCount: route.count) }
            for p in route where !(p.latitude.isFinite && p.longitude.isFinite && abs(p.latitude) <= 90) {
                throw .invalidRoutePoint(p)
            }
        }
    }
}

/// The altitude below which no alert is sent (docs/alerts.md "Alert floor").
public enum AlertFloor: Sendable, Equatable {
    /// 10,000 ft of pressure altitude for medium and large aircraft (`transportFloorFeet`, the anchor SDK's policy:
    /// below it an airliner is climbing or descending through the terminal area and the crew is busy), none for
    /// small aircraft (they cruise below it, where their turbulence is).
    case byAircraftClass
    /// Alerts at every altitude.
    case none
    /// Alerts only at or above this pressure altitude, feet.
    case feet(Double)

    /// The default floor of medium and large aircraft, feet.
    public static let transportFloorFeet = 10_000.0
}

/// A bad alert query or position.
public enum AlertQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A numeric field is out of range.
    case invalidValue(field: String, value: Double)
    /// The route has fewer than 2 points.
    case invalidRoute(pointCount: Int)
    /// A route point is not a valid position.
    case invalidRoutePoint(LatLng)
    /// The own position is not a valid position.
    case invalidPosition(latitude: Double, longitude: Double)
    /// The alert polygon has fewer than 3 distinct vertices.
    case invalidPolygon(pointCount: Int)
    /// The alert polygon has more vertices than allowed.
    case polygonTooManyCoordinates(count: Int, maximum: Int)
    /// An alert polygon vertex is not a valid position.
    case invalidPolygonPoint(index: Int, LatLng)
    /// Both a route and a polygon were set.
    case routeAndPolygon

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .invalidValue(let field, let value):
            "alert query field \(field) = \(value) is out of range: use a finite positive value (beam angle ≤ 180°, layer band ≥ 0)"
        case .invalidRoute(let n):
            "alert query route has \(n) point(s): give at least 2, or nil for beam mode"
        case .invalidRoutePoint(let p):
            "alert query route point \(p) is not a valid position: latitude must be within ±90° and both finite"
        case .invalidPosition(let lat, let lon):
            "own position (\(lat), \(lon)) is not valid: latitude within ±90°, both finite"
        case .invalidPolygon(let n):
            "alert query polygon has \(n) distinct vertices: give at least 3, or nil"
        case .polygonTooManyCoordinates(let n, let maximum):
            "alert query polygon has \(n) coordinates: at most \(maximum) are allowed. Simplify it."
        case .invalidPolygonPoint(let index, let p):
            "alert query polygon vertex #\(index + 1) \(p) is not valid: latitude within ±90°, longitude within ±180°, both finite"
        case .routeAndPolygon:
            "alert query has both a route and a polygon: set one of them (route: corridor mode, polygon: alert area)"
        }
    }
}

/// A tile report considered for alerts.
public struct AlertCandidate: Sendable, Equatable {
    /// The report.
    public var report: TileReport
    /// Who produced it.
    public var origin: ReportOrigin
    /// Report time, seconds (same base as the position time); defaults to the report's exit time.
    public var time: Double
    /// Where the value comes from: a fleet measurement (every report), or a nowcast cell dominated by a pilot report or
    /// a forecast (docs/alerts.md "Provenance").
    public var provenance: TurbulenceProvenance
    /// Creates a candidate.
    public init(report: TileReport, origin: ReportOrigin, time: Double? = nil, provenance: TurbulenceProvenance = .fleetMeasured) {
        self.report = report; self.origin = origin; self.time = time ?? report.exitTime; self.provenance = provenance
    }
}

/// The own aircraft's state for an alert evaluation.
package struct AlertPosition: Sendable, Equatable {
    /// Latitude, degrees.
    package var latitudeDegrees: Double
    /// Longitude, degrees.
    package var longitudeDegrees: Double
    /// Current 1000 ft layer (`TileID.layer(altitudeFeet:)`).
    package var layer: Int
    /// Track over ground, degrees true; nil when unknown (the beam is then a full circle).
    package var trackDegrees: Double?
    /// Current time, seconds (same base as candidate times).
    package var time: Double
    /// Ground speed, knots (nil: unknown; then no item has a time to reach).
    package var groundSpeedKnots: Double?
    /// Creates a position.
    package init(latitudeDegrees: Double, longitudeDegrees: Double, layer: Int, trackDegrees: Double?, time: Double,
                 groundSpeedKnots: Double? = nil) {
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        self.layer = layer; self.trackDegrees = trackDegrees; self.time = time; self.groundSpeedKnots = groundSpeedKnots
    }

    /// The motion along-track fields are computed from.
    package var motion: OwnMotion {
        OwnMotion(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees, trackDegrees: trackDegrees,
                  groundSpeedKnots: groundSpeedKnots)
    }
}

/// Which geometry an evaluation used.
public enum AlertMode: String, Sendable, Equatable {
    /// Beam: track ± half angle, out to the look-ahead distance.
    case beam
    /// Route corridor: within the half-width of the route, ahead along it, out to the look-ahead distance.
    case routeCorridor
    /// Alert area: tile centres inside the query's polygon, out to the look-ahead distance.
    case polygon
}

/// What answered an alert evaluation.
public enum AlertSource: String, Sendable, Equatable {
    /// Nothing alerts (reports in the area are all milder than the minimum, or there is nothing at all).
    case none
    /// Tile reports in the alert area.
    case reports
    /// No report exists in the alert area: turbulence polygons there answered (the fallback).
    case turbulencePolygons
}

/// A typed turbulence polygon: an outline of merged tiles of one severity over a band of layers.
public struct TurbulencePolygon: Sendable, Equatable, Hashable {
    /// Severity it outlines (for the viewer class the server drew it for).
    public var severity: Severity
    /// Lowest and highest layer of its band (thousands of feet).
    public var layers: ClosedRange<Int>
    /// Rings of `LatLng`, outer first, holes after; closed (first == last).
    public var rings: [[LatLng]]
    /// Worst peak EDR among the merged tiles.
    public var edrPeak: Double
    /// Number of tiles merged.
    public var tileCount: Int
    /// Creates a polygon.
    public init(severity: Severity, layers: ClosedRange<Int>, rings: [[LatLng]], edrPeak: Double, tileCount: Int) {
        self.severity = severity; self.layers = layers; self.rings = rings; self.edrPeak = edrPeak; self.tileCount = tileCount
    }

    /// Whether a position lies inside the outer ring and in no hole.
    package func contains(_ p: Geodesy.Point) -> Bool {
        guard let outer = rings.first, PlanarPolygon.contains(outer, p) else { return false }
        return !rings.dropFirst().contains { PlanarPolygon.contains($0, p) }
    }
}

/// A turbulence polygon that alerts (fallback): the nearest point of the alert area inside it.
public struct PolygonAlertItem: Sendable, Equatable {
    /// The polygon.
    public var polygon: TurbulencePolygon
    /// Great-circle distance from the own position to the nearest sampled alert-area point inside it, NM.
    public var distanceNM: Double
    /// Initial bearing to that point, degrees true.
    public var bearingDegrees: Double
    /// Creates an item.
    public init(polygon: TurbulencePolygon, distanceNM: Double, bearingDegrees: Double) {
        self.polygon = polygon; self.distanceNM = distanceNM; self.bearingDegrees = bearingDegrees
    }
}

/// One tile that alerts.
public struct AlertItem: Sendable, Equatable {
    /// The tile.
    public var tile: TileID
    /// Severity for the viewer's class (worst report of the tile).
    public var severity: Severity
    /// The report that set the severity.
    public var candidate: AlertCandidate
    /// Great-circle distance from the own position to the tile centre, nautical miles.
    public var distanceNM: Double
    /// Initial bearing from the own position to the tile centre, degrees true.
    public var bearingDegrees: Double
    /// Distance, time to reach and time to pass along the track (nil when the track is unknown or the tile is not
    /// ahead; docs/engine.md "Along the track").
    public var alongTrack: AlongTrack?
    /// Where the alerting value comes from: measured by the fleet, or a pilot report's or a forecast's nowcast cell.
    public var provenance: TurbulenceProvenance { candidate.provenance }
    /// Creates an item.
    public init(tile: TileID, severity: Severity, candidate: AlertCandidate, distanceNM: Double, bearingDegrees: Double,
                alongTrack: AlongTrack? = nil) {
        self.tile = tile; self.severity = severity; self.candidate = candidate
        self.distanceNM = distanceNM; self.bearingDegrees = bearingDegrees; self.alongTrack = alongTrack
    }
}

/// The result of one evaluation: the mode used and the alerting tiles, nearest first.
package struct AlertEvaluation: Sendable, Equatable {
    /// Geometry used.
    package var mode: AlertMode
    /// Alerting tiles, nearest first (ties by tile id).
    package var items: [AlertItem]
    /// Reports of any severity inside the alert area (after the age, own and layer filters).
    package var reportsInArea: Int
    /// Turbulence polygons that alert, nearest first (only when no report is in the area).
    package var polygonItems: [PolygonAlertItem]
    /// What answered.
    package var source: AlertSource {
        !items.isEmpty ? .reports : !polygonItems.isEmpty ? .turbulencePolygons : .none
    }
    /// Creates an evaluation.
    package init(mode: AlertMode, items: [AlertItem], reportsInArea: Int = 0, polygonItems: [PolygonAlertItem] = []) {
        self.mode = mode; self.items = items; self.reportsInArea = reportsInArea; self.polygonItems = polygonItems
    }
}

extension AlertPosition {
    /// The position of a location fix in a known layer (the altitude estimate's); track from the course.
    package init(fix: LocationSample, layer: Int) {
        let motion = OwnMotion(fix: fix)
        self.init(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                  layer: layer, trackDegrees: motion.trackDegrees, time: fix.t, groundSpeedKnots: motion.groundSpeedKnots)
    }

    /// The position of a location fix: layer from `layerAltitudeFeet` (external pressure altitude preferred),
    /// track from the course; nil when the fix has no altitude.
    package init?(fix: LocationSample) {
        guard let altitude = fix.layerAltitudeFeet, altitude.isFinite else { return nil }
        let motion = OwnMotion(fix: fix)
        self.init(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                  layer: TileID.layer(altitudeFeet: altitude), trackDegrees: motion.trackDegrees, time: fix.t,
                  groundSpeedKnots: motion.groundSpeedKnots)
    }
}
