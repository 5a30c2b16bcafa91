#if Tools
import EddyH3
package import EddyProtocol
package import EddyVocabulary
import Foundation

/// The fleet's geometric − pressure altitude offset per H3 resolution-3 cell × 1,000-ft layer: pure maths over the
/// stored observations (one per reporter × cell × layer, so one chatty aircraft counts once). docs/protocol.md
/// "Fleet altitude assistance" derives the formulas.
package enum AltitudeOffsetAggregation {
    /// One stored observation.
    package struct Input: Sendable, Equatable {
        /// H3 resolution-3 cell of the observation's position.
        package var cell: UInt64
        /// 1,000-ft layer of its pressure altitude.
        package var layer: Int
        /// Geometric (GNSS, MSL) − pressure altitude, feet.
        package var offsetFeet: Double
        /// The observation's own 1σ, feet.
        package var uncertaintyFeet: Double
        /// When it was measured, Unix seconds.
        package var time: Double

        /// Creates an input.
        package init(cell: UInt64, layer: Int, offsetFeet: Double, uncertaintyFeet: Double, time: Double) {
            self.cell = cell; self.layer = layer; self.offsetFeet = offsetFeet; self.uncertaintyFeet = uncertaintyFeet
            self.time = time
        }
    }

    /// An observation's σ counts as at least this, feet: no altimetry knows the offset better, and it keeps the
    /// inverse-variance weights finite.
    package static let minimumUncertaintyFeet = 1.0

    /// One cell per (cell, layer) present in `inputs`, sorted by cell then layer.
    package static func aggregate(_ inputs: [Input]) -> [AltitudeOffsetCell] {
        var groups: [Key: [Input]] = [:]
        for input in inputs { groups[Key(cell: input.cell, layer: input.layer), default: []].append(input) }
        return groups.keys.sorted().compactMap { key in
            guard let group = groups[key], let combined = combine(group) else { return nil }
            return AltitudeOffsetCell(
                h3: key.cell, layer: key.layer, offsetFeet: combined.meanFeet, uncertaintyFeet: combined.uncertaintyFeet,
                observationCount: group.count, newestTime: group.map(\.time).max() ?? 0)
        }
    }

    /// Inverse-variance weighted mean of the offsets and its 1σ, the larger of the propagated σ and the spread
    /// between aircraft:
    ///
    ///     wᵢ = 1 / max(σᵢ, 1 ft)²,   m = Σ wᵢ xᵢ / Σ wᵢ,   σ²_int = 1 / Σ wᵢ
    ///     s² = n / (n − 1) · Σ wᵢ (xᵢ − m)² / Σ wᵢ   (n ≥ 2; 0 for one observation)
    ///     σ_mean = sqrt(max(σ²_int, s² / n))
    ///
    /// nil for no input (or inputs that are not finite, which the upload check never stores).
    package static func combine(_ group: [Input]) -> (meanFeet: Double, uncertaintyFeet: Double)? {
        guard let reference = group.first?.offsetFeet,
              let smallestSigma = group.map({ max($0.uncertaintyFeet, minimumUncertaintyFeet) }).min()
        else { return nil }
        // Weights relative to the most precise observation (uᵢ = (σ_min / σᵢ)² ≤ 1, so Σw = Σu / σ_min²) and sums of
        // deviations from the first offset: one observation (or several equal ones) gives back exactly its value and
        // σ, and large offsets lose no digits to cancellation.
        var relativeWeightSum = 0.0
        var weightedDeviations = 0.0
        var relativeWeights: [Double] = []
        relativeWeights.reserveCapacity(group.count)
        for input in group {
            let ratio = smallestSigma / max(input.uncertaintyFeet, minimumUncertaintyFeet)
            let weight = ratio * ratio
            relativeWeights.append(weight)
            relativeWeightSum += weight
            weightedDeviations += weight * (input.offsetFeet - reference)
        }
        let mean = reference + weightedDeviations / relativeWeightSum
        let internalVariance = smallestSigma * smallestSigma / relativeWeightSum
        var spreadVariance = 0.0
        let n = Double(group.count)
        if group.count >= 2 {
            var squares = 0.0
            for (input, weight) in zip(group, relativeWeights) {
                let deviation = input.offsetFeet - mean
                squares += weight * deviation * deviation
            }
            let sampleVariance = n / (n - 1) * squares / relativeWeightSum
            spreadVariance = sampleVariance / n
        }
        let sigma = max(internalVariance, spreadVariance).squareRoot()
        guard mean.isFinite, sigma.isFinite else { return nil }
        return (mean, sigma)
    }

    private struct Key: Hashable, Comparable {
        var cell: UInt64
        var layer: Int
        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.cell, lhs.layer) < (rhs.cell, rhs.layer) }
    }
}

/// The H3 resolution-3 cells whose offsets a fetch of an area carries.
package enum AltitudeOffsetArea {
    /// Spacing of the points sampled along the area's edges, degrees (≈ 22 km of latitude; a resolution-3 hexagon's
    /// edge is ≈ 60 km, so every cell an edge crosses over more than a sliver gets a sample).
    package static let edgeSampleSpacingDegrees = 0.2

    /// The cells meeting the polygon (centre inside, or crossed by an edge), and their ring-1 neighbours (an aircraft
    /// near the area's rim looks one ring around its own cell), sorted.
    package static func cells(polygon: [GeoPoint]) -> [UInt64] {
        let resolution = AltitudeOffsetCell.h3Resolution
        var cells = Set<UInt64>()
        func add(_ lat: Double, _ lng: Double) {
            if let cell = try? H3.latLngToCell(latitude: lat, longitude: lng, resolution: resolution) { cells.insert(cell.rawValue) }
        }
        for index in polygon.indices {
            let a = polygon[index]
            let b = polygon[(index + 1) % polygon.count]
            let span = max(abs(b.lat - a.lat), abs(b.lng - a.lng))
            let steps = max(1, Int(min(span / edgeSampleSpacingDegrees, 10_000).rounded(.up)))
            for step in 0..<steps {
                let f = Double(step) / Double(steps)
                add(a.lat + (b.lat - a.lat) * f, a.lng + (b.lng - a.lng) * f)
            }
        }
        let ring = polygon.map { LatLng(latitude: $0.lat, longitude: $0.lng) }
        if let inside = try? H3.polygonToCells(outer: ring, resolution: resolution) {
            for cell in inside { cells.insert(cell.rawValue) }
        }
        var expanded = cells
        for cell in cells {
            if let disk = try? H3.gridDisk(H3Index(rawValue: cell), k: 1) {
                for neighbour in disk where neighbour.rawValue != 0 { expanded.insert(neighbour.rawValue) }
            }
        }
        return expanded.sorted()
    }
}
#endif
