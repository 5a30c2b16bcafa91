package import EddyVocabulary
import Foundation

// Areas of a fetch or an alert: WGS-84 points, an area (type and polygon ring), and the ring geometry both sides use.

/// A WGS-84 point in degrees.
package struct GeoPoint: Sendable, Codable, Hashable {
    /// Latitude, degrees (−90…90).
    package var lat: Double
    /// Longitude, degrees (−180…180).
    package var lng: Double
    /// Creates a point.
    package init(lat: Double, lng: Double) { self.lat = lat; self.lng = lng }
}

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

/// Geometry helpers both sides use for areas.
package enum AreaGeometry {
    /// Whether `point` lies inside the ring `polygon` (even-odd rule, planar in degrees; the ring may be open or closed).
    package static func contains(_ polygon: [GeoPoint], _ point: GeoPoint) -> Bool {
        PlanarPolygon.contains(count: polygon.count, latitude: point.lat, longitude: point.lng) { (polygon[$0].lat, polygon[$0].lng) }
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
