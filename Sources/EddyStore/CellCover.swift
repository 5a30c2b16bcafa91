import EddyH3
import EddyVocabulary
import Foundation

/// Turns query areas into the set of H3 resolution-5 cells (tiles) to read.
enum CellCover {
    /// Mean Earth radius used by H3, km.
    static let earthRadiusKm = 6371.007180918475
    /// One nautical mile, km.
    static let kmPerNauticalMile = 1.852
    /// Average area of a resolution-5 hexagon, km² (H3 table).
    static let averageCellAreaKm2 = 252.903858182
    /// Spacing of the points sampled along a route to find the cells it passes through, km (well under the
    /// ≈ 7.4 km in-radius of a resolution-5 hexagon).
    static let routeSampleSpacingKm = 2.0

    /// Checks a coordinate list (finite, within ±90° / ±180°) and drops a closing duplicate and repeated points.
    static func cleaned(_ points: [LatLng]) throws(QueryError) -> [LatLng] {
        var result: [LatLng] = []
        result.reserveCapacity(points.count)
        for (index, point) in points.enumerated() {
            guard point.latitude.isFinite, point.longitude.isFinite, abs(point.latitude) <= 90, abs(point.longitude) <= 180 else {
                throw .invalidCoordinate(index: index, latitude: point.latitude, longitude: point.longitude)
            }
            if result.last != point { result.append(point) }
        }
        return result
    }

    /// Cells whose centre lies inside the polygon (H3 `polygonToCells`, centre containment).
    static func polygon(_ ring: [LatLng]) throws(QueryError) -> [UInt64] {
        guard ring.count <= QueryLimits.maximumPolygonCoordinates else {
            throw .polygonTooManyCoordinates(count: ring.count, maximum: QueryLimits.maximumPolygonCoordinates)
        }
        var vertices = try cleaned(ring)
        if vertices.count > 1, vertices.first == vertices.last { vertices.removeLast() }
        guard Set(vertices).count >= 3 else { throw .polygonTooFewCoordinates(count: Set(vertices).count) }
        let estimate = Int((sphericalAreaKm2(vertices) / averageCellAreaKm2).rounded(.up))
        guard estimate <= QueryLimits.maximumCells else {
            throw .areaTooLarge(estimatedCells: estimate, maximum: QueryLimits.maximumCells)
        }
        do {
            return try H3.polygonToCells(outer: vertices, resolution: TileID.h3Resolution).map(\.rawValue).sorted()
        } catch {
            // The coordinates were checked above; H3 only fails on geometry it cannot handle.
            throw .areaTooLarge(estimatedCells: estimate, maximum: QueryLimits.maximumCells)
        }
    }

    /// Area of a simple polygon on the sphere (the smaller of the two regions its ring bounds), km².
    static func sphericalAreaKm2(_ vertices: [LatLng]) -> Double {
        // Sum of (λ2 − λ1)(2 + sin φ1 + sin φ2) / 2 over the edges (Chamberlain & Duquette 2007).
        var total = 0.0
        for index in vertices.indices {
            let a = vertices[index]
            let b = vertices[(index + 1) % vertices.count]
            var deltaLongitude = (b.longitude - a.longitude) * .pi / 180
            if deltaLongitude > .pi { deltaLongitude -= 2 * .pi }
            if deltaLongitude < -.pi { deltaLongitude += 2 * .pi }
            total += deltaLongitude * (2 + sin(a.latitude * .pi / 180) + sin(b.latitude * .pi / 180))
        }
        let sphere = 4 * Double.pi
        var area = abs(total / 2)
        area = min(area, sphere - area)
        return area * earthRadiusKm * earthRadiusKm
    }

    /// A unit vector on the sphere.
    struct Vector {
        var x: Double
        var y: Double
        var z: Double

        init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }

        init(_ point: LatLng) {
            let latitude = point.latitude * .pi / 180
            let longitude = point.longitude * .pi / 180
            x = cos(latitude) * cos(longitude)
            y = cos(latitude) * sin(longitude)
            z = sin(latitude)
        }

        func dot(_ other: Vector) -> Double { x * other.x + y * other.y + z * other.z }
        func cross(_ other: Vector) -> Vector {
            Vector(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
        }
        var length: Double { sqrt(dot(self)) }
        func scaled(_ factor: Double) -> Vector { Vector(x: x * factor, y: y * factor, z: z * factor) }
        func plus(_ other: Vector) -> Vector { Vector(x: x + other.x, y: y + other.y, z: z + other.z) }
        var normalized: Vector { scaled(1 / length) }
        var latLng: LatLng {
            LatLng(latitude: atan2(z, sqrt(x * x + y * y)) * 180 / .pi, longitude: atan2(y, x) * 180 / .pi)
        }
    }

    /// One great-circle segment of a route, with what the distance test needs.
    struct Segment {
        let start: Vector
        let end: Vector
        /// Unit normal of the segment's great circle (nil for a degenerate segment).
        let normal: Vector?
        /// Midpoint and the angle from it that bounds the whole segment plus the corridor (a quick reject).
        let middle: Vector
        let cosReach: Double

        init(_ a: LatLng, _ b: LatLng, widthRadians: Double) {
            start = Vector(a)
            end = Vector(b)
            let normalVector = start.cross(end)
            normal = normalVector.length > 1e-15 ? normalVector.normalized : nil
            let sum = start.plus(end)
            middle = sum.length > 1e-15 ? sum.normalized : start
            let halfLength = acos(max(-1, min(1, start.dot(end)))) / 2
            cosReach = cos(min(.pi, halfLength + widthRadians + 1e-9))
        }

        /// Angular distance (radians) from `point` to the segment, or nil when certainly beyond `reach`.
        func distance(to point: Vector) -> Double? {
            if point.dot(middle) < cosReach { return nil }
            let toStart = acos(max(-1, min(1, point.dot(start))))
            let toEnd = acos(max(-1, min(1, point.dot(end))))
            guard let normal else { return min(toStart, toEnd) }
            // The nearest point of the great circle lies within the arc when it is on the inner side of both ends.
            let offPlane = point.dot(normal)
            let projected = Vector(x: point.x - normal.x * offPlane, y: point.y - normal.y * offPlane, z: point.z - normal.z * offPlane)
            if start.cross(projected).dot(normal) >= 0, projected.cross(end).dot(normal) >= 0 {
                return asin(min(1, abs(offPlane)))
            }
            return min(toStart, toEnd)
        }
    }

    /// Cells whose centre lies within `widthNM` of the route, plus the cells the route passes through
    /// (sampled every 2 km). A flood fill from the route's own cells through neighbours whose centre is in the corridor.
    static func route(_ points: [LatLng], widthNM: Double) throws(QueryError) -> [UInt64] {
        guard points.count <= QueryLimits.maximumRouteCoordinates else {
            throw .routeTooManyCoordinates(count: points.count, maximum: QueryLimits.maximumRouteCoordinates)
        }
        guard widthNM.isFinite, widthNM > 0, widthNM <= QueryLimits.maximumRouteWidthNM else {
            throw .invalidRouteWidth(nauticalMiles: widthNM, maximum: QueryLimits.maximumRouteWidthNM)
        }
        let vertices = try cleaned(points)
        guard vertices.count >= 2 else { throw .routeTooFewCoordinates(count: vertices.count) }
        let widthRadians = widthNM * kmPerNauticalMile / earthRadiusKm
        let segments = zip(vertices, vertices.dropFirst()).map { Segment($0, $1, widthRadians: widthRadians) }
        // Rough size check: length × (2 × width + one cell).
        let lengthKm = segments.reduce(0.0) { $0 + acos(max(-1, min(1, $1.start.dot($1.end)))) } * earthRadiusKm
        let estimate = Int((lengthKm * (2 * widthNM * kmPerNauticalMile + 17) / averageCellAreaKm2).rounded(.up))
        guard estimate <= QueryLimits.maximumCells else {
            throw .areaTooLarge(estimatedCells: estimate, maximum: QueryLimits.maximumCells)
        }
        do {
            var accepted = Set<H3Index>()
            var queue: [H3Index] = []
            // Seeds: the cells containing points sampled along each segment.
            for segment in segments {
                let angle = acos(max(-1, min(1, segment.start.dot(segment.end))))
                let steps = max(1, Int((angle * earthRadiusKm / routeSampleSpacingKm).rounded(.up)))
                for step in 0...steps {
                    let point = slerp(segment.start, segment.end, angle: angle, fraction: Double(step) / Double(steps))
                    let location = point.latLng
                    let cell = try H3.latLngToCell(
                        latitude: location.latitude, longitude: location.longitude, resolution: TileID.h3Resolution)
                    if accepted.insert(cell).inserted { queue.append(cell) }
                }
            }
            var rejected = Set<H3Index>()
            var head = 0
            while head < queue.count {
                let cell = queue[head]
                head += 1
                for neighbour in try H3.gridDisk(cell, k: 1) where !accepted.contains(neighbour) && !rejected.contains(neighbour) {
                    let centre = Vector(try H3.cellToLatLng(neighbour))
                    let inside = segments.contains { segment in
                        if let distance = segment.distance(to: centre) { return distance <= widthRadians }
                        return false
                    }
                    if inside {
                        accepted.insert(neighbour)
                        queue.append(neighbour)
                    } else {
                        rejected.insert(neighbour)
                    }
                }
            }
            return accepted.map(\.rawValue).sorted()
        } catch {
            throw .areaTooLarge(estimatedCells: estimate, maximum: QueryLimits.maximumCells)
        }
    }

    /// The point a fraction of the way along the great circle from `a` to `b` (`angle` = the angle between them).
    static func slerp(_ a: Vector, _ b: Vector, angle: Double, fraction: Double) -> Vector {
        if angle < 1e-12 { return a }
        let sinAngle = sin(angle)
        let wa = sin((1 - fraction) * angle) / sinAngle
        let wb = sin(fraction * angle) / sinAngle
        return a.scaled(wa).plus(b.scaled(wb)).normalized
    }
}
