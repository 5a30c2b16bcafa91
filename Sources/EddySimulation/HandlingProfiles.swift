import EddyVocabulary
import Foundation

/// How the device is handled in a `HandlingInterval` (docs/simulation.md §Handling).
public enum HandlingKind: String, Sendable, Equatable, Codable, CaseIterable {
    /// The historical burst: grabbed quickly, wobbled ±34° with 0.3 g hand accelerations, put back at a new cradle angle.
    case burst
    /// Lifted and turned slowly over 2–3 s (30–90° about an axis within 27° of the horizontal, lifted 10–30 cm), held
    /// and used, put back over 1.5–3 s.
    case slowPickUp = "slow"
    /// Lifted and turned within 0.2–0.5 s (30–90°), held and used, put back within 0.3–0.6 s.
    case fastPickUp = "fast"
    /// Slides in the cradle over the whole interval: a rotation of 3–20° and 1–5 cm of travel, no lift.
    case slide
}

/// Engine / airframe vibration shaking the device in a rattling cradle, on for the whole flight (not handling).
public struct CradleVibration: Sendable, Equatable, Codable {
    /// Vibration frequency, Hz (piston engines and propellers: 20–40 Hz).
    public var frequencyHz: Double
    /// Peak acceleration amplitude, g (10–50 mg in a loose cradle).
    public var amplitudeG: Double
    /// Creates a vibration.
    public init(frequencyHz: Double, amplitudeG: Double) { self.frequencyHz = frequencyHz; self.amplitudeG = amplitudeG }
}

/// A precomputed pick-up or slide (kinds other than `.burst`): the device orientation relative to the aircraft, its
/// rotation rate and the hand's specific force, all smooth (C¹) functions of time.
///
/// A pick-up rotates the device from `before` to `held` (travel `up`, device frame of `before`) over `riseSeconds`
/// while lifting it by `lift` (aircraft frame, metres), holds it with a slow hand wobble and small hand accelerations,
/// then rotates it from `held` to `after` (travel `down`) over `fallSeconds` while lowering it. A slide rotates from
/// `before` to `after` over the whole interval and shifts the device by `lift` (horizontal, no lift). Every motion
/// follows s(u) = (1 − cos πu)/2 of its normalised time u, so rates start and end at zero: the hardest case to detect.
struct HandlingPath {
    var kind: HandlingKind
    var start: Double
    var end: Double
    var before: Rotation3
    var held: Rotation3
    var after: Rotation3
    var up: SIMD3<Double>
    var down: SIMD3<Double>
    var riseSeconds: Double
    var fallSeconds: Double
    var lift: SIMD3<Double>
    var wobbleAxis: SIMD3<Double>
    var wobbleRadians: Double
    var wobbleHz: Double
    var handG: Double
    var handHz: SIMD3<Double>
    var handPhase: SIMD3<Double>

    /// Draws a path of `kind` for `interval`, starting from `before`; `cradle` draws a fresh cradle mount.
    init(kind: HandlingKind, interval: HandlingInterval, before: Rotation3, rng: inout Xoshiro256StarStar,
         cradle: (inout Xoshiro256StarStar) -> Rotation3) {
        self.kind = kind
        start = interval.start
        end = interval.end
        self.before = before
        let length = interval.end - interval.start
        func randomAxis() -> SIMD3<Double> {
            let v = SIMD3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
            return v / max(1e-9, (v * v).sum().squareRoot())
        }
        func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * rng.nextUniform() }
        switch kind {
        case .slide:
            let angle = uniform(3, 20) * .pi / 180
            up = randomAxis() * angle
            down = .zero
            held = before
            after = before.multiplied(by: Rotation3(rotationVector: up))
            riseSeconds = length
            fallSeconds = 0
            let heading = uniform(0, 2 * .pi)
            lift = SIMD3(cos(heading), sin(heading), 0) * uniform(0.01, 0.05)
            wobbleRadians = 0
            handG = 0
        case .slowPickUp, .fastPickUp, .burst:
            let slow = kind != .fastPickUp
            riseSeconds = min(length / 3, slow ? uniform(2, 3) : uniform(0.2, 0.5))
            fallSeconds = min(length / 3, slow ? uniform(1.5, 3) : uniform(0.3, 0.6))
            // Turned 30–90° towards the user, tipping the screen: about an axis within 27° of the horizontal (a turn
            // about the vertical alone would leave the apparent vertical where it was and need no re-calibration).
            let vertical = before.transposed.apply(SIMD3(0, 0, 1))
            var horizontal = randomAxis()
            horizontal -= vertical * (horizontal * vertical).sum()
            horizontal /= max(1e-9, (horizontal * horizontal).sum().squareRoot())
            var axis = horizontal + vertical * uniform(-0.5, 0.5)
            axis /= (axis * axis).sum().squareRoot()
            up = axis * (uniform(30, 90) * .pi / 180)
            held = before.multiplied(by: Rotation3(rotationVector: up))
            // Put back re-seated: a fresh cradle angle, or the old one a few degrees off.
            after = rng.nextUniform() < 0.5 ? cradle(&rng) : before.multiplied(by: Rotation3(rotationVector: randomAxis() * uniform(2, 15) * .pi / 180))
            down = held.transposed.multiplied(by: after).rotationVector
            let heading = uniform(0, 2 * .pi)
            lift = SIMD3(0.3 * cos(heading), 0.3 * sin(heading), 1) * uniform(0.1, 0.3)
            wobbleRadians = uniform(2, 8) * .pi / 180
            handG = uniform(0.01, 0.05)
        }
        wobbleAxis = randomAxis()
        wobbleHz = uniform(0.2, 0.8)
        handHz = SIMD3(uniform(0.5, 3), uniform(0.5, 3), uniform(0.5, 3))
        handPhase = SIMD3(uniform(0, 2 * .pi), uniform(0, 2 * .pi), uniform(0, 2 * .pi))
    }

    /// s(u) = (1 − cos πu)/2 and its first two time derivatives for a motion of `length` seconds at local time `local`.
    private static func ease(_ local: Double, length: Double) -> (s: Double, ds: Double, dds: Double) {
        guard length > 0 else { return (1, 0, 0) }
        let u = min(1, max(0, local / length))
        let w = Double.pi / length
        return ((1 - cos(.pi * u)) / 2, w / 2 * sin(.pi * u), w * w / 2 * cos(.pi * u))
    }

    /// Device orientation (device → aircraft), device-frame rotation rate relative to the aircraft (rad/s) and the
    /// hand's specific force in the aircraft frame (g) at `t` (inside [start, end]).
    func state(at t: Double) -> (rotation: Rotation3, rate: SIMD3<Double>, handAircraftG: SIMD3<Double>) {
        let local = t - start
        let g = StandardAtmosphere.gravity
        if kind == .slide {
            let e = Self.ease(local, length: riseSeconds)
            return (before.multiplied(by: Rotation3(rotationVector: up * e.s)), up * e.ds, lift * (e.dds / g))
        }
        let length = end - start
        if local < riseSeconds {
            let e = Self.ease(local, length: riseSeconds)
            return (before.multiplied(by: Rotation3(rotationVector: up * e.s)), up * e.ds, lift * (e.dds / g))
        }
        if local > length - fallSeconds {
            let e = Self.ease(local - (length - fallSeconds), length: fallSeconds)
            return (held.multiplied(by: Rotation3(rotationVector: down * e.s)), down * e.ds, -lift * (e.dds / g))
        }
        // Held and used: a slow wobble and small hand accelerations, faded in and out over ≤ 1 s.
        let heldLength = length - riseSeconds - fallSeconds
        let heldLocal = local - riseSeconds
        let (envelope, envelopeDot) = Self.fade(heldLocal, length: heldLength)
        let omega = 2 * Double.pi * wobbleHz
        let w = wobbleRadians * envelope * sin(omega * heldLocal)
        let wDot = wobbleRadians * (envelopeDot * sin(omega * heldLocal) + envelope * omega * cos(omega * heldLocal))
        let phase = handHz * (2 * .pi * heldLocal) + handPhase
        let hand = SIMD3(sin(phase.x), sin(phase.y), sin(phase.z)) * (handG * envelope)
        return (held.multiplied(by: Rotation3(rotationVector: wobbleAxis * w)), wobbleAxis * wDot, hand)
    }

    /// sin² fade in / out over min(1 s, length/3) and its derivative.
    private static func fade(_ local: Double, length: Double) -> (Double, Double) {
        let ramp = min(1, length / 3)
        guard ramp > 0 else { return (0, 0) }
        let edge = min(local, length - local)
        guard edge < ramp else { return (1, 0) }
        let x = max(0, edge) / ramp * (Double.pi / 2)
        let slope = 2 * sin(x) * cos(x) * (Double.pi / 2) / ramp
        return (sin(x) * sin(x), local < length / 2 ? slope : -slope)
    }
}

/// The cradle's vibration in the device frame: a fixed random direction (mostly across the screen's normal is as
/// likely as along it) at the scenario's frequency, with a slow ±10 % frequency wander like an engine's.
struct VibrationSource {
    let vibration: CradleVibration
    let direction: SIMD3<Double>
    let phase: Double

    /// Draws the direction and phase from `seed` (its own stream: no other draw changes).
    init(vibration: CradleVibration, seed: UInt64) {
        self.vibration = vibration
        var rng = Xoshiro256StarStar(seed: seed ^ 0x5EED_F1B2_A7E0_0001)
        let v = SIMD3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
        direction = v / max(1e-9, (v * v).sum().squareRoot())
        phase = 2 * .pi * rng.nextUniform()
    }

    /// Vibration specific force in the device frame at `t`, g.
    func force(at t: Double) -> SIMD3<Double> {
        // Phase of a frequency f(t) = f0 (1 + 0.1 sin(2π t / 30)): its integral.
        let f0 = vibration.frequencyHz
        let wander = 0.1 * f0 * 30 / (2 * .pi) * (1 - cos(2 * .pi * t / 30))
        return direction * (vibration.amplitudeG * sin(2 * .pi * (f0 * t + wander) + phase))
    }
}

extension FlightSimulator {
    /// For each handling interval (in time order), how far the aircraft's vertical moves in the device frame, degrees:
    /// from the mount before to the held orientation (pick-ups, bursts: to the mount after), or to the mount after (slides).
    package static func handlingTiltsDegrees(_ scenario: FlightScenario) -> [Double] {
        SimulationState(scenario: scenario).motions.map { motion in
            let target = motion.path.map { $0.kind == .slide ? $0.after : $0.held } ?? motion.after
            let a = motion.before.transposed.apply(SIMD3(0, 0, 1)), b = target.transposed.apply(SIMD3(0, 0, 1))
            return acos(max(-1, min(1, (a * b).sum()))) * 180 / .pi
        }
    }
}
