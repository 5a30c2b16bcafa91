import EddyDetection
import EddySupport
public import EddyVocabulary
import Foundation

/// One time slice of a simulated flight; every array is time-ordered and the slices follow each other.
public struct SimulatedChunk: Sendable {
    /// Accelerometer samples (iOS convention: a device face-up at rest reads z ≈ −1 g).
    public var accelerometer: [AccelerometerSample] = []
    /// Gyroscope samples (empty when the scenario has no gyroscope).
    public var gyroscope: [GyroscopeSample] = []
    /// Location fixes at 1 Hz.
    public var location: [LocationSample] = []
    /// Barometer samples at 1 Hz (empty when the scenario has no barometer).
    public var barometer: [BarometerSample] = []
    /// The true track at 1 Hz (one point per location fix).
    public var truth: [TruthTrackPoint] = []

    /// Creates an empty chunk.
    package init() {}

    /// All samples merged by time (at equal times: location, barometer, gyroscope, accelerometer).
    public func mergedSamples() -> [SensorSample] {
        var result: [SensorSample] = []
        result.reserveCapacity(accelerometer.count + gyroscope.count + location.count + barometer.count)
        var a = 0, g = 0, l = 0, b = 0
        while true {
            var best = Double.infinity
            var which = -1
            if l < location.count, location[l].t < best { best = location[l].t; which = 0 }
            if b < barometer.count, barometer[b].t < best { best = barometer[b].t; which = 1 }
            if g < gyroscope.count, gyroscope[g].t < best { best = gyroscope[g].t; which = 2 }
            if a < accelerometer.count, accelerometer[a].t < best { best = accelerometer[a].t; which = 3 }
            switch which {
            case 0: result.append(.location(location[l])); l += 1
            case 1: result.append(.barometer(barometer[b])); b += 1
            case 2: result.append(.gyroscope(gyroscope[g])); g += 1
            case 3: result.append(.accelerometer(accelerometer[a])); a += 1
            default: return result
            }
        }
    }
}

/// A whole simulated flight held in memory (convenience for tests and short flights).
package struct SimulatedFlight: Sendable {
    /// The scenario flown.
    package var scenario: FlightScenario
    /// The truth record.
    package var truth: FlightTruth
    /// All samples, one chunk covering the flight.
    package var samples: SimulatedChunk
}

/// Synthesises flights with known truth: von Kármán gusts through the class's plunge response, gravity
/// through a device mount, coordinated turns, handling bursts, sensor noise; deterministic from the seed.
package enum FlightSimulator {
    /// Length of the streamed chunks, seconds.
    package static let chunkSeconds = 10.0
    /// Hand acceleration amplitude during handling, g.
    static let handAccelerationG = 0.3
    /// Extra wobble rotation amplitude during handling, radians.
    static let handWobbleRadians = 0.6

    /// The truth record of a scenario (turbulence segments and handling intervals).
    package static func truth(for scenario: FlightScenario) -> FlightTruth {
        var t = 0.0
        var turbulence: [TruthInterval] = []
        for segment in scenario.segments where segment.durationSeconds > 0 {
            turbulence.append(TruthInterval(start: t, end: t + segment.durationSeconds, edr: segment.edr))
            t += segment.durationSeconds
        }
        let handling = scenario.handling.map { TruthInterval(start: $0.start, end: $0.end, edr: nil) }
        let manoeuvres = ManoeuvrePlan(scenario: scenario).items.map { ManoeuvreInterval(kind: $0.kind, start: $0.start, end: $0.end) }
        return FlightTruth(turbulence: turbulence, handling: handling, manoeuvres: manoeuvres)
    }

    /// Simulates the whole flight into memory.
    package static func simulate(_ scenario: FlightScenario) -> SimulatedFlight {
        var all = SimulatedChunk()
        simulate(scenario) { chunk in
            all.accelerometer.append(contentsOf: chunk.accelerometer)
            all.gyroscope.append(contentsOf: chunk.gyroscope)
            all.location.append(contentsOf: chunk.location)
            all.barometer.append(contentsOf: chunk.barometer)
            all.truth.append(contentsOf: chunk.truth)
        }
        return SimulatedFlight(scenario: scenario, truth: truth(for: scenario), samples: all)
    }

    /// Streams the flight in time-ordered chunks of `chunkSeconds` (bounded memory for any flight length).
    package static func simulate(_ scenario: FlightScenario, chunk: (SimulatedChunk) throws -> Void) rethrows {
        var simulation = FlightSimulation(scenario)
        while let next = simulation.next() { try chunk(next) }
    }
}

/// A flight simulation pulled chunk by chunk, in time order (a caller that waits between chunks, such as the engine's
/// real-time demo); the chunks are those `FlightSimulator.simulate(_:chunk:)` streams.
package struct FlightSimulation {
    private var state: SimulationState
    private let duration: Double
    private var chunkStart = 0.0
    private var index = 0

    /// A simulation of `scenario` at its start.
    package init(_ scenario: FlightScenario) {
        state = SimulationState(scenario: scenario)
        duration = scenario.durationSeconds
    }

    /// The next `FlightSimulator.chunkSeconds` of the flight (nil after its end).
    package mutating func next() -> SimulatedChunk? {
        guard chunkStart < duration else { return nil }
        let chunkEnd = min(duration, Double(index + 1) * FlightSimulator.chunkSeconds)
        index += 1
        chunkStart = chunkEnd
        return state.produce(until: chunkEnd)
    }
}

/// A handling burst, precomputed: orientation path from `before` to `after` plus a wobble and hand accelerations.
struct HandlingMotion {
    var start: Double
    var end: Double
    var before: Rotation3
    var after: Rotation3
    var travel: SIMD3<Double>          // rotation vector (device frame of `before`): before⁻¹·after
    var wobbleAxis: SIMD3<Double>
    var wobbleHz: Double
    var handHz: SIMD3<Double>
    var handPhase: SIMD3<Double>
    /// The path of a pick-up or slide (kinds other than `.burst`, HandlingProfiles.swift); nil for a burst.
    var path: HandlingPath? = nil
}

/// The mutable state of one simulation run.
struct SimulationState {
    let scenario: FlightScenario
    let rate: Double
    let speed: Double
    let gravity = StandardAtmosphere.gravity
    var gusts: GustSynthesizer
    var noise: Xoshiro256StarStar
    var mount: Rotation3
    var motions: [HandlingMotion]
    var segmentEnds: [Double]
    var segmentEDR: [Double]
    var segmentIndex = 0
    var motionIndex = 0
    var nextAccelerometerIndex = 0
    var nextFixSecond = 0
    var latitude: Double
    var longitude: Double
    var courseDegrees: Double
    /// Barometer reading without noise when the altitude is constant (no profile), hPa.
    let pressureHectopascals: Double
    let responseGain: Double
    let atmosphere: SimulatedAtmosphere
    /// The altitude profile against the day's ground (nil: level at `scenario.altitudeFeet`).
    let profile: ResolvedProfile?
    /// The cabin schedule of a pressurised aircraft flying a profile.
    let cabin: CabinSchedule?
    /// The GNSS error process (nil for `.ideal`: exact fixes, no draws).
    var gnss: GNSSErrorModel?
    /// The rattling cradle's vibration (nil: none).
    let vibration: VibrationSource?
    /// The manoeuvres (nil without any: the output is what it always was).
    let manoeuvres: ManoeuvrePlan?
    /// Coordinated turns: the scenario's and the steep turns of the manoeuvres.
    let allTurns: [CoordinatedTurn]

    init(scenario: FlightScenario) {
        self.scenario = scenario
        rate = max(1, scenario.accelerometerRateHz)
        speed = max(1, scenario.groundSpeedMetersPerSecond)
        var seeds = SplitMix64(seed: scenario.seed)
        var geometry = Xoshiro256StarStar(seed: seeds.next())
        let gustSeed = seeds.next()
        noise = Xoshiro256StarStar(seed: seeds.next())
        // New streams are seeded after the original three, so a scenario without the new features draws exactly
        // the numbers it always did (the fifth output is `FlightScenario.randomBarometerBiasHectopascals`).
        let gnssSeed = seeds.next()
        let altitudeMeters = scenario.altitudeFeet * 0.3048
        let atmosphere = scenario.atmosphere
        self.atmosphere = atmosphere
        var groundFeet: Double?
        if let field = scenario.fieldElevationFeet {
            groundFeet = atmosphere.pressureAltitudeFeet(mslAltitudeMeters: field * 0.3048)
        }
        let profile = scenario.altitudeProfile
            .map { ResolvedProfile(waypoints: $0, groundFeet: groundFeet, seaLevelFeet: atmosphere.seaLevelPressureAltitudeFeet) }
            .flatMap { $0.times.isEmpty ? nil : $0 }
        self.profile = profile
        // The gust response is precomputed for block synthesis: it uses the cruise (highest) altitude's density,
        // with the true temperature.
        let responseAltitudeFeet = profile?.highestFeet ?? scenario.altitudeFeet
        let rho = atmosphere.densityKilogramsPerCubicMeter(pressureAltitudeFeet: responseAltitudeFeet)
        responseGain = AircraftResponseParameters.forClass(scenario.aircraftClass).responseGain
        let response = PlungeResponse(
            parameters: .forClass(scenario.aircraftClass), trueAirspeedMetersPerSecond: speed, densityKilogramsPerCubicMeter: rho)
        gusts = GustSynthesizer(sampleRateHz: rate, response: response, trueAirspeedMetersPerSecond: speed, seed: gustSeed)
        let flat = scenario.flat
        mount = scenario.mountRotation ?? SimulationState.randomMount(flat: flat, using: &geometry)
        var motions: [HandlingMotion] = []
        var before = mount
        // Pick-ups and slides draw from their own stream, so bursts draw exactly what they always did.
        var pathRandom = Xoshiro256StarStar(seed: scenario.seed ^ 0x4A4D_D11E_0000_0001)
        for interval in scenario.handling.sorted(by: { $0.start < $1.start }) where interval.end > interval.start {
            if interval.kind != .burst {
                let path = HandlingPath(kind: interval.kind, interval: interval, before: before, rng: &pathRandom) {
                    SimulationState.randomMount(flat: flat, using: &$0)
                }
                motions.append(HandlingMotion(
                    start: interval.start, end: interval.end, before: before, after: path.after, travel: .zero,
                    wobbleAxis: .zero, wobbleHz: 0, handHz: .zero, handPhase: .zero, path: path))
                before = path.after
                continue
            }
            let after = SimulationState.randomMount(flat: flat, using: &geometry)
            let travel = before.transposed.multiplied(by: after).rotationVector
            let axis = SIMD3(geometry.nextGaussian(), geometry.nextGaussian(), geometry.nextGaussian())
            let hand = SIMD3(1 + 2 * geometry.nextUniform(), 1 + 2 * geometry.nextUniform(), 1 + 2 * geometry.nextUniform())
            let phase = SIMD3(geometry.nextUniform(), geometry.nextUniform(), geometry.nextUniform()) * (2 * .pi)
            motions.append(HandlingMotion(
                start: interval.start, end: interval.end, before: before, after: after, travel: travel,
                wobbleAxis: axis / max(1e-9, (axis * axis).sum().squareRoot()),
                wobbleHz: 0.5 + geometry.nextUniform(), handHz: hand, handPhase: phase))
            before = after
        }
        self.motions = motions
        var ends: [Double] = []
        var edrs: [Double] = []
        var t = 0.0
        for segment in scenario.segments where segment.durationSeconds > 0 {
            t += segment.durationSeconds
            ends.append(t)
            edrs.append(max(0, segment.edr))
        }
        segmentEnds = ends
        segmentEDR = edrs
        latitude = scenario.startLatitude
        longitude = scenario.startLongitude
        courseDegrees = scenario.courseDegrees
        let pressureAltitudeMeters = scenario.pressurizedCabin ? scenario.cabinAltitudeFeet * 0.3048 : altitudeMeters
        let pressure = StandardAtmosphere.pressurePascals(altitudeMeters: pressureAltitudeMeters) / 100
        pressureHectopascals = scenario.barometerBiasHectopascals == 0 ? pressure : pressure + scenario.barometerBiasHectopascals
        if let profile, scenario.pressurizedCabin {
            cabin = CabinSchedule(
                groundPressureAltitudeFeet: groundFeet ?? atmosphere.seaLevelPressureAltitudeFeet,
                cruisePressureAltitudeFeet: profile.highestFeet, cabinAltitudeFeet: scenario.cabinAltitudeFeet)
        } else {
            cabin = nil
        }
        gnss = GNSSErrorParameters.forProfile(scenario.gnssProfile).map { GNSSErrorModel(parameters: $0, seed: gnssSeed) }
        vibration = scenario.vibration.map { VibrationSource(vibration: $0, seed: scenario.seed) }
        let plan = scenario.manoeuvres.isEmpty ? nil : ManoeuvrePlan(scenario: scenario)
        manoeuvres = plan
        allTurns = scenario.turns + (plan?.turns ?? [])
    }

    /// Ground speed at `t`: the ground manoeuvres' where they decide it, else the scenario's.
    func groundSpeed(at t: Double) -> Double { manoeuvres?.groundSpeed(at: t) ?? speed }

    /// A device mount: flat (random heading, tilt < 5°) or a cradle angle well away from flat (|û_z| < cos 30°).
    static func randomMount(flat: Bool, using rng: inout Xoshiro256StarStar) -> Rotation3 {
        if flat {
            let yaw = Rotation3(axis: [0, 0, 1], angleRadians: 2 * .pi * rng.nextUniform())
            let tilt = Rotation3(axis: [rng.nextGaussian(), rng.nextGaussian(), 0], angleRadians: 0.08 * rng.nextUniform())
            return yaw.multiplied(by: tilt)
        }
        while true {
            let candidate = Rotation3.random(using: &rng)
            if abs(candidate.r2.z) < cos(30 * Double.pi / 180) { return candidate }
        }
    }

    /// Bank (rad) and roll rate (rad/s) at `t`: the first active turn.
    func bank(at t: Double) -> (phi: Double, rate: Double) {
        for turn in allTurns {
            let b = turn.bank(at: t)
            if b.phi != 0 || b.rate != 0 { return b }
        }
        return (0, 0)
    }

    /// Device orientation, device-frame rotation rate relative to the aircraft, and hand specific force at `t`.
    mutating func device(at t: Double) -> (rotation: Rotation3, rate: SIMD3<Double>, hand: SIMD3<Double>) {
        while motionIndex < motions.count && t >= motions[motionIndex].end { mount = motions[motionIndex].after; motionIndex += 1 }
        guard motionIndex < motions.count, t > motions[motionIndex].start else { return (mount, .zero, .zero) }
        let m = motions[motionIndex]
        if let path = m.path {
            let state = path.state(at: t)
            return (state.rotation, state.rate, state.rotation.transposed.apply(state.handAircraftG))
        }
        let length = m.end - m.start
        let u = (t - m.start) / length
        let s = (1 - cos(.pi * u)) / 2
        let sDot = .pi / (2 * length) * sin(.pi * u)
        // Hands grab and let go quickly: wobble and hand accelerations ramp in / out over ≤ 0.5 s.
        let (envelope, envelopeDot) = SimulationState.envelope(t - m.start, length: length)
        let omegaW = 2 * Double.pi * m.wobbleHz
        let w = FlightSimulator.handWobbleRadians * envelope * sin(omegaW * (t - m.start))
        let wDot = FlightSimulator.handWobbleRadians
            * (envelopeDot * sin(omegaW * (t - m.start)) + envelope * omegaW * cos(omegaW * (t - m.start)))
        let wobble = Rotation3(rotationVector: m.wobbleAxis * w)
        let rotation = m.before.multiplied(by: Rotation3(rotationVector: m.travel * s)).multiplied(by: wobble)
        let rate = wobble.transposed.apply(m.travel * sDot) + m.wobbleAxis * wDot
        let phase = m.handHz * (2 * .pi * (t - m.start)) + m.handPhase
        let hand = SIMD3(sin(phase.x), sin(phase.y), sin(phase.z)) * (FlightSimulator.handAccelerationG * envelope)
        return (rotation, rate, hand)
    }

    /// Smooth on/off envelope (sin² ramps of min(0.5 s, length/4) at both ends) and its time derivative.
    static func envelope(_ local: Double, length: Double) -> (Double, Double) {
        let ramp = min(0.5, length / 4)
        let edge = min(local, length - local)
        guard edge < ramp else { return (1, 0) }
        let x = max(0, edge) / ramp * (Double.pi / 2)
        let slope = 2 * sin(x) * cos(x) * (Double.pi / 2) / ramp
        return (sin(x) * sin(x), local < length / 2 ? slope : -slope)
    }

    mutating func edr(at t: Double) -> Double {
        while segmentIndex < segmentEnds.count - 1 && t >= segmentEnds[segmentIndex] { segmentIndex += 1 }
        return segmentEDR.isEmpty ? 0 : segmentEDR[segmentIndex]
    }

    /// Produces all samples with t < `end`.
    mutating func produce(until end: Double) -> SimulatedChunk {
        var chunk = SimulatedChunk()
        // Location and barometer at whole seconds.
        while Double(nextFixSecond) < end {
            let t = Double(nextFixSecond)
            if nextFixSecond > 0 {
                let mid = t - 0.5
                let phi = bank(at: mid).phi
                let v = groundSpeed(at: mid)
                let turnRate = gravity * tan(phi) / max(1, v) * 180 / .pi   // °/s, positive = right
                courseDegrees += turnRate
                courseDegrees = courseDegrees.truncatingRemainder(dividingBy: 360)
                if courseDegrees < 0 { courseDegrees += 360 }
                step(distanceMeters: v, courseDegrees: courseDegrees - turnRate / 2)
            }
            var (altitudeFeet, rateFeetPerSecond) = profile?.state(at: t) ?? (scenario.altitudeFeet, 0)
            if let profile, !profile.onGround(altitudeFeet: altitudeFeet) {
                let wander = Self.altitudeHoldWander(t: t, seed: scenario.seed)
                altitudeFeet += wander.feet
                rateFeetPerSecond += wander.rate
            }
            let mslMeters = atmosphere.mslAltitudeMeters(pressureAltitudeFeet: altitudeFeet)
            var fix = LocationSample(
                t: t, latitudeDegrees: latitude, longitudeDegrees: longitude,
                altitudeMeters: mslMeters, horizontalAccuracyMeters: 5, verticalAccuracyMeters: 8,
                speedMetersPerSecond: groundSpeed(at: t), courseDegrees: courseDegrees)
            var multipath = false
            if gnss != nil, let error = gnss?.next() {
                apply(error, to: &fix)
                multipath = error.multipath
            }
            if scenario.adsb {
                fix.source = .adsb
                fix.pressureAltitudeFeet = (altitudeFeet / 25).rounded() * 25
            }
            chunk.location.append(fix)
            var cabinFeet: Double?
            var baroPressure = pressureHectopascals
            if let cabin {
                baroPressure = cabin.cabinPressureHectopascals(aircraftPressureAltitudeFeet: altitudeFeet) + scenario.barometerBiasHectopascals
                cabinFeet = StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: baroPressure - scenario.barometerBiasHectopascals)
            } else if scenario.pressurizedCabin {
                cabinFeet = scenario.cabinAltitudeFeet
            } else if profile != nil {
                baroPressure = atmosphere.staticPressureHectopascals(pressureAltitudeFeet: altitudeFeet) + scenario.barometerBiasHectopascals
            }
            if scenario.includeBarometer {
                chunk.barometer.append(BarometerSample(t: t, pressureHectopascals: baroPressure + 0.02 * noise.nextGaussian()))
            }
            chunk.truth.append(TruthTrackPoint(
                t: t, latitudeDegrees: latitude, longitudeDegrees: longitude, pressureAltitudeFeet: altitudeFeet,
                mslAltitudeMeters: mslMeters, verticalSpeedFeetPerMinute: rateFeetPerSecond * 60,
                mslVerticalSpeedMetersPerSecond: rateFeetPerSecond * 0.3048 * atmosphere.thicknessRatio(pressureAltitudeFeet: altitudeFeet),
                cabinPressureAltitudeFeet: cabinFeet,
                staticPressureHectopascals: atmosphere.staticPressureHectopascals(pressureAltitudeFeet: altitudeFeet),
                groundSpeedMetersPerSecond: groundSpeed(at: t), courseDegrees: courseDegrees,
                onGround: manoeuvres?.onGround(at: t) ?? profile?.onGround(altitudeFeet: altitudeFeet) ?? false, multipath: multipath))
            nextFixSecond += 1
        }
        // Accelerometer and gyroscope at the sensor rate.
        let count = Int((end * rate).rounded(.up)) - nextAccelerometerIndex
        chunk.accelerometer.reserveCapacity(max(0, count))
        if scenario.includeGyroscope { chunk.gyroscope.reserveCapacity(max(0, count)) }
        while true {
            let t = Double(nextAccelerometerIndex) / rate
            guard t < end else { break }
            nextAccelerometerIndex += 1
            let gust = gusts.next() * edr(at: t) * responseGain
            let (phi, rollRate) = bank(at: t)
            var yawRate = gravity * tan(phi) / speed
            var forceAircraft = SIMD3<Double>(0, 0, 1 / cos(phi) + gust)
            var pitchRate = 0.0
            if let manoeuvres {
                yawRate = gravity * tan(phi) / max(1, manoeuvres.groundSpeed(at: t) ?? speed)
                let effect = manoeuvres.effect(at: t)
                forceAircraft.x += effect.forward
                forceAircraft.z += effect.deltaN
                pitchRate = effect.pitchRate
            }
            let rateAircraft = SIMD3<Double>(rollRate, yawRate * sin(phi) + pitchRate, yawRate * cos(phi))
            let (rotation, relativeRate, hand) = device(at: t)
            let inverse = rotation.transposed
            var force = inverse.apply(forceAircraft) + hand
            if let vibration { force += vibration.force(at: t) }
            let a = scenario.noiseRMSg
            chunk.accelerometer.append(AccelerometerSample(
                t: t, x: -force.x + a * noise.nextGaussian(), y: -force.y + a * noise.nextGaussian(),
                z: -force.z + a * noise.nextGaussian()))
            if scenario.includeGyroscope {
                let omega = inverse.apply(rateAircraft) + relativeRate
                let g = scenario.gyroNoiseRMSRadiansPerSecond
                chunk.gyroscope.append(GyroscopeSample(
                    t: t, x: omega.x + g * noise.nextGaussian(), y: omega.y + g * noise.nextGaussian(),
                    z: omega.z + g * noise.nextGaussian()))
            }
        }
        return chunk
    }

    /// Adds a GNSS error to an exact fix: position offsets north / east / up, reported accuracies, and velocity
    /// noise in the speed and course.
    func apply(_ error: GNSSFixError, to fix: inout LocationSample) {
        let radius = 6_371_008.8
        let latitude = fix.latitudeDegrees + error.northMeters / radius * 180 / .pi
        let cosine = max(1e-6, cos(fix.latitudeDegrees * .pi / 180))
        var longitude = fix.longitudeDegrees + error.eastMeters / (radius * cosine) * 180 / .pi
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        fix.latitudeDegrees = min(90, max(-90, latitude))
        fix.longitudeDegrees = longitude
        fix.altitudeMeters = (fix.altitudeMeters ?? 0) + error.upMeters
        fix.horizontalAccuracyMeters = error.horizontalAccuracyMeters
        fix.verticalAccuracyMeters = error.verticalAccuracyMeters
        let course = courseDegrees * .pi / 180
        let north = speed * cos(course) + error.velocityNorth
        let east = speed * sin(course) + error.velocityEast
        fix.speedMetersPerSecond = (north * north + east * east).squareRoot()
        var reported = atan2(east, north) * 180 / .pi
        if reported < 0 { reported += 360 }
        fix.courseDegrees = reported
    }

    /// An autopilot's altitude-keeping wander around the profile: two slow sinusoids of 12 ft (periods 67 s and
    /// 173 s, phases from the seed), at most ±24 ft — real aircraft hold a level within a few tens of feet (RVSM
    /// height-keeping data put typical deviations at ±20–30 ft), so a profile is never flown to the exact foot and an
    /// ADS-B report's 25-ft quantisation error is spread as it is in reality. Only with a profile (new flights).
    static func altitudeHoldWander(t: Double, seed: UInt64) -> (feet: Double, rate: Double) {
        var phases = SplitMix64(seed: seed ^ 0xA171_7D0E)
        let p1 = Double(phases.next() >> 11) * 0x1.0p-53 * 2 * .pi, p2 = Double(phases.next() >> 11) * 0x1.0p-53 * 2 * .pi
        let w1 = 2 * Double.pi / 67, w2 = 2 * Double.pi / 173
        return (12 * sin(w1 * t + p1) + 12 * sin(w2 * t + p2), 12 * w1 * cos(w1 * t + p1) + 12 * w2 * cos(w2 * t + p2))
    }

    /// One second's step. With the altitude features (a phone GNSS, a profile…) the step is taken on the WGS-84
    /// ellipsoid (meridian and prime-vertical radii of curvature at the current latitude), so that positions and the
    /// reported ground speed agree as a real receiver's do: on the sphere they disagree by ≈ 0.3 %, 0.7 m/s at
    /// 230 m/s, which a position filter trusting the speed turns into tens of metres. Without them: the historical
    /// great-circle step on a sphere of radius 6,371,008.8 m (IUGG mean radius), so old flights keep their bytes.
    mutating func step(distanceMeters: Double, courseDegrees: Double) {
        if scenario.usesAltitudeFeatures {
            let a = 6_378_137.0, e2 = 0.006_694_379_990_14
            let theta = courseDegrees * .pi / 180
            // Midpoint latitude for the radii (second-order accurate over a 1 s step).
            var phi = latitude * .pi / 180
            let north = distanceMeters * cos(theta), east = distanceMeters * sin(theta)
            for _ in 0..<2 {
                let w = (1 - e2 * sin(phi) * sin(phi)).squareRoot()
                let meridian = a * (1 - e2) / (w * w * w)
                phi = (latitude + 0.5 * north / meridian * 180 / .pi) * .pi / 180
            }
            let w = (1 - e2 * sin(phi) * sin(phi)).squareRoot()
            let meridian = a * (1 - e2) / (w * w * w), primeVertical = a / w
            latitude = max(-90, min(90, latitude + north / meridian * 180 / .pi))
            var lon = longitude + east / (primeVertical * max(1e-9, cos(phi))) * 180 / .pi
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            longitude = lon
            return
        }
        let delta = distanceMeters / 6_371_008.8
        let theta = courseDegrees * .pi / 180
        let lat1 = latitude * .pi / 180, lon1 = longitude * .pi / 180
        let lat2 = asin(sin(lat1) * cos(delta) + cos(lat1) * sin(delta) * cos(theta))
        let lon2 = lon1 + atan2(sin(theta) * sin(delta) * cos(lat1), cos(delta) - sin(lat1) * sin(lat2))
        latitude = lat2 * 180 / .pi
        var lon = lon2 * 180 / .pi
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        longitude = lon
    }
}
