package import EddyH3

/// Point-in-polygon on latitude/longitude treated as plane coordinates (even–odd rule): the one test for alert areas,
/// turbulence polygons (EddyAlerts) and fetch areas (EddyProtocol, the server); fine for rings that do not cross the
/// antimeridian or a pole (docs/engine.md).
package enum PlanarPolygon {
    /// Whether the point lies inside the ring of `count` vertices that `vertex(i)` gives (open or closed ring).
    @inline(__always)
    package static func contains(
        count: Int, latitude: Double, longitude: Double, vertex: (Int) -> (latitude: Double, longitude: Double)
    ) -> Bool {
        guard count >= 3 else { return false }
        var inside = false
        var j = count - 1
        for i in 0..<count {
            let a = vertex(i), b = vertex(j)
            if (a.latitude > latitude) != (b.latitude > latitude) {
                let x = (b.longitude - a.longitude) * (latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude
                if longitude < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Whether `p` lies inside `ring` (closed or open).
    package static func contains(_ ring: [LatLng], _ p: Geodesy.Point) -> Bool {
        contains(count: ring.count, latitude: p.latitude, longitude: p.longitude) { (ring[$0].latitude, ring[$0].longitude) }
    }
}
