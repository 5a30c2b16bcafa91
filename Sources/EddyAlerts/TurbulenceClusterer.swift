public import EddyH3
public import EddyVocabulary
import Foundation

/// One tile's turbulence as the clusterer sees it: where it is and how bad it is for the viewer.
public struct TurbulenceClusterItem: Sendable, Equatable {
    /// The tile (the item's identity: one item per tile).
    public var tile: TileID
    /// Severity for the viewing aircraft's class.
    public var severity: Severity
    /// Latitude of the item's position (the tile centre for reports), degrees.
    public var latitudeDegrees: Double
    /// Longitude of the item's position, degrees.
    public var longitudeDegrees: Double

    /// Creates an item at an explicit position.
    public init(tile: TileID, severity: Severity, latitudeDegrees: Double, longitudeDegrees: Double) {
        self.tile = tile; self.severity = severity
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
    }

    /// Creates an item from a report, placed at its tile's centre; nil when the tile's H3 cell is invalid.
    public init?(report: TileReport, viewer: AircraftClass) {
        guard let c = try? H3.cellToLatLng(H3Index(rawValue: report.tile.h3)) else { return nil }
        self.init(tile: report.tile, severity: report.severity(for: viewer),
                  latitudeDegrees: c.latitude, longitudeDegrees: c.longitude)
    }

    var point: Geodesy.Point { (latitudeDegrees, longitudeDegrees) }
}

/// A group of nearby turbulence items.
public struct TurbulenceCluster: Sendable, Equatable, Identifiable {
    /// Stable id (increasing in creation order).
    public var id: Int
    /// Members, sorted by tile.
    public var items: [TurbulenceClusterItem]

    /// Worst member severity (`.none` when empty).
    public var maxSeverity: Severity { items.map(\.severity).max() ?? .none }

    /// Largest distance between two members, nautical miles.
    public var diameterNM: Double {
        var d = 0.0
        for i in items.indices { for j in items.indices where j > i {
            d = max(d, Geodesy.distanceNM(from: items[i].point, to: items[j].point))
        } }
        return d
    }

    /// Centre: the normalised mean of the members' unit vectors, degrees; nil when empty.
    public var centre: LatLng? {
        guard !items.isEmpty else { return nil }
        var x = 0.0, y = 0.0, z = 0.0
        for it in items {
            let lat = it.latitudeDegrees * .pi / 180, lon = it.longitudeDegrees * .pi / 180
            x += cos(lat) * cos(lon); y += cos(lat) * sin(lon); z += sin(lat)
        }
        return LatLng(latitude: atan2(z, (x * x + y * y).squareRoot()) * 180 / .pi, longitude: atan2(y, x) * 180 / .pi)
    }

    /// Distance from a position to the nearest member, nautical miles (infinity when empty).
    public func distanceNM(fromLatitude latitude: Double, longitude: Double) -> Double {
        items.map { Geodesy.distanceNM(from: (latitude, longitude), to: $0.point) }.min() ?? .infinity
    }

    /// The member of worst severity nearest to a position (ties by tile); nil when empty.
    public func nearestMaxSeverityItem(fromLatitude latitude: Double, longitude: Double) -> TurbulenceClusterItem? {
        let worst = maxSeverity
        return items.filter { $0.severity == worst }.min {
            (Geodesy.distanceNM(from: (latitude, longitude), to: $0.point), $0.tile)
                < (Geodesy.distanceNM(from: (latitude, longitude), to: $1.point), $1.tile)
        }
    }
}

/// Groups turbulence items: an item joins a cluster when it is within `maxDistanceNM` of every member and within
/// `maxDistanceToNearestNM` of the nearest one (defaults 60 / 30 NM); otherwise it starts a new cluster.
///
/// `process(items:)` takes the whole current set each time: vanished items are dropped, empty clusters removed,
/// members' severities updated, and new items placed one by one in tile order (so the result does not depend on
/// input order). A new item that fits several clusters joins the one with the nearest member (ties: lower id).
/// Clusters are not split when members vanish. Alerted bookkeeping is per tile. See docs/alerts.md.
package struct TurbulenceClusterer: Sendable {
    /// Distance thresholds.
    package struct Options: Sendable, Equatable {
        /// Largest distance from a new item to every member, nautical miles.
        package var maxDistanceNM: Double
        /// Largest distance from a new item to the nearest member, nautical miles.
        package var maxDistanceToNearestNM: Double
        /// Creates options (defaults 60 / 30 NM).
        package init(maxDistanceNM: Double = 60, maxDistanceToNearestNM: Double = 30) {
            self.maxDistanceNM = maxDistanceNM; self.maxDistanceToNearestNM = maxDistanceToNearestNM
        }
    }

    /// The thresholds in use.
    package let options: Options
    /// Current clusters, by id.
    package private(set) var clusters: [TurbulenceCluster] = []
    private var nextID = 1
    private var alertedTiles: [TileID: Severity] = [:]

    /// Creates an empty clusterer.
    package init(options: Options = Options()) { self.options = options }

    /// Takes the current set of items (one per tile; for duplicates the worst wins) and updates the clusters.
    package mutating func process(items: [TurbulenceClusterItem]) {
        var current: [TileID: TurbulenceClusterItem] = [:]
        for item in items where item.latitudeDegrees.isFinite && item.longitudeDegrees.isFinite {
            if let existing = current[item.tile], existing.severity >= item.severity { continue }
            current[item.tile] = item
        }
        var placed = Set<TileID>()
        for index in clusters.indices {
            clusters[index].items = clusters[index].items.compactMap { current[$0.tile] }
            placed.formUnion(clusters[index].items.map(\.tile))
        }
        clusters.removeAll { $0.items.isEmpty }
        for tile in current.keys.sorted() where !placed.contains(tile) {
            place(current[tile]!)
        }
        alertedTiles = alertedTiles.filter { current[$0.key] != nil }
    }

    private mutating func place(_ item: TurbulenceClusterItem) {
        var best: (index: Int, nearest: Double)?
        for (index, cluster) in clusters.enumerated() {
            var nearest = Double.infinity, fits = true
            for member in cluster.items {
                let d = Geodesy.distanceNM(from: item.point, to: member.point)
                if d > options.maxDistanceNM { fits = false; break }
                nearest = min(nearest, d)
            }
            guard fits, nearest <= options.maxDistanceToNearestNM else { continue }
            if best == nil || nearest < best!.nearest { best = (index, nearest) }
        }
        if let best {
            clusters[best.index].items.append(item)
            clusters[best.index].items.sort { $0.tile < $1.tile }
        } else {
            clusters.append(TurbulenceCluster(id: nextID, items: [item]))
            nextID += 1
        }
    }

    /// Whether every member of `cluster` has been alerted at its current severity or worse.
    package func isAlerted(cluster: TurbulenceCluster) -> Bool {
        !cluster.items.isEmpty && cluster.items.allSatisfy { item in
            guard let s = alertedTiles[item.tile] else { return false }
            return s >= item.severity
        }
    }

    /// Records every member of `cluster` as alerted at its current severity.
    package mutating func alerted(cluster: TurbulenceCluster) {
        for item in cluster.items { alertedTiles[item.tile] = max(alertedTiles[item.tile] ?? .none, item.severity) }
    }

    /// Forgets every cluster and every alerted tile.
    package mutating func reset() {
        clusters = []
        alertedTiles = [:]
        nextID = 1
    }
}
