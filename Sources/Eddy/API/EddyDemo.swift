public import EddyVocabulary

/// A demo flight for `EddyEngine.startDemo(_:pace:)`: a simulated aircraft flying a straight line through turbulence
/// of chosen severities (the anchor SDK's `simulateTurbulence(sev:)`, as a whole flight).
///
/// Its accelerometer, gyro, barometer and location samples come from Eddy's flight simulator and go through the real
/// detection, flight phase and alert pipeline; what comes out is flagged as simulated and never uploaded
/// (docs/engine.md "Demo mode").
public struct EddyDemo: Sendable, Equatable {
    /// One stretch of the demo at one severity.
    public struct Segment: Sendable, Equatable {
        /// Severity flown (for the engine's aircraft class); `.none` is smooth air.
        public var severity: Severity
        /// Length, seconds.
        public var durationSeconds: Double
        /// Creates a segment.
        public init(severity: Severity, durationSeconds: Double) { self.severity = severity; self.durationSeconds = durationSeconds }
    }

    /// The stretches, flown back to back.
    public var segments: [Segment]
    /// Where the demo flight starts, degrees.
    public var startLatitude: Double
    /// Where the demo flight starts, degrees.
    public var startLongitude: Double
    /// Track flown, degrees true.
    public var courseDegrees: Double
    /// Cruise altitude, feet; nil: the aircraft class's nominal altitude.
    public var altitudeFeet: Double?
    /// Seed of the simulated gusts and sensor noise (the same seed flies the same demo).
    public var seed: UInt64

    /// Creates a demo.
    public init(segments: [Segment], startLatitude: Double = 47.0, startLongitude: Double = 8.0, courseDegrees: Double = 90,
                altitudeFeet: Double? = nil, seed: UInt64 = 1) {
        self.segments = segments
        self.startLatitude = startLatitude
        self.startLongitude = startLongitude
        self.courseDegrees = courseDegrees
        self.altitudeFeet = altitudeFeet
        self.seed = seed
    }

    /// Smooth air for 4 minutes (detection settles), `severity` for `durationSeconds`, smooth air for 4 minutes.
    public static func turbulence(_ severity: Severity, durationSeconds: Double = 180, startLatitude: Double = 47.0,
                                  startLongitude: Double = 8.0, courseDegrees: Double = 90) -> EddyDemo {
        EddyDemo(segments: [Segment(severity: .none, durationSeconds: 240), Segment(severity: severity, durationSeconds: durationSeconds),
                            Segment(severity: .none, durationSeconds: 240)],
                 startLatitude: startLatitude, startLongitude: startLongitude, courseDegrees: courseDegrees)
    }

    /// Length of the demo, seconds.
    public var durationSeconds: Double { segments.reduce(0) { $0 + max(0, $1.durationSeconds) } }

    /// The EDR flown for `severity` by `aircraftClass`, so that the demo's worst tile reads `severity`: the geometric
    /// middle of the severity's band (severe: 25 % above its lower bound; none: 0) divided by
    /// ``peakToSegmentRatio``, because a tile's report carries its peak EDR, which lies above the EDR flown.
    public static func edr(for severity: Severity, aircraftClass: AircraftClass) -> Double {
        guard severity != .none else { return 0 }
        let lower = SeverityScale.minimumEDR(for: severity, viewer: aircraftClass)
        guard let next = Severity(rawValue: severity.rawValue + 1) else { return lower * 1.25 / peakToSegmentRatio }
        return (lower * SeverityScale.minimumEDR(for: next, viewer: aircraftClass)).squareRoot() / peakToSegmentRatio
    }

    /// The worst tile's peak EDR over the EDR flown in a 3-minute demo segment: 1.33–1.36 measured for every
    /// severity (other tiles of the segment 1.06–1.17; docs/engine.md "Demo mode").
    public static let peakToSegmentRatio = 1.3
}

/// How fast a demo's samples are pushed.
public enum DemoPace: Sendable, Equatable {
    /// As time passes (a background thread; samples stamped from the wall clock at the start): a live demo.
    case realTime
    /// All at once on the calling thread, stamped from `startEpochSeconds` (tests, screenshots, a replayed demo).
    case immediate(startEpochSeconds: Double)
}
