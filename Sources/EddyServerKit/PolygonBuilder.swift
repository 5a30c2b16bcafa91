#if Tools
import EddyProtocol
import EddyVocabulary

/// Merges adjacent tiles of the same layer band and severity into GeoJSON polygons.
///
/// Method: per band, each cell takes the worst peak EDR of its tiles in the band; cells are grouped by the
/// severity that EDR has for the viewer class; each group is split into edge-connected components
/// (breadth-first over `CellGeometry.neighbors`); a component's outline is found by edge cancellation:
/// every cell contributes its counter-clockwise boundary edges, an edge whose reverse is also present is
/// interior and dropped, and the remaining edges chain into rings. The ring with the largest area is the
/// outer ring (counter-clockwise), the others are holes (clockwise), as RFC 7946 asks.
struct PolygonBuilder {
    /// One tile's worst peak EDR.
    struct TileEDR: Sendable { var cell: UInt64; var layer: Int; var edrPeak: Double }

    let geometry: any CellGeometry
    /// Layers per band (5 → FL000–049, FL050–099, …).
    let layersPerBand: Int

    /// Builds the features for `tiles` seen by `viewer` over a history window of `historyHours`.
    func build(tiles: [TileEDR], viewer: AircraftClass, historyHours: Double) -> [PolygonFeature] {
        // (band, cell) → worst EDR.
        var worst: [BandCell: Double] = [:]
        for tile in tiles {
            let band = Self.floorDiv(tile.layer, layersPerBand)
            let key = BandCell(band: band, cell: tile.cell)
            worst[key] = max(worst[key] ?? 0, tile.edrPeak)
        }
        // (band, severity) → cells with their EDR.
        var groups: [GroupKey: [UInt64: Double]] = [:]
        for (key, edr) in worst {
            let severity = SeverityScale.severity(edr: edr, viewer: viewer)
            guard severity > .none else { continue }
            groups[GroupKey(band: key.band, severity: severity), default: [:]][key.cell] = edr
        }
        var features: [PolygonFeature] = []
        for groupKey in groups.keys.sorted(by: { ($0.band, $0.severity.rawValue) < ($1.band, $1.severity.rawValue) }) {
            let cells = groups[groupKey]!
            for component in components(of: Set(cells.keys)) {
                let rings = outline(of: component)
                guard !rings.isEmpty else { continue }
                let edrPeak = component.map { cells[$0]! }.max() ?? 0
                features.append(PolygonFeature(
                    geometry: PolygonGeometry(coordinates: rings.map { ring in ring.map { [$0.lng, $0.lat] } }),
                    properties: PolygonProperties(
                        severity: groupKey.severity.name,
                        layerMin: groupKey.band * layersPerBand, layerMax: groupKey.band * layersPerBand + layersPerBand - 1,
                        historyHours: historyHours, edrPeak: edrPeak, tileCount: component.count
                    )
                ))
            }
        }
        return features
    }

    /// Edge-connected components of a cell set, each sorted (deterministic output).
    func components(of cells: Set<UInt64>) -> [[UInt64]] {
        var seen = Set<UInt64>()
        var result: [[UInt64]] = []
        for start in cells.sorted() where !seen.contains(start) {
            var component: [UInt64] = []
            var queue = [start]
            seen.insert(start)
            while let cell = queue.popLast() {
                component.append(cell)
                for next in geometry.neighbors(of: cell) where cells.contains(next) && !seen.contains(next) {
                    seen.insert(next)
                    queue.append(next)
                }
            }
            result.append(component.sorted())
        }
        return result
    }

    /// Closed rings (first == last) outlining a connected cell set; outer ring first.
    func outline(of cells: [UInt64]) -> [[GeoPoint]] {
        var edges: [VertexKey: [VertexKey]] = [:]   // start → ends (directed, after cancellation)
        var points: [VertexKey: GeoPoint] = [:]
        var directed: [Edge: Int] = [:]
        for cell in cells {
            let ring = geometry.boundary(of: cell)
            guard ring.count >= 3 else { continue }
            for i in 0..<ring.count {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                let ka = VertexKey(a), kb = VertexKey(b)
                guard ka != kb else { continue }
                points[ka] = points[ka] ?? a
                points[kb] = points[kb] ?? b
                let reverse = Edge(from: kb, to: ka)
                if let count = directed[reverse], count > 0 {
                    directed[reverse] = count - 1
                } else {
                    directed[Edge(from: ka, to: kb), default: 0] += 1
                }
            }
        }
        for (edge, count) in directed where count > 0 {
            for _ in 0..<count { edges[edge.from, default: []].append(edge.to) }
        }
        var rings: [[GeoPoint]] = []
        for start in edges.keys.sorted() {
            while let first = edges[start]?.popLast() {
                var ring = [points[start]!]
                var current = first
                var guardSteps = 0
                while current != start, guardSteps < 1_000_000 {
                    ring.append(points[current]!)
                    guard let next = edges[current]?.popLast() else { break }
                    current = next
                    guardSteps += 1
                }
                ring.append(points[start]!)
                if ring.count >= 4 { rings.append(ring) }
            }
        }
        rings.sort { abs(Self.signedArea($0)) > abs(Self.signedArea($1)) }
        return rings
    }

    /// Planar signed area of a closed ring in degree² (positive when counter-clockwise).
    static func signedArea(_ ring: [GeoPoint]) -> Double {
        var sum = 0.0
        for i in 0..<(ring.count - 1) {
            sum += ring[i].lng * ring[i + 1].lat - ring[i + 1].lng * ring[i].lat
        }
        return sum / 2
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { Int((Double(a) / Double(b)).rounded(.down)) }

    private struct BandCell: Hashable { var band: Int; var cell: UInt64 }
    private struct GroupKey: Hashable { var band: Int; var severity: Severity }
    /// A vertex quantised to 1e-7° so the same vertex computed for two neighbours matches.
    private struct VertexKey: Hashable, Comparable {
        var lat: Int64; var lng: Int64
        init(_ p: GeoPoint) { lat = Int64((p.lat * 1e7).rounded()); lng = Int64((p.lng * 1e7).rounded()) }
        static func < (l: VertexKey, r: VertexKey) -> Bool { (l.lat, l.lng) < (r.lat, r.lng) }
    }
    private struct Edge: Hashable { var from: VertexKey; var to: VertexKey }
}
#endif
