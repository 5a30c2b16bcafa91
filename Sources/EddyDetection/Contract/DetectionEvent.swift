/// Device mount state change: emitted whenever `inPosition`, `horizontal` or `inNoise` changes.
package import EddyNavigation
package import EddyVocabulary
package struct PositionEvent: Sendable, Equatable {
    /// Time of the change, seconds (log time base).
    package var t: Double
    /// The device is steady in its mount and calibrated.
    package var inPosition: Bool
    /// The device lies flat (|û_z| > cos 15°): nothing is measured.
    package var horizontal: Bool
    /// High-frequency noise (taps, vibration) is too strong to measure.
    package var inNoise: Bool
    /// Creates an event.
    package init(t: Double, inPosition: Bool, horizontal: Bool, inNoise: Bool) {
        self.t = t; self.inPosition = inPosition; self.horizontal = horizontal; self.inNoise = inNoise
    }
}

/// One minute of active detection: median and peak of the per-second EDR estimates.
package struct MinuteEvent: Sendable, Equatable {
    /// End of the minute, seconds (log time base).
    package var t: Double
    /// Median of the per-second EDR estimates in the minute, m^(2/3) s^-1.
    package var edrMedian: Double
    /// Peak of the per-second EDR estimates in the minute, m^(2/3) s^-1.
    package var edrPeak: Double
    /// Severity for the recording aircraft's class.
    package var severity: Severity
    /// How many valid per-second estimates the minute holds.
    package var validSeconds: Int
    /// Creates an event.
    package init(t: Double, edrMedian: Double, edrPeak: Double, severity: Severity, validSeconds: Int) {
        self.t = t; self.edrMedian = edrMedian; self.edrPeak = edrPeak; self.severity = severity
        self.validSeconds = validSeconds
    }
}

/// Everything the detection pipeline tells its caller, in time order.
package enum DetectionEvent: Sendable, Equatable {
    /// Mount state changed.
    case position(PositionEvent)
    /// A minute of detection completed.
    case minute(MinuteEvent)
    /// A tile crossing completed.
    case tile(TileReport)
    /// The altitude estimate at a location fix (about once per second).
    case altitude(AltitudeEstimate)
    /// Something no plausible motion explains, or an input refused (a typed warning with its time).
    case warning(ConsistencyWarning)
    /// A reason nothing or less is measured began or ended (once per episode; docs/detection.md §9).
    case notice(MeasurementNotice)
}
