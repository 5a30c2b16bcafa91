import Dispatch
public import EddyAlerts
import EddyH3
import EddyStore
import EddySync
public import EddyVocabulary
import Foundation

/// One `didReceiveAlert(_:)`: the tiles ahead that alert now (nearest first), or an empty, cleared result.
public struct EddyAlert: Sendable, Equatable {
    /// Engine time of the location update that produced it, Unix seconds.
    public var t: Double
    /// Geometry used (beam or route corridor); nil when cleared.
    public var mode: AlertMode?
    /// Alerting tiles, nearest first; empty when the alert cleared.
    public var items: [AlertItem]
    /// Tiles that are new or got worse since the previous alert.
    public var newOrWorse: [TileID]
    /// The alerting tiles grouped by the 60 / 30 NM clusterer.
    public var clusters: [TurbulenceCluster]
    /// True for an alert evaluated at a demo's simulated position (`EddyEngine.startDemo`).
    public var isSimulated: Bool
    /// What answered: tile reports, the turbulence-polygon fallback (no report in the alert area), or nothing.
    public var source: AlertSource
    /// Turbulence polygons that alert, nearest first (only when `source == .turbulencePolygons`).
    public var polygonItems: [PolygonAlertItem]
    /// True when nothing alerts any more.
    public var isCleared: Bool { items.isEmpty && polygonItems.isEmpty }
    /// Creates an alert.
    public init(t: Double, mode: AlertMode?, items: [AlertItem], newOrWorse: [TileID], clusters: [TurbulenceCluster],
                isSimulated: Bool = false, source: AlertSource = .reports, polygonItems: [PolygonAlertItem] = []) {
        self.t = t; self.mode = mode; self.items = items; self.newOrWorse = newOrWorse; self.clusters = clusters
        self.isSimulated = isSimulated
        self.source = items.isEmpty && polygonItems.isEmpty ? .none : source; self.polygonItems = polygonItems
    }
}
