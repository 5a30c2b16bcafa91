import EddySupport
public import Foundation

/// A map tile: an H3 resolution-5 cell × a 1000 ft altitude layer (`layer 38` = 38,000..<39,000 ft).
public struct TileID: Sendable, Hashable, Codable, Comparable {
    /// The H3 resolution at which tiles are cut.
    public static let h3Resolution = 5
    /// The H3 cell index (resolution 5) as its 64-bit value.
    public var h3: UInt64
    /// Altitude layer: floor(altitude feet / 1000).
    public var layer: Int

    /// Creates a tile id.
    public init(h3: UInt64, layer: Int) { self.h3 = h3; self.layer = layer }

    /// The layer holding an altitude in feet (floor division, so -500 ft is layer -1). Total: a non-finite or absurd
    /// altitude (a corrupt `alt_m` of 1e308) gives a clamped layer (±2⁵³; NaN → 0) instead of trapping.
    public static func layer(altitudeFeet: Double) -> Int { Int(saturating: altitudeFeet / 1000, rounding: .down) }

    /// The H3 index as the reference library prints it (lower-case hex, no prefix).
    public var h3String: String { String(h3, radix: 16) }

    /// Orders by cell, then layer (for deterministic output).
    public static func < (lhs: TileID, rhs: TileID) -> Bool { (lhs.h3, lhs.layer) < (rhs.h3, rhs.layer) }
}

/// One tile crossing's turbulence report: the worst and the typical EDR felt while inside the tile.
public struct TileReport: Sendable, Equatable, Codable, Hashable {
    /// Idempotency id (deterministic for a replay, so uploads and replays are repeatable).
    public var id: UUID
    /// The tile crossed.
    public var tile: TileID
    /// Time the aircraft entered the tile, seconds (the log's time base in the core; Unix epoch once stored).
    public var enterTime: Double
    /// Time the aircraft left the tile, seconds (same base as `enterTime`).
    public var exitTime: Double
    /// Peak per-second EDR while in the tile, m^(2/3) s^-1 (0 when smooth).
    public var edrPeak: Double
    /// Median per-second EDR while in the tile, m^(2/3) s^-1.
    public var edrMedian: Double
    /// Class of the reporting aircraft.
    public var reporterClass: AircraftClass
    /// Where the altitude that chose the layer came from (nil: not recorded, e.g. data from before it was).
    public var altitudeSource: AltitudeSource?
    /// 90 % uncertainty of the pressure altitude that chose the layer, feet (nil: not recorded).
    public var altitudeU90Feet: Double?
    /// True when the altitude's 90 % uncertainty reaches beyond the reported layer (the layer may be wrong); nil: not
    /// recorded. Rule: docs/altitude.md "Layer".
    public var layerUncertain: Bool?

    /// Creates a report.
    public init(
        id: UUID, tile: TileID, enterTime: Double, exitTime: Double,
        edrPeak: Double, edrMedian: Double, reporterClass: AircraftClass,
        altitudeSource: AltitudeSource? = nil, altitudeU90Feet: Double? = nil, layerUncertain: Bool? = nil
    ) {
        self.altitudeSource = altitudeSource
        self.altitudeU90Feet = altitudeU90Feet
        self.layerUncertain = layerUncertain
        self.id = id
        self.tile = tile
        self.enterTime = enterTime
        self.exitTime = exitTime
        self.edrPeak = edrPeak
        self.edrMedian = edrMedian
        self.reporterClass = reporterClass
    }

    /// Severity of this report as seen by an aircraft of class `viewer` (from the peak EDR).
    public func severity(for viewer: AircraftClass) -> Severity {
        SeverityScale.severity(edr: edrPeak, viewer: viewer)
    }
}
