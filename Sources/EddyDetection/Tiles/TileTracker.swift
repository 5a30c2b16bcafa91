package import EddyNavigation
package import EddyVocabulary
package import Foundation

/// Follows tile crossings (H3 cell × 1000 ft layer) and emits exactly one report per crossing that holds a measurement.
///
/// A crossing starts at the first fix inside a tile and ends at the first fix in another tile (or at
/// the end of the stream). Per-second EDR estimates are attributed to the tile current at the end of
/// their second. A crossing is reported when it holds at least `minimumValidSeconds` estimates and no
/// device disturbance (handling, not in position, mount settle); smooth crossings are reported with
/// their small EDR (severity `none`).
package struct TileTracker: Sendable {
    /// Reporting aircraft class.
    package let reporterClass: AircraftClass
    /// Minimum valid per-second estimates in a reported crossing.
    package let minimumValidSeconds: Int
    /// Salt mixed into report ids.
    package let salt: UInt64
    private var current: TileID?
    private var enterTime = 0.0
    private var lastTime = 0.0
    private var values: [Double] = []
    private var peak = 0.0
    private var disturbed = false
    private var altitudeSource: AltitudeSource?
    private var altitudeU90Feet: Double?
    private var layerUncertain: Bool?

    /// Creates a tracker.
    package init(reporterClass: AircraftClass, minimumValidSeconds: Int, salt: UInt64) {
        self.reporterClass = reporterClass
        self.minimumValidSeconds = max(1, minimumValidSeconds)
        self.salt = salt
        values.reserveCapacity(600)
    }

    /// The tile of the open crossing, if any.
    package var currentTile: TileID? { current }

    /// A location fix placed the aircraft in `tile` at `t` (nil = unknown, keeps the crossing open); `altitude` is the
    /// estimate that chose the layer. A crossing's report carries its worst source, its largest 90 % uncertainty and
    /// whether any placement in it was layer-uncertain.
    package mutating func update(tile: TileID?, at t: Double, altitude: AltitudeEstimate? = nil, into events: inout [DetectionEvent]) {
        lastTime = max(lastTime, t)
        guard let tile else { return }
        if tile != current {
            close(at: t, into: &events)
            current = tile
            enterTime = t
        }
        if let altitude {
            altitudeSource = max(altitudeSource ?? altitude.source, altitude.source)
            altitudeU90Feet = max(altitudeU90Feet ?? 0, altitude.pressureAltitudeUncertaintyFeet.u90)
            layerUncertain = (layerUncertain ?? false) || altitude.layerUncertain
        }
    }

    /// One second of detection ended at `t`: `edr` is its estimate (nil = not valid), `disturbed` marks device trouble.
    package mutating func addSecond(edr: Double?, disturbed secondDisturbed: Bool, at t: Double) {
        lastTime = max(lastTime, t)
        guard current != nil else { return }
        if secondDisturbed { disturbed = true }
        if let edr {
            values.append(edr)
            peak = max(peak, edr)
        }
    }

    /// Closes the open crossing at `t` (end of stream).
    package mutating func finish(at t: Double, into events: inout [DetectionEvent]) {
        close(at: max(t, lastTime), into: &events)
        current = nil
    }

    private mutating func close(at t: Double, into events: inout [DetectionEvent]) {
        defer {
            values.removeAll(keepingCapacity: true); peak = 0; disturbed = false
            altitudeSource = nil; altitudeU90Feet = nil; layerUncertain = nil
        }
        guard let tile = current, !disturbed, values.count >= minimumValidSeconds else { return }
        let median = Statistics.median(&values)
        let id = DeterministicUUID.make(tile.h3, UInt64(bitPattern: Int64(tile.layer)), enterTime.bitPattern, salt)
        events.append(.tile(TileReport(
            id: id, tile: tile, enterTime: enterTime, exitTime: t, edrPeak: peak, edrMedian: median,
            reporterClass: reporterClass, altitudeSource: altitudeSource,
            altitudeU90Feet: altitudeU90Feet.map { ($0 * 10).rounded() / 10 }, layerUncertain: layerUncertain)))
    }
}

/// Small statistics helpers of the pipeline.
package enum Statistics {
    /// Median of `values` (sorted in place); 0 for an empty array.
    package static func median(_ values: inout [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        values.sort()
        let mid = values.count / 2
        return values.count % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid])
    }
}

/// Name-based, deterministic UUIDs (RFC 9562 version 8, "custom"): the same inputs give the same id.
package enum DeterministicUUID {
    @inline(__always) private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A UUID derived from four 64-bit words (two independent SplitMix64-style hash chains).
    package static func make(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> UUID {
        var h1: UInt64 = 0x6A09_E667_F3BC_C908
        var h2: UInt64 = 0xBB67_AE85_84CA_A73B
        for word in [a, b, c, d] {
            h1 = mix(h1 ^ word &+ 0x9E37_79B9_7F4A_7C15)
            h2 = mix(h2 &+ mix(word ^ 0xD1B5_4A32_D192_ED03))
        }
        h1 = (h1 & ~(0xF000 as UInt64)) | 0x8000            // version 8 in bits 48–51 of the first half
        h2 = (h2 & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC variant
        let x = h1.bigEndian, y = h2.bigEndian
        return withUnsafeBytes(of: (x, y)) { raw in
            let bytes = Array(raw)
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }
}
