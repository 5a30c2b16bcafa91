import EddyH3

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
        guard layerBand >= 0 else { throw .invalidValue(field: "layerBand", value: Double(layerBand)) }
        if let route {
            guard route.count >= 2 else { throw .invalidRoute(pointCount: route.count) }
            for p in route where !(p.latitude.isFinite && p.longitude.isFinite && abs(p.latitude) <= 90) {
                throw .invalidRoutePoint(p)
            }
        }
    }
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
        }
    }
}

/// Who produced a report: this aircraft, or another one (fetched from the server). Alerts and store queries share it.
public enum ReportOrigin: String, Sendable, Hashable, Codable {
    /// This aircraft's own report.
    case own
    /// A report fetched from the server (another aircraft).
    case server
}

/// A tile report considered for alerts.
public struct AlertCandidate: Sendable, Equatable {
    /// The report.
    public var report: TileReport
    /// Who produced it.
    public var origin: ReportOrigin
    /// Report time, seconds (same base as the position time); defaults to the report's exit time.
    public var time: Double
    /// Creates a candidate.
    public init(report: TileReport, origin: ReportOrigin, time: Double? = nil) {
        self.report = report; self.origin = origin; self.time = time ?? report.exitTime
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
    /// Creates a position.
    package init(latitudeDegrees: Double, longitudeDegrees: Double, layer: Int, trackDegrees: Double?, time: Double) {
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        self.layer = layer; self.trackDegrees = trackDegrees; self.time = time
    }
}

/// Which geometry an evaluation used.
public enum AlertMode: String, Sendable, Equatable {
    /// Beam: track ± half angle, out to the look-ahead distance.
    case beam
    /// Route corridor: within the half-width of the route, ahead along it, out to the look-ahead distance.
    case routeCorridor
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
    /// Creates an item.
    public init(tile: TileID, severity: Severity, candidate: AlertCandidate, distanceNM: Double, bearingDegrees: Double) {
        self.tile = tile; self.severity = severity; self.candidate = candidate
        self.distanceNM = distanceNM; self.bearingDegrees = bearingDegrees
    }
}

/// The result of one evaluation: the mode used and the alerting tiles, nearest first.
package struct AlertEvaluation: Sendable, Equatable {
    /// Geometry used.
    package var mode: AlertMode
    /// Alerting tiles, nearest first (ties by tile id).
    package var items: [AlertItem]
    /// Creates an evaluation.
    package init(mode: AlertMode, items: [AlertItem]) { self.mode = mode; self.items = items }
}

extension AlertPosition {
    /// The position of a location fix in a known layer (the altitude estimate's); track from the course.
    package init(fix: LocationSample, layer: Int) {
        let track = fix.courseDegrees.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        self.init(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                  layer: layer, trackDegrees: track, time: fix.t)
    }

    /// The position of a location fix: layer from `layerAltitudeFeet` (external pressure altitude preferred),
    /// track from the course; nil when the fix has no altitude.
    package init?(fix: LocationSample) {
        guard let altitude = fix.layerAltitudeFeet, altitude.isFinite else { return nil }
        let track = fix.courseDegrees.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        self.init(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                  layer: TileID.layer(altitudeFeet: altitude), trackDegrees: track, time: fix.t)
    }
}
