import EddyH3
package import EddyVocabulary

/// One point of a flight's track (already decimated by the caller or by `TrackDecimation`).
package struct MapTrackPoint: Sendable, Equatable {
    /// Time, seconds (Unix epoch when `MapPage.timesAreEpoch`, else the log's time base).
    package var t: Double
    /// Latitude, degrees (nil before the first fix).
    package var latitudeDegrees: Double?
    /// Longitude, degrees.
    package var longitudeDegrees: Double?
    /// Pressure altitude, feet.
    package var pressureAltitudeFeet: Double
    /// GNSS altitude above mean sea level, feet (nil when the fix had none).
    package var gnssAltitudeFeet: Double?
    /// The 1000-ft layer of the pressure altitude.
    package var layer: Int

    /// Creates a track point.
    package init(t: Double, latitudeDegrees: Double?, longitudeDegrees: Double?, pressureAltitudeFeet: Double,
                 gnssAltitudeFeet: Double?, layer: Int) {
        self.t = t
        self.latitudeDegrees = latitudeDegrees
        self.longitudeDegrees = longitudeDegrees
        self.pressureAltitudeFeet = pressureAltitudeFeet
        self.gnssAltitudeFeet = gnssAltitudeFeet
        self.layer = layer
    }
}

/// One reported tile: an H3 hexagon at a 1000-ft layer, with its severity and EDR.
package struct MapTile: Sendable, Equatable {
    /// The H3 cell, lower-case hex.
    package var h3: String
    /// The layer (thousands of feet).
    package var layer: Int
    /// Severity for the page's viewer class.
    package var severity: Severity
    /// Peak EDR, m^(2/3) s^-1.
    package var edrPeak: Double
    /// Median EDR, m^(2/3) s^-1.
    package var edrMedian: Double
    /// Entry time (seconds, as the page's times), when known.
    package var enterTime: Double?
    /// Exit time, when known.
    package var exitTime: Double?
    /// Hexagon vertices (latitude, longitude), degrees, in ring order, open.
    package var vertices: [(latitude: Double, longitude: Double)]
    /// Extra hover text (reports count, origin, altitude source), or empty.
    package var detail: String
    /// For a nowcast cell, the source that dominates it (drawn in that source's style, docs/maps.md "Nowcast cells");
    /// nil for a measured report's tile.
    package var provenance: TurbulenceProvenance?

    /// Creates a tile with explicit vertices.
    package init(h3: String, layer: Int, severity: Severity, edrPeak: Double, edrMedian: Double, enterTime: Double? = nil,
                 exitTime: Double? = nil, vertices: [(latitude: Double, longitude: Double)], detail: String = "",
                 provenance: TurbulenceProvenance? = nil) {
        self.provenance = provenance
        self.h3 = h3
        self.layer = layer
        self.severity = severity
        self.edrPeak = edrPeak
        self.edrMedian = edrMedian
        self.enterTime = enterTime
        self.exitTime = exitTime
        self.vertices = vertices
        self.detail = detail
    }

    /// A tile whose vertices are the H3 boundary of `cell`; nil when the cell is not a valid H3 index.
    package init?(cell: UInt64, layer: Int, severity: Severity, edrPeak: Double, edrMedian: Double, enterTime: Double? = nil,
                  exitTime: Double? = nil, detail: String = "", provenance: TurbulenceProvenance? = nil) {
        let index = H3Index(rawValue: cell)
        guard H3.isValidCell(index), let ring = try? H3.cellToBoundary(index) else { return nil }
        self.init(h3: String(cell, radix: 16), layer: layer, severity: severity, edrPeak: edrPeak, edrMedian: edrMedian,
                  enterTime: enterTime, exitTime: exitTime, vertices: ring.map { ($0.latitude, $0.longitude) }, detail: detail,
                  provenance: provenance)
    }

    /// Equal when every field and vertex is equal.
    package static func == (a: MapTile, b: MapTile) -> Bool {
        a.h3 == b.h3 && a.layer == b.layer && a.severity == b.severity && a.edrPeak == b.edrPeak && a.edrMedian == b.edrMedian
            && a.enterTime == b.enterTime && a.exitTime == b.exitTime && a.detail == b.detail && a.provenance == b.provenance
            && a.vertices.count == b.vertices.count
            && zip(a.vertices, b.vertices).allSatisfy { $0.latitude == $1.latitude && $0.longitude == $1.longitude }
    }
}

/// One measured minute (t = end of the minute).
package struct MapMinute: Sendable, Equatable {
    /// End of the minute, seconds.
    package var t: Double
    /// Median EDR of the minute.
    package var edrMedian: Double
    /// Peak EDR of the minute.
    package var edrPeak: Double
    /// Severity of the minute.
    package var severity: Severity

    /// Creates a minute.
    package init(t: Double, edrMedian: Double, edrPeak: Double, severity: Severity) {
        self.t = t
        self.edrMedian = edrMedian
        self.edrPeak = edrPeak
        self.severity = severity
    }
}

/// A time interval with a value: a truth segment (EDR, 0 = smooth) or an out-of-position interval (value unused).
package struct MapInterval: Sendable, Equatable {
    /// Start, seconds.
    package var start: Double
    /// End, seconds.
    package var end: Double
    /// The interval's value (true EDR for truth segments; 0 otherwise).
    package var value: Double

    /// Creates an interval.
    package init(start: Double, end: Double, value: Double = 0) {
        self.start = start
        self.end = end
        self.value = value
    }
}

/// What the page is: one flight (map, profile, EDR chart) or the fleet's recent reports (map with an altitude filter).
package enum MapPageKind: String, Sendable {
    /// A replayed flight: track, tiles, altitude profile, EDR over time.
    case flight
    /// Reports of many flights (a store's or the server's): tiles, altitude filter.
    case fleet
}

/// Everything one page shows; `MapHTML.render` turns it into a self-contained HTML document.
package struct MapPage: Sendable, Equatable {
    /// Flight or fleet page.
    package var kind: MapPageKind
    /// Title (flight name, "Eddy fleet map").
    package var title: String
    /// One line under the title (aircraft, class, time span, query).
    package var subtitle: String
    /// Whether times are Unix epoch seconds (shown as UTC) or the log's own seconds (shown as elapsed time).
    package var timesAreEpoch: Bool
    /// The viewer class whose severity bands colour the tiles and the EDR chart.
    package var viewer: AircraftClass
    /// Track points (decimated).
    package var track: [MapTrackPoint]
    /// Tiles.
    package var tiles: [MapTile]
    /// Measured minutes.
    package var minutes: [MapMinute]
    /// Truth segments (value = true EDR), when the flight has truth.
    package var truth: [MapInterval]
    /// Intervals the device was out of position (shaded in the EDR chart).
    package var outOfPosition: [MapInterval]
    /// How the track was decimated (shown in the page's footer), or empty.
    package var decimationNote: String

    /// Creates a page.
    package init(kind: MapPageKind, title: String, subtitle: String = "", timesAreEpoch: Bool, viewer: AircraftClass = .medium,
                 track: [MapTrackPoint] = [], tiles: [MapTile] = [], minutes: [MapMinute] = [], truth: [MapInterval] = [],
                 outOfPosition: [MapInterval] = [], decimationNote: String = "") {
        self.kind = kind
        self.title = title
        self.subtitle = subtitle
        self.timesAreEpoch = timesAreEpoch
        self.viewer = viewer
        self.track = track
        self.tiles = tiles
        self.minutes = minutes
        self.truth = truth
        self.outOfPosition = outOfPosition
        self.decimationNote = decimationNote
    }
}

/// The one severity palette of Eddy's pictures (docs/maps.md, "Palette"): page tiles, legend and EDR chart.
package enum MapPalette {
    /// `#rrggbb` of each severity, in `Severity` order (none … severe).
    package static let hex: [String] = ["#9ad0a5", "#ffe066", "#ffa94d", "#f76707", "#e03131", "#862e9c"]

    /// The colour of `severity`.
    package static func color(_ severity: Severity) -> String { hex[severity.rawValue] }

    /// Readable names, in `Severity` order.
    package static let labels: [String] = ["smooth", "light", "light–moderate", "moderate", "moderate–severe", "severe"]

    /// How a nowcast cell of each provenance is drawn over its severity colour (docs/maps.md "Nowcast cells"): the
    /// outline's dash pattern (canvas `setLineDash`, px; empty for solid) and the hatch's angle (degrees; nil for none).
    package struct ProvenanceStyle: Sendable, Equatable {
        /// The provenance drawn so.
        package var provenance: TurbulenceProvenance
        /// Legend text.
        package var label: String
        /// Outline dashes, px (empty: solid).
        package var dash: [Int]
        /// Hatch angle, degrees (nil: no hatch).
        package var hatchDegrees: Int?
        /// The legend swatch's CSS (the same outline and hatch, drawn by the browser's CSS).
        package var css: String
    }

    /// The styles: fleet measured solid and unhatched (a measurement), pilot report dashed and hatched one way (a
    /// subjective report), forecast dotted and hatched the other way (a model's prior).
    package static let provenanceStyles: [ProvenanceStyle] = [
        ProvenanceStyle(provenance: .fleetMeasured, label: "nowcast: fleet measured", dash: [], hatchDegrees: nil,
                        css: "border:2px solid #1b1b1b"),
        ProvenanceStyle(provenance: .pilotReport, label: "nowcast: pilot report", dash: [6, 3], hatchDegrees: 45,
                        css: "border:2px dashed #1b1b1b;background-image:repeating-linear-gradient(-45deg,rgba(0,0,0,.55) 0 1.5px,transparent 1.5px 6px)"),
        ProvenanceStyle(provenance: .forecast, label: "nowcast: forecast", dash: [2, 3], hatchDegrees: -45,
                        css: "border:2px dotted #1b1b1b;background-image:repeating-linear-gradient(45deg,rgba(0,0,0,.55) 0 1.5px,transparent 1.5px 6px)"),
    ]

    /// The style of `provenance`.
    package static func style(_ provenance: TurbulenceProvenance) -> ProvenanceStyle {
        provenanceStyles.first { $0.provenance == provenance } ?? provenanceStyles[0]
    }
}
