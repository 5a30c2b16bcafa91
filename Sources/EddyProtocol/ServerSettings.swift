// The settings a server sends with every new session, and the client thresholds among them.

/// Server-provided settings sent with every new session.
package struct ServerSettings: Sendable, Codable, Equatable {
    /// Fetch interval for the `minimal` update frequency, seconds.
    package var minimalIntervalSeconds: Double
    /// Fetch interval for the `medium` update frequency, seconds.
    package var mediumIntervalSeconds: Double
    /// Fetch interval for the `fast` update frequency, seconds.
    package var fastIntervalSeconds: Double
    /// Length of one server tick, seconds (about 60).
    package var tickSeconds: Double
    /// A delta older than this many ticks is answered with a full refresh.
    package var fullRefreshAfterTicks: Int
    /// Most reports accepted in one upload batch.
    package var maxReportsPerBatch: Int
    /// Largest accepted request body, bytes.
    package var maxRequestBytes: Int
    /// Live flights not updated for this long are dropped, seconds.
    package var liveFlightExpirySeconds: Double
    /// The client thresholds the server sets (low power, in air, accuracy limits); nil from a server older than them,
    /// and before the first session: the client then uses its local defaults.
    package var thresholds: ClientThresholds?
    /// Creates settings.
    package init(
        minimalIntervalSeconds: Double, mediumIntervalSeconds: Double, fastIntervalSeconds: Double,
        tickSeconds: Double, fullRefreshAfterTicks: Int, maxReportsPerBatch: Int, maxRequestBytes: Int,
        liveFlightExpirySeconds: Double, thresholds: ClientThresholds? = nil
    ) {
        self.thresholds = thresholds
        self.minimalIntervalSeconds = minimalIntervalSeconds
        self.mediumIntervalSeconds = mediumIntervalSeconds
        self.fastIntervalSeconds = fastIntervalSeconds
        self.tickSeconds = tickSeconds
        self.fullRefreshAfterTicks = fullRefreshAfterTicks
        self.maxReportsPerBatch = maxReportsPerBatch
        self.maxRequestBytes = maxRequestBytes
        self.liveFlightExpirySeconds = liveFlightExpirySeconds
    }

    /// The documented defaults (minimal 10 min, medium 5 min, fast 1 min; tick 60 s).
    package static let defaults = ServerSettings(
        minimalIntervalSeconds: 600, mediumIntervalSeconds: 300, fastIntervalSeconds: 60,
        tickSeconds: 60, fullRefreshAfterTicks: 60, maxReportsPerBatch: 1000, maxRequestBytes: 1 << 20,
        liveFlightExpirySeconds: 600
    )
}

/// Thresholds a server sets for its clients (`ServerSettings.thresholds`). Every field is optional: a value the server
/// does not send leaves the client's local default in force (docs/protocol.md "Client thresholds").
package struct ClientThresholds: Sendable, Codable, Equatable {
    /// Below this ground speed (after landing) the client may enter low power mode, knots.
    package var lowPowerSpeedKnots: Double?
    /// How long the aircraft must stay on the ground and slow before low power mode, seconds.
    package var lowPowerAfterSeconds: Double?
    /// A climb of this much above the last on-ground altitude counts as in the air, feet.
    package var inAirAltitudeFeet: Double?
    /// At or above this ground speed the aircraft counts as in the air, knots.
    package var inAirSpeedKnots: Double?
    /// Fixes whose horizontal accuracy (68 % radius) is worse than this are not used for position, metres.
    package var maximumHorizontalAccuracyMeters: Double?
    /// Fixes whose vertical accuracy (68 %) is worse than this have their GNSS altitude ignored, metres.
    package var maximumVerticalAccuracyMeters: Double?

    /// Creates thresholds (nil: not set by the server).
    package init(lowPowerSpeedKnots: Double? = nil, lowPowerAfterSeconds: Double? = nil, inAirAltitudeFeet: Double? = nil,
                 inAirSpeedKnots: Double? = nil, maximumHorizontalAccuracyMeters: Double? = nil,
                 maximumVerticalAccuracyMeters: Double? = nil) {
        self.lowPowerSpeedKnots = lowPowerSpeedKnots
        self.lowPowerAfterSeconds = lowPowerAfterSeconds
        self.inAirAltitudeFeet = inAirAltitudeFeet
        self.inAirSpeedKnots = inAirSpeedKnots
        self.maximumHorizontalAccuracyMeters = maximumHorizontalAccuracyMeters
        self.maximumVerticalAccuracyMeters = maximumVerticalAccuracyMeters
    }

    /// What `eddy-server` sends unless told otherwise: the engine's own defaults (30 kt / 300 s low power, 500 ft /
    /// 50 kt in air, 50 m / 100 m accuracy).
    package static let serverDefaults = ClientThresholds(
        lowPowerSpeedKnots: 30, lowPowerAfterSeconds: 300, inAirAltitudeFeet: 500, inAirSpeedKnots: 50,
        maximumHorizontalAccuracyMeters: 50, maximumVerticalAccuracyMeters: 100)

    /// Whether every value is a positive finite number (the server refuses to start with anything else).
    package var isValid: Bool {
        [lowPowerSpeedKnots, lowPowerAfterSeconds, inAirAltitudeFeet, inAirSpeedKnots, maximumHorizontalAccuracyMeters,
         maximumVerticalAccuracyMeters].allSatisfy { $0.map { $0.isFinite && $0 > 0 } ?? true }
    }
}
