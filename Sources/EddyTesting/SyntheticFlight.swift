import EddySimulation
public import EddyVocabulary

/// A simulated flight with known turbulence, stamped in Unix epoch seconds, for feeding an engine in tests.
///
/// Wraps EddySimulation's ``FlightSimulator``: von Kármán gusts at each segment's EDR through the aircraft
/// class's response, a device mount, sensor noise, turns and handling from the ``FlightScenario``.
/// Samples come out time-ordered with `t = startEpochSeconds + simulation time`. ``forEachSample(_:)``
/// streams the simulator's 10 s chunks, so memory stays bounded for any flight length; ``samples()``
/// holds the whole flight and is meant for short flights.
public struct SyntheticFlight: Sendable, Equatable {
    /// One turbulence segment of the truth, in epoch seconds.
    public struct TruthSegment: Sendable, Equatable {
        /// Segment start, Unix epoch seconds (inclusive).
        public var startEpochSeconds: Double
        /// Segment end, Unix epoch seconds (exclusive).
        public var endEpochSeconds: Double
        /// EDR flown in the segment, m^(2/3) s^-1.
        public var edr: Double
        /// Creates a segment.
        public init(startEpochSeconds: Double, endEpochSeconds: Double, edr: Double) {
            self.startEpochSeconds = startEpochSeconds
            self.endEpochSeconds = endEpochSeconds
            self.edr = edr
        }
    }

    /// The scenario flown (times inside it are seconds from the flight start).
    public var scenario: FlightScenario
    /// Unix epoch time of the flight's first sample, seconds.
    public var startEpochSeconds: Double

    /// Creates a flight from a full scenario starting at `startEpochSeconds`.
    public init(scenario: FlightScenario, startEpochSeconds: Double) {
        self.scenario = scenario
        self.startEpochSeconds = startEpochSeconds
    }

    /// Creates a flight of back-to-back turbulence segments; nil altitude / speed take the class's nominal values.
    public init(
        segments: [TurbulenceSegment], aircraftClass: AircraftClass = .medium, startEpochSeconds: Double,
        startLatitude: Double = 47.0, startLongitude: Double = 8.0, courseDegrees: Double = 90,
        altitudeFeet: Double? = nil, groundSpeedMetersPerSecond: Double? = nil, seed: UInt64 = 1
    ) {
        self.init(
            scenario: FlightScenario(
                aircraftClass: aircraftClass, segments: segments, startLatitude: startLatitude, startLongitude: startLongitude,
                altitudeFeet: altitudeFeet, groundSpeedMetersPerSecond: groundSpeedMetersPerSecond, courseDegrees: courseDegrees,
                seed: seed),
            startEpochSeconds: startEpochSeconds)
    }

    /// Flight length, seconds (the sum of the segment durations).
    public var durationSeconds: Double { scenario.durationSeconds }

    /// Unix epoch time at which the flight ends (exclusive), seconds.
    public var endEpochSeconds: Double { startEpochSeconds + durationSeconds }

    /// The scenario's truth (turbulence and handling intervals) in simulation seconds from the flight start.
    public var truth: FlightTruth { FlightSimulator.truth(for: scenario) }

    /// The turbulence segments actually flown (zero-length ones dropped), in epoch seconds.
    public var truthSegments: [TruthSegment] {
        truth.turbulence.map {
            TruthSegment(
                startEpochSeconds: startEpochSeconds + $0.start, endEpochSeconds: startEpochSeconds + $0.end, edr: $0.edr ?? 0)
        }
    }

    /// The handling intervals (device moved by hand), in epoch seconds.
    public var handlingIntervals: [ClosedRange<Double>] {
        truth.handling.map { (startEpochSeconds + $0.start)...(startEpochSeconds + $0.end) }
    }

    /// The true EDR at `epochSeconds`, or nil outside the flight.
    public func trueEDR(atEpochSeconds epochSeconds: Double) -> Double? {
        truthSegments.first { epochSeconds >= $0.startEpochSeconds && epochSeconds < $0.endEpochSeconds }?.edr
    }

    /// Streams the flight in time-ordered chunks (10 s of samples each), every sample stamped in epoch seconds.
    public func forEachChunk(_ body: (SimulatedChunk) throws -> Void) rethrows {
        let offset = startEpochSeconds
        try FlightSimulator.simulate(scenario) { chunk in
            var shifted = chunk
            for i in shifted.accelerometer.indices { shifted.accelerometer[i].t += offset }
            for i in shifted.gyroscope.indices { shifted.gyroscope[i].t += offset }
            for i in shifted.location.indices { shifted.location[i].t += offset }
            for i in shifted.barometer.indices { shifted.barometer[i].t += offset }
            try body(shifted)
        }
    }

    /// Streams every sample in time order (at equal times: location, barometer, gyroscope, accelerometer).
    ///
    /// Memory stays bounded (one 10 s chunk at a time). Throw from `body` to stop early.
    public func forEachSample(_ body: (SensorSample) throws -> Void) rethrows {
        try forEachChunk { chunk in
            for sample in chunk.mergedSamples() { try body(sample) }
        }
    }

    /// The whole flight's samples in time order, in memory (for short flights).
    public func samples() -> [SensorSample] {
        var result: [SensorSample] = []
        forEachSample { result.append($0) }
        return result
    }
}
