public import EddyVocabulary

/// A deterministic location-only stream (no accelerometer) for flight-phase and alert tests.
///
/// A route is a start point and a list of legs flown back to back: parked, taxi, take-off roll,
/// climb, cruise, heading change, descent, landing roll. Within a leg, ground speed and altitude
/// change linearly from the leg's start value to its end value and the course turns at a constant
/// rate. Fixes come every ``intervalSeconds`` (1 Hz by default) stamped in Unix epoch seconds; the
/// position advances between fixes in great-circle steps (``Geodesy/destination(from:bearingDegrees:distanceNM:)``)
/// of (mean speed × step time) along the mid-step course, so the distance between consecutive fixes
/// equals the flown speed times the time and their bearing matches the reported course.
///
/// ```swift
/// let route = SyntheticRoute(startLatitude: 47.45, startLongitude: 8.56, startCourseDegrees: 280,
///                            fieldElevationFeet: 1_400, startEpochSeconds: 1_800_000_000)
///     .parked(seconds: 60)
///     .taxi(speedKnots: 15, seconds: 240)
///     .takeoffClimb(toAltitudeFeet: 35_000, speedKnots: 420, seconds: 1_200)
///     .cruise(seconds: 1_800)
/// for fix in route { engine.push(.location(fix)) }
/// ```
public struct SyntheticRoute: Sendable, Equatable, Sequence {
    /// What a leg represents (the kinematics come from its speeds, altitudes and course).
    public enum LegKind: String, Sendable, Equatable, CaseIterable {
        /// Standing still on the ground.
        case parked
        /// Ground taxi at a slow, constant speed.
        case taxi
        /// Take-off roll: accelerating on the runway at field elevation.
        case takeoffRoll
        /// Climb after take-off (or any climb).
        case climb
        /// Level flight.
        case cruise
        /// A level turn to a new course.
        case headingChange
        /// Descent towards landing (or any descent).
        case descent
        /// Landing roll: decelerating on the runway.
        case landingRoll
    }

    /// One leg; nil start values continue from where the previous leg ended.
    public struct Leg: Sendable, Equatable {
        /// What the leg represents.
        public var kind: LegKind
        /// Leg length, seconds (negative values count as zero).
        public var durationSeconds: Double
        /// Ground speed at the leg start, knots; nil continues the previous leg's end speed.
        public var startSpeedKnots: Double?
        /// Ground speed at the leg end, knots; nil keeps the start speed.
        public var endSpeedKnots: Double?
        /// Altitude at the leg start, feet; nil continues the previous leg's end altitude.
        public var startAltitudeFeet: Double?
        /// Altitude at the leg end, feet; nil keeps the start altitude.
        public var endAltitudeFeet: Double?
        /// Course at the leg start, degrees true; nil continues the previous leg's end course.
        public var startCourseDegrees: Double?
        /// Signed course change over the leg, degrees (positive turns right); ignored when `endCourseDegrees` is set.
        public var turnDegrees: Double
        /// Course at the leg end, degrees true, reached by the shorter turn; nil applies `turnDegrees`.
        public var endCourseDegrees: Double?

        /// Creates a leg from explicit values.
        public init(
            kind: LegKind, durationSeconds: Double, startSpeedKnots: Double? = nil, endSpeedKnots: Double? = nil,
            startAltitudeFeet: Double? = nil, endAltitudeFeet: Double? = nil, startCourseDegrees: Double? = nil,
            turnDegrees: Double = 0, endCourseDegrees: Double? = nil
        ) {
            self.kind = kind
            self.durationSeconds = durationSeconds
            self.startSpeedKnots = startSpeedKnots
            self.endSpeedKnots = endSpeedKnots
            self.startAltitudeFeet = startAltitudeFeet
            self.endAltitudeFeet = endAltitudeFeet
            self.startCourseDegrees = startCourseDegrees
            self.turnDegrees = turnDegrees
            self.endCourseDegrees = endCourseDegrees
        }
    }

    /// A leg placed on the time line.
    public struct ScheduledLeg: Sendable, Equatable {
        /// What the leg represents.
        public var kind: LegKind
        /// Leg start, Unix epoch seconds.
        public var startEpochSeconds: Double
        /// Leg end, Unix epoch seconds.
        public var endEpochSeconds: Double
        /// Ground speed at the start and at the end, knots.
        public var startSpeedKnots: Double, endSpeedKnots: Double
        /// Altitude at the start and at the end, feet.
        public var startAltitudeFeet: Double, endAltitudeFeet: Double
        /// Course at the start and at the end, degrees true in [0, 360).
        public var startCourseDegrees: Double, endCourseDegrees: Double
    }

    /// Start latitude, degrees.
    public var startLatitude: Double
    /// Start longitude, degrees.
    public var startLongitude: Double
    /// Course before the first leg, degrees true.
    public var startCourseDegrees: Double
    /// Altitude before the first leg (the departure field's elevation), feet.
    public var fieldElevationFeet: Double
    /// Unix epoch time of the first fix, seconds.
    public var startEpochSeconds: Double
    /// Time between fixes, seconds. Default 1 (1 Hz).
    public var intervalSeconds: Double
    /// Where the fixes claim to come from. Default `.device`.
    public var source: LocationSource
    /// Whether fixes carry `pressureAltitudeFeet` (ADS-B own-ship). Default: true for `.adsb` fixes.
    public var reportsPressureAltitude: Bool
    /// Pressure altitude minus geometric altitude, feet (a non-standard day). Default 0.
    public var pressureAltitudeOffsetFeet: Double
    /// The legs, flown in order.
    public var legs: [Leg]

    /// Creates a route with no legs yet (add them with the leg methods or ``appending(_:)``).
    public init(
        startLatitude: Double, startLongitude: Double, startCourseDegrees: Double = 0, fieldElevationFeet: Double = 0,
        startEpochSeconds: Double, intervalSeconds: Double = 1, source: LocationSource = .device,
        reportsPressureAltitude: Bool? = nil, pressureAltitudeOffsetFeet: Double = 0, legs: [Leg] = []
    ) {
        self.startLatitude = startLatitude
        self.startLongitude = startLongitude
        self.startCourseDegrees = startCourseDegrees
        self.fieldElevationFeet = fieldElevationFeet
        self.startEpochSeconds = startEpochSeconds
        self.intervalSeconds = intervalSeconds
        self.source = source
        self.reportsPressureAltitude = reportsPressureAltitude ?? (source == .adsb)
        self.pressureAltitudeOffsetFeet = pressureAltitudeOffsetFeet
        self.legs = legs
    }

    // MARK: - Building

    /// The route with `leg` appended.
    public func appending(_ leg: Leg) -> SyntheticRoute {
        var copy = self
        copy.legs.append(leg)
        return copy
    }

    /// Appends standing still on the ground (speed 0).
    public func parked(seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .parked, durationSeconds: seconds, startSpeedKnots: 0, endSpeedKnots: 0))
    }

    /// Appends a ground taxi at a constant speed, on `courseDegrees` (nil keeps the course).
    public func taxi(speedKnots: Double = 15, courseDegrees: Double? = nil, seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .taxi, durationSeconds: seconds, startSpeedKnots: speedKnots, endSpeedKnots: speedKnots,
                      startCourseDegrees: courseDegrees))
    }

    /// Appends a take-off: a ground roll accelerating to `rotateSpeedKnots` at the current altitude
    /// (skipped when `groundRollSeconds` is 0), then a climb to `toAltitudeFeet` ending at `speedKnots`.
    public func takeoffClimb(
        toAltitudeFeet altitudeFeet: Double, speedKnots: Double, seconds: Double, runwayCourseDegrees: Double? = nil,
        groundRollSeconds: Double = 30, rotateSpeedKnots: Double = 140
    ) -> SyntheticRoute {
        var route = self
        if groundRollSeconds > 0 {
            route = route.appending(Leg(kind: .takeoffRoll, durationSeconds: groundRollSeconds, startSpeedKnots: 0,
                                        endSpeedKnots: rotateSpeedKnots, startCourseDegrees: runwayCourseDegrees))
        }
        return route.appending(Leg(
            kind: .climb, durationSeconds: seconds, endSpeedKnots: speedKnots, endAltitudeFeet: altitudeFeet,
            startCourseDegrees: groundRollSeconds > 0 ? nil : runwayCourseDegrees))
    }

    /// Appends a climb (or any altitude change) to `toAltitudeFeet`, ending at `speedKnots` (nil keeps the speed).
    public func climb(toAltitudeFeet altitudeFeet: Double, speedKnots: Double? = nil, seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .climb, durationSeconds: seconds, endSpeedKnots: speedKnots, endAltitudeFeet: altitudeFeet))
    }

    /// Appends level flight; a given altitude or speed applies from the leg start (a layer change in one step).
    public func cruise(altitudeFeet: Double? = nil, speedKnots: Double? = nil, courseDegrees: Double? = nil,
                       seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .cruise, durationSeconds: seconds, startSpeedKnots: speedKnots, endSpeedKnots: speedKnots,
                      startAltitudeFeet: altitudeFeet, endAltitudeFeet: altitudeFeet, startCourseDegrees: courseDegrees))
    }

    /// Appends a level turn by `degrees` (positive right) at a constant rate over `seconds`.
    public func headingChange(byDegrees degrees: Double, seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .headingChange, durationSeconds: seconds, turnDegrees: degrees))
    }

    /// Appends a level turn to `courseDegrees` by the shorter way at a constant rate over `seconds`.
    public func headingChange(toCourseDegrees courseDegrees: Double, seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .headingChange, durationSeconds: seconds, endCourseDegrees: courseDegrees))
    }

    /// Appends a descent to `toAltitudeFeet`, ending at `speedKnots` (nil keeps the speed).
    public func descent(toAltitudeFeet altitudeFeet: Double, speedKnots: Double? = nil, seconds: Double) -> SyntheticRoute {
        appending(Leg(kind: .descent, durationSeconds: seconds, endSpeedKnots: speedKnots, endAltitudeFeet: altitudeFeet))
    }

    /// Appends a landing roll decelerating to `toSpeedKnots` (at `fieldElevationFeet` when given, else the current altitude).
    public func landingRoll(toSpeedKnots speedKnots: Double = 20, fieldElevationFeet: Double? = nil,
                            seconds: Double = 30) -> SyntheticRoute {
        appending(Leg(kind: .landingRoll, durationSeconds: seconds, endSpeedKnots: speedKnots,
                      startAltitudeFeet: fieldElevationFeet, endAltitudeFeet: fieldElevationFeet))
    }

    // MARK: - Reading

    /// Total length of the legs, seconds.
    public var durationSeconds: Double { legs.reduce(0) { $0 + Swift.max(0, $1.durationSeconds) } }

    /// Unix epoch time of the last fix's leg end, seconds.
    public var endEpochSeconds: Double { startEpochSeconds + durationSeconds }

    /// Number of fixes the route produces (one at the start, then one per interval up to the end).
    public var fixCount: Int { Int((durationSeconds / Swift.max(1e-6, intervalSeconds) + 1e-9).rounded(.down)) + 1 }

    /// The legs with their resolved times, speeds, altitudes and courses.
    public var schedule: [ScheduledLeg] {
        Self.resolve(self).map {
            ScheduledLeg(
                kind: $0.kind, startEpochSeconds: startEpochSeconds + $0.start, endEpochSeconds: startEpochSeconds + $0.end,
                startSpeedKnots: $0.speed0, endSpeedKnots: $0.speed1,
                startAltitudeFeet: $0.altitude0, endAltitudeFeet: $0.altitude1,
                startCourseDegrees: Geodesy.normalizedDegrees($0.course0),
                endCourseDegrees: Geodesy.normalizedDegrees($0.course0 + $0.turn))
        }
    }

    /// Every fix in memory.
    public func locations() -> [LocationSample] { Array(self) }

    /// Where the route is at `epochSeconds` (any time, not only a fix time), or nil outside the route's time span.
    ///
    /// Integrates from the start in the same steps as the fixes, so at a fix time it equals that fix.
    public func fix(atEpochSeconds epochSeconds: Double) -> LocationSample? {
        let t = epochSeconds - startEpochSeconds
        guard !legs.isEmpty, t >= 0, t <= durationSeconds else { return nil }
        var iterator = makeIterator()
        let before = (t / Swift.max(1e-6, intervalSeconds)).rounded(.down)
        for _ in 0..<Int(before) { _ = iterator.next() }   // same step boundaries as the fix sequence
        return iterator.fix(atRouteSeconds: t)
    }

    /// The route's final position (at ``endEpochSeconds``), or nil when it has no legs.
    public var endFix: LocationSample? { fix(atEpochSeconds: endEpochSeconds) }

    /// The fixes of several routes merged by time (ties keep the order of `routes`), e.g. device GNSS plus ADS-B own-ship.
    public static func merged(_ routes: [SyntheticRoute]) -> [LocationSample] {
        var tagged: [(order: Int, fix: LocationSample)] = []
        for (order, route) in routes.enumerated() {
            for fix in route { tagged.append((order, fix)) }
        }
        tagged.sort { a, b in a.fix.t != b.fix.t ? a.fix.t < b.fix.t : a.order < b.order }
        return tagged.map { $0.fix }
    }

    /// A copy of the route whose fixes claim `source`, `lagSeconds` later than this route's (the same path,
    /// reported late, as an ADS-B receiver does); ADS-B copies carry pressure altitude.
    public func reported(by source: LocationSource, lagSeconds: Double = 0, pressureAltitudeOffsetFeet: Double? = nil) -> SyntheticRoute {
        var copy = self
        copy.source = source
        copy.startEpochSeconds += lagSeconds
        copy.reportsPressureAltitude = source == .adsb || reportsPressureAltitude
        if let pressureAltitudeOffsetFeet { copy.pressureAltitudeOffsetFeet = pressureAltitudeOffsetFeet }
        return copy
    }

    /// Makes an iterator that computes the fixes lazily.
    public func makeIterator() -> Iterator { Iterator(route: self) }

    /// Computes the route's fixes one at a time.
    public struct Iterator: IteratorProtocol, Sendable {
        private let route: SyntheticRoute
        private let legs: [ResolvedLeg]
        private let count: Int
        private var index = 0
        private var timeSeconds = 0.0
        private var position: Geodesy.Point

        init(route: SyntheticRoute) {
            self.route = route
            legs = SyntheticRoute.resolve(route)
            count = legs.isEmpty ? 0 : route.fixCount
            position = (route.startLatitude, route.startLongitude)
        }

        /// The next fix, or nil after the route's end.
        public mutating func next() -> LocationSample? {
            guard index < count else { return nil }
            let t = Double(index) * route.intervalSeconds
            index += 1
            return fix(atRouteSeconds: t)
        }

        /// The fix at route time `t` (not before the last one produced), moving the position there.
        mutating func fix(atRouteSeconds t: Double) -> LocationSample {
            advance(to: t)
            let leg = legs[SyntheticRoute.legIndex(at: t, in: legs)]
            let state = leg.state(at: t)
            let knotsToMetersPerSecond = 1852.0 / 3600.0
            return LocationSample(
                t: route.startEpochSeconds + t, latitudeDegrees: position.latitude, longitudeDegrees: position.longitude,
                altitudeMeters: state.altitudeFeet * 0.3048, horizontalAccuracyMeters: 5, verticalAccuracyMeters: 8,
                speedMetersPerSecond: state.speedKnots * knotsToMetersPerSecond,
                courseDegrees: Geodesy.normalizedDegrees(state.courseDegrees),
                pressureAltitudeFeet: route.reportsPressureAltitude ? state.altitudeFeet + route.pressureAltitudeOffsetFeet : nil,
                source: route.source)
        }

        /// Moves the position from `timeSeconds` to `t`, one great-circle step per leg piece.
        private mutating func advance(to t: Double) {
            while timeSeconds < t {
                let i = SyntheticRoute.legIndex(at: timeSeconds, in: legs)
                let leg = legs[i]
                let end = i == legs.count - 1 ? t : Swift.min(t, leg.end)
                guard end > timeSeconds else { timeSeconds = t; break }
                let a = leg.state(at: timeSeconds), b = leg.state(at: end)
                let middle = leg.state(at: (timeSeconds + end) / 2)
                let distanceNM = (a.speedKnots + b.speedKnots) / 2 * (end - timeSeconds) / 3600
                if distanceNM > 0 {
                    position = Geodesy.destination(from: position, bearingDegrees: middle.courseDegrees, distanceNM: distanceNM)
                }
                timeSeconds = end
            }
        }
    }

    /// A leg with its start state and times resolved (seconds from the route start).
    struct ResolvedLeg: Sendable, Equatable {
        var kind: LegKind
        var start: Double
        var end: Double
        var speed0: Double, speed1: Double
        var altitude0: Double, altitude1: Double
        var course0: Double, turn: Double

        /// Speed (knots), altitude (feet) and course (degrees, not normalised) at route time `t`, clamped to the leg.
        func state(at t: Double) -> (speedKnots: Double, altitudeFeet: Double, courseDegrees: Double) {
            let length = end - start
            let u = length > 0 ? Swift.min(1, Swift.max(0, (t - start) / length)) : 1
            return (speed0 + (speed1 - speed0) * u, altitude0 + (altitude1 - altitude0) * u, course0 + turn * u)
        }
    }

    /// Resolves every leg's start state from the previous leg's end.
    static func resolve(_ route: SyntheticRoute) -> [ResolvedLeg] {
        var result: [ResolvedLeg] = []
        var t = 0.0
        var speed = 0.0
        var altitude = route.fieldElevationFeet
        var course = route.startCourseDegrees
        for leg in route.legs {
            let length = Swift.max(0, leg.durationSeconds)
            let speed0 = Swift.max(0, leg.startSpeedKnots ?? speed)
            let speed1 = Swift.max(0, leg.endSpeedKnots ?? speed0)
            let altitude0 = leg.startAltitudeFeet ?? altitude
            let altitude1 = leg.endAltitudeFeet ?? altitude0
            let course0 = leg.startCourseDegrees ?? course
            let turn = leg.endCourseDegrees.map { target -> Double in
                let right = Geodesy.normalizedDegrees(target - course0)   // clockwise change in [0, 360)
                return right > 180 ? right - 360 : right
            } ?? leg.turnDegrees
            result.append(ResolvedLeg(
                kind: leg.kind, start: t, end: t + length, speed0: speed0, speed1: speed1,
                altitude0: altitude0, altitude1: altitude1, course0: course0, turn: turn))
            t += length
            speed = speed1
            altitude = altitude1
            course = Geodesy.normalizedDegrees(course0 + turn)
        }
        return result
    }

    /// The leg flying at route time `t`: the last leg starting at or before `t` (the final leg past the end).
    static func legIndex(at t: Double, in legs: [ResolvedLeg]) -> Int {
        var index = 0
        for (i, leg) in legs.enumerated() where leg.start <= t && (leg.end > t || i == legs.count - 1) {
            index = i
            break
        }
        // Zero-length legs never fly; past the end the last leg holds.
        if t >= (legs.last?.end ?? 0) { index = legs.count - 1 }
        return index
    }
}
