import EddyH3
import EddyProtocol
import EddyVocabulary

/// Geometry of the areas the engine builds itself.
enum EngineGeometry {
    /// A circle of `radiusNM` around a point as an open ring of `vertices` points.
    static func circle(latitude: Double, longitude: Double, radiusNM: Double, vertices: Int = 24) -> [LatLng] {
        (0..<vertices).map { i in
            let p = Geodesy.destination(from: (latitude, longitude), bearingDegrees: Double(i) * 360 / Double(vertices),
                                        distanceNM: radiusNM)
            return LatLng(latitude: p.latitude, longitude: p.longitude)
        }
    }

    /// A ring as wire points.
    static func geoPoints(_ ring: [LatLng]) -> [GeoPoint] { ring.map { GeoPoint(lat: $0.latitude, lng: $0.longitude) } }
}
