package import EddyNavigation
package import EddyVocabulary

/// What a replay's altitude estimates added up to: seconds per source, the cabin decision, the last estimate.
package struct AltitudeTally: Sendable {
    /// Estimates (about one per fix) per source.
    package var estimatesBySource: [AltitudeSource: Int] = [:]
    /// Estimates whose layer was flight-level held.
    package var heldEstimates = 0
    /// Estimates whose 90 % uncertainty reached beyond their layer.
    package var uncertainEstimates = 0
    /// The first decided cabin state and when (log time).
    package var cabinDecision: (state: CabinPressurization, t: Double)?
    /// The latest estimate.
    package var last: AltitudeEstimate?
    /// Largest 90 % pressure-altitude uncertainty seen, feet.
    package var largestU90Feet = 0.0

    /// Counts one estimate.
    package mutating func add(_ estimate: AltitudeEstimate) {
        estimatesBySource[estimate.source, default: 0] += 1
        if estimate.heldFlightLevelFeet != nil { heldEstimates += 1 }
        if estimate.layerUncertain { uncertainEstimates += 1 }
        if cabinDecision == nil, estimate.cabin != .unknown { cabinDecision = (estimate.cabin, estimate.t) }
        largestU90Feet = max(largestU90Feet, estimate.pressureAltitudeUncertaintyFeet.u90)
        last = estimate
    }

    /// Total estimates.
    package var count: Int { estimatesBySource.values.reduce(0, +) }
}
