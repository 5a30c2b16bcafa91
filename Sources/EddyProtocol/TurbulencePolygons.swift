// The polygons layer of a fetch answer: merged turbulence tiles as a GeoJSON (RFC 7946) FeatureCollection.

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
