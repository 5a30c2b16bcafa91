import EddySupport
package import EddyVocabulary
import Foundation

/// A kind of manoeuvre the simulator flies (docs/simulation.md "Manoeuvres").
public enum ManoeuvreKind: String, Sendable, Codable, CaseIterable, Hashable {
    /// A level 360° turn at 45–60° bank: n = 1/cos φ, rolled in and out at the class's roll rate.
    case steepTurn = "steep-turn"
    /// A pull to `value` g (default 2 g light, 1.5 g transport), then the push-over that levels the path again.
    case pullUp = "pull-up"
    /// A zero-g parabola: pull-up at `value` g (default 1.8), ≈ 0 g for 22 s, pull-out at `value` g (A300/A310 Zero-G).
    case parabola
    /// Stall: buffet at `value` Hz (default: the class's), the break (n ≈ 0.5), the nose-down recovery pull.
    case stall
    /// Glider on aerotow: rope-tension surges of `value` g RMS (default 0.05) along the glider's axis.
    case aerotow
    /// Take-off roll on a rough runway from standstill to rotation speed; `value` = runway roughness Gd(n₀), 10⁻⁶ m³.
    case takeoffRoll = "takeoff-roll"
    /// Landing roll from touchdown to taxi speed on a rough runway, then taxi; `value` = roughness Gd(n₀), 10⁻⁶ m³.
    case landingRoll = "landing-roll"
    /// Taxi at 8 m/s over a rough taxiway with slab joints every 5 m; `value` = roughness Gd(n₀), 10⁻⁶ m³.
    case taxi

    /// Whether the aircraft is on the ground during it (a ground roll or taxi).
    package var isGround: Bool { self == .takeoffRoll || self == .landingRoll || self == .taxi }
}

/// One manoeuvre of a scenario: a kind, a start, a duration and its one parameter.
public struct Manoeuvre: Sendable, Equatable, Codable {
    /// What is flown.
    public var kind: ManoeuvreKind
    /// Start, seconds.
    public var start: Double
    /// Duration, seconds (nil: the kind's natural duration for the class, `naturalDurationSeconds`).
    public var durationSeconds: Double?
    /// The kind's parameter (bank °, load factor g, buffet Hz, surge g RMS, roughness 10⁻⁶ m³); nil: the default.
    public var value: Double?

    /// Creates a manoeuvre.
    public init(kind: ManoeuvreKind, start: Double, durationSeconds: Double? = nil, value: Double? = nil) {
        self.kind = kind; self.start = start; self.durationSeconds = durationSeconds; self.value = value
    }
}

/// A manoeuvre as the truth lists it (`meta.json` truth.manoeuvres): kind and [start, end).
public struct ManoeuvreInterval: Sendable, Equatable, Codable {
    /// The kind (its raw name, e.g. `steep-turn`).
    public var kind: ManoeuvreKind
    /// Start, seconds.
    public var start: Double
    /// End, seconds.
    public var end: Double
    /// Creates an interval.
    public init(kind: ManoeuvreKind, start: Double, end: Double) { self.kind = kind; self.start = start; self.end = end }
}

/// Per-class speeds and rates of the manoeuvre model (docs/simulation.md "Manoeuvres").
package struct ManoeuvreClassData: Sendable {
    /// Rotation (lift-off) speed, m/s: C172 55 kt, A320/B738 ≈ 145 kt, wide-body ≈ 160 kt.
    package var rotationSpeedMetersPerSecond: Double
    /// Touchdown speed, m/s: C172 ≈ 60 kt, B738 ≈ 135 kt, wide-body ≈ 145 kt.
    package var touchdownSpeedMetersPerSecond: Double
    /// Take-off roll acceleration, m/s² (C172 ≈ 1.7, jets ≈ 2.0).
    package var takeoffAccelerationMetersPerSecondSquared: Double
    /// Landing-roll deceleration, m/s² (brakes, reversers: ≈ 2).
    package var brakingMetersPerSecondSquared: Double
    /// Roll rate of steep-turn entry and exit, °/s.
    package var rollRateDegreesPerSecond: Double
    /// Default buffet frequency, Hz.
    package var buffetHz: Double
    /// Default pull-up load factor, g (transport aircraft stay well within their 2.5 g limit).
    package var pullUpG: Double
    /// Heave natural frequency on the landing gear, Hz.
    package var gearHeaveHz: Double

    /// The class's values.
    package static func forClass(_ c: AircraftClass) -> ManoeuvreClassData {
        switch c {
        case .small:
            ManoeuvreClassData(rotationSpeedMetersPerSecond: 28, touchdownSpeedMetersPerSecond: 31, takeoffAccelerationMetersPerSecondSquared: 1.7,
                               brakingMetersPerSecondSquared: 2, rollRateDegreesPerSecond: 15, buffetHz: 6, pullUpG: 2, gearHeaveHz: 2)
        case .medium:
            ManoeuvreClassData(rotationSpeedMetersPerSecond: 75, touchdownSpeedMetersPerSecond: 70, takeoffAccelerationMetersPerSecondSquared: 2,
                               brakingMetersPerSecondSquared: 2, rollRateDegreesPerSecond: 5, buffetHz: 5, pullUpG: 1.5, gearHeaveHz: 1.5)
        case .large:
            ManoeuvreClassData(rotationSpeedMetersPerSecond: 82, touchdownSpeedMetersPerSecond: 75, takeoffAccelerationMetersPerSecondSquared: 2,
                               brakingMetersPerSecondSquared: 2, rollRateDegreesPerSecond: 5, buffetHz: 4, pullUpG: 1.5, gearHeaveHz: 1.5)
        }
    }
}

/// What the manoeuvres add at one instant, in the aircraft frame (x forward, y right, z up along the lift).
struct ManoeuvreEffect {
    /// Extra specific force along the aircraft's vertical, g (n − 1 of the manoeuvre itself; turns are separate).
    var deltaN = 0.0
    /// Specific force along the aircraft's x axis, g (thrust/tow/brakes).
    var forward = 0.0
    /// Extra pitch rate, rad/s.
    var pitchRate = 0.0
}

/// The manoeuvres of a scenario, resolved once: speeds, random draws, steep turns as coordinated turns.
struct ManoeuvrePlan {
    struct Resolved {
        var kind: ManoeuvreKind
        var start: Double
        var end: Double
        var value: Double
        var phase: Double
        var amplitude: Double
    }

    let data: ManoeuvreClassData
    let cruiseSpeed: Double
    let items: [Resolved]
    let ground: [Resolved]
    /// Steep turns, flown by the simulator's coordinated-turn model.
    let turns: [CoordinatedTurn]
    /// Runway / taxiway profile: spatial frequency (cycles/m), amplitude (m) per unit Gd(n₀) = 10⁻⁶ m³, phase.
    let roughness: [(n: Double, amplitude: Double, phase: Double)]
    /// Aerotow surge components: frequency (Hz), relative amplitude, phase.
    let surges: [(hz: Double, amplitude: Double, phase: Double)]
    let sampleRateHz: Double

    init(scenario: FlightScenario) {
        let data = ManoeuvreClassData.forClass(scenario.aircraftClass)
        self.data = data
        cruiseSpeed = max(1, scenario.groundSpeedMetersPerSecond)
        sampleRateHz = max(1, scenario.accelerometerRateHz)
        var seeds = SplitMix64(seed: scenario.seed ^ 0x3A11_0E0F_5EED)
        var rng = Xoshiro256StarStar(seed: seeds.next())
        var items: [Resolved] = []
        var turns: [CoordinatedTurn] = []
        for m in scenario.manoeuvres.sorted(by: { $0.start < $1.start }) {
            let value = m.value ?? Self.defaultValue(m.kind, data: data)
            let duration = m.durationSeconds ?? Self.naturalDurationSeconds(m.kind, value: value, data: data, speed: cruiseSpeed)
            guard duration > 0, duration.isFinite, m.start.isFinite else { continue }
            let item = Resolved(kind: m.kind, start: m.start, end: m.start + duration, value: value,
                                phase: 2 * .pi * rng.nextUniform(), amplitude: 0.7 + 0.6 * rng.nextUniform())
            items.append(item)
            if m.kind == .steepTurn {
                let sign = rng.nextUniform() < 0.5 ? -1.0 : 1.0
                turns.append(CoordinatedTurn(start: m.start, durationSeconds: duration, bankDegrees: sign * value,
                                             rollRateDegreesPerSecond: data.rollRateDegreesPerSecond))
            }
        }
        self.items = items
        ground = items.filter { $0.kind.isGround }
        self.turns = turns
        // ISO 8608 displacement PSD Gd(n) = Gd(n₀)(n/n₀)⁻², n₀ = 0.1 cycles/m, as 64 sinusoids log-spaced over
        // wavelengths 100 m … 0.4 m (shorter ones are bridged by the tyre's contact patch).
        var components: [(Double, Double, Double)] = []
        let count = 64
        let low = log(0.01), high = log(2.5)
        for k in 0..<count {
            let n = exp(low + (high - low) * (Double(k) + 0.5) / Double(count))
            let dn = n * (high - low) / Double(count)
            let gd = 1e-6 * pow(n / 0.1, -2)
            components.append((n, (2 * gd * dn).squareRoot(), 2 * .pi * rng.nextUniform()))
        }
        roughness = components
        var surges: [(Double, Double, Double)] = []
        for _ in 0..<8 {
            surges.append((0.2 + 1.0 * rng.nextUniform(), 0.5 + rng.nextUniform(), 2 * .pi * rng.nextUniform()))
        }
        let norm = (surges.reduce(0) { $0 + $1.1 * $1.1 } / 2).squareRoot()
        self.surges = surges.map { ($0.0, $0.1 / norm, $0.2) }
    }

    /// The kind's default parameter for the class.
    static func defaultValue(_ kind: ManoeuvreKind, data: ManoeuvreClassData) -> Double {
        switch kind {
        case .steepTurn: 45
        case .pullUp: data.pullUpG
        case .parabola: 1.8
        case .stall: data.buffetHz
        case .aerotow: 0.05
        case .takeoffRoll, .landingRoll, .taxi: 256   // ISO 8608 class C (a rough runway)
        }
    }

    /// The kind's natural duration, seconds: a 360° steep turn with roll-in and roll-out, 12 s pull-up, 70 s
    /// parabola, 14 s stall, 3 min tow, the roll from standstill to rotation, the roll from touchdown to 8 m/s, 2 min taxi.
    static func naturalDurationSeconds(_ kind: ManoeuvreKind, value: Double, data: ManoeuvreClassData, speed: Double) -> Double {
        switch kind {
        case .steepTurn:
            // Heading changes by (g / (V p)) (−ln cos φ) in each roll phase (p the roll rate); the rest of 360° at φ.
            let phi = min(80, max(1, abs(value))) * Double.pi / 180
            let v = max(1, speed), g = StandardAtmosphere.gravity
            let rollRate = data.rollRateDegreesPerSecond * Double.pi / 180
            let rolling = 2 * g / (v * rollRate) * -log(cos(phi))
            let turnRate = g * tan(phi) / v
            return max(0, 2 * .pi - rolling) / turnRate + 2 * phi / rollRate
        case .pullUp: return 12
        case .parabola: return 70
        case .stall: return 14
        case .aerotow: return 180
        case .takeoffRoll: return data.rotationSpeedMetersPerSecond / data.takeoffAccelerationMetersPerSecondSquared
        case .landingRoll: return max(1, data.touchdownSpeedMetersPerSecond - taxiSpeed) / data.brakingMetersPerSecondSquared
        case .taxi: return 120
        }
    }

    /// Taxi speed, m/s (≈ 15 kt).
    static let taxiSpeed = 8.0

    /// Ground speed at `t` when ground manoeuvres decide it (nil: the scenario's speed).
    func groundSpeed(at t: Double) -> Double? {
        guard let first = ground.first else { return nil }
        guard let current = ground.last(where: { $0.start <= t }) else {
            switch first.kind {
            case .takeoffRoll, .taxi: return 0
            default: return data.touchdownSpeedMetersPerSecond
            }
        }
        let u = t - current.start
        let length = current.end - current.start
        switch current.kind {
        case .takeoffRoll:
            if t < current.end { return data.rotationSpeedMetersPerSecond * u / length }
            // Lift-off, then accelerate to 1.3 V_R within 20 s.
            let after = min(1, (t - current.end) / 20)
            return data.rotationSpeedMetersPerSecond * (1 + 0.3 * after)
        case .landingRoll:
            if t < current.end { return data.touchdownSpeedMetersPerSecond + (Self.taxiSpeed - data.touchdownSpeedMetersPerSecond) * u / length }
            return Self.taxiSpeed
        default:
            return t < current.end ? Self.taxiSpeed : 0
        }
    }

    /// Distance rolled since the start of the ground manoeuvre in force (for the runway profile), metres; nil when not rolling.
    private func rolledDistance(at t: Double) -> (x: Double, speed: Double, item: Resolved)? {
        guard let current = ground.last(where: { $0.start <= t }) else { return nil }
        let u = t - current.start
        let length = current.end - current.start
        switch current.kind {
        case .takeoffRoll:
            guard t < current.end else { return nil }
            let a = data.rotationSpeedMetersPerSecond / length
            return (0.5 * a * u * u, a * u, current)
        case .landingRoll:
            let v0 = data.touchdownSpeedMetersPerSecond
            let a = (v0 - Self.taxiSpeed) / length
            if t < current.end { return (v0 * u - 0.5 * a * u * u, v0 - a * u, current) }
            return (v0 * length - 0.5 * a * length * length + Self.taxiSpeed * (t - current.end), Self.taxiSpeed, current)
        default:
            guard t < current.end else { return nil }
            return (Self.taxiSpeed * u, Self.taxiSpeed, current)
        }
    }

    /// Whether the aircraft is on the ground at `t` (rolling, taxiing, holding before a take-off, after a landing).
    func onGround(at t: Double) -> Bool {
        guard let first = ground.first else { return false }
        guard let current = ground.last(where: { $0.start <= t }) else { return first.kind != .landingRoll }
        return current.kind != .takeoffRoll || t < current.end
    }

    /// The manoeuvres' effect at `t` (turns excluded: they are coordinated turns).
    func effect(at t: Double) -> ManoeuvreEffect {
        var e = ManoeuvreEffect()
        let g = StandardAtmosphere.gravity
        for item in items where t >= item.start && t < item.end {
            let u = t - item.start
            let length = item.end - item.start
            switch item.kind {
            case .steepTurn, .takeoffRoll, .landingRoll, .taxi: break
            case .pullUp:
                // Pull to `value` g for the first third, then push to 1 − (value − 1)/2 for two thirds: ∫(n − 1) dt = 0,
                // so the path is level again.
                let third = length / 3
                let pull = item.value - 1
                e.deltaN += u < third ? pull * Self.bump(u / third) : -0.5 * pull * Self.bump((u - third) / (2 * third))
            case .parabola:
                e.deltaN += parabolaLoad(u: u, length: length, pullG: item.value) - 1
            case .stall:
                e.deltaN += stallLoad(u: u, length: length, item: item)
            case .aerotow:
                // Rope tension: a mean tow force (glider drag and climb, ≈ 0.15 g) plus surges; the rope pulls a few
                // degrees off the glider's axis, so 10 % of the surge shows along its vertical.
                var surge = 0.0
                for s in surges { surge += s.amplitude * sin(2 * .pi * s.hz * u + s.phase + item.phase) }
                let envelope = min(1, u / 5, (length - u) / 5)
                surge *= item.value * envelope
                e.forward += 0.15 * envelope + surge
                e.deltaN += 0.1 * surge
            }
        }
        e.pitchRate = e.deltaN * g / cruiseSpeed
        if let roll = rolledDistance(at: t) {
            let r = roll.item
            let gd = r.value
            e.deltaN += runwayHeave(x: roll.x, speed: roll.speed, roughnessGd: gd, phase: r.phase)
            if r.kind == .takeoffRoll { e.forward += data.takeoffAccelerationMetersPerSecondSquared / g }
            if r.kind == .landingRoll, t < r.end {
                e.forward -= data.brakingMetersPerSecondSquared / g
                // Touchdown: a firm arrival, ≈ +0.3 g over 0.4 s.
                let u = t - r.start
                if u < 0.4 { e.deltaN += 0.3 * sin(.pi * u / 0.4) }
            }
        }
        return e
    }

    /// Heave acceleration on the gear (a damped oscillator, f_n = the class's heave frequency, ζ = 0.3) over the
    /// runway profile at distance `x` rolling at `speed`, g. Components above 0.4 × the sample rate are left out.
    func runwayHeave(x: Double, speed: Double, roughnessGd: Double, phase: Double) -> Double {
        guard speed > 0.1 else { return 0 }
        let fn = data.gearHeaveHz, zeta = 0.3
        let scale = max(0, roughnessGd).squareRoot()
        var a = 0.0
        func add(n: Double, amplitude: Double, phase: Double) {
            let f = n * speed
            guard f < 0.4 * sampleRateHz else { return }
            let r = f / fn
            // Base excitation: mass acceleration = (2πf)² · A · |T|, T = (1 + 2iζr) / (1 − r² + 2iζr).
            let numerator = SIMD2(1.0, 2 * zeta * r), denominator = SIMD2(1 - r * r, 2 * zeta * r)
            let magnitude = ((numerator * numerator).sum() / (denominator * denominator).sum()).squareRoot()
            let lag = atan2(numerator.y, numerator.x) - atan2(denominator.y, denominator.x)
            let w = 2 * Double.pi * f
            a += w * w * amplitude * magnitude * sin(2 * .pi * n * x + phase + lag)
        }
        for c in roughness { add(n: c.n, amplitude: c.amplitude * scale, phase: c.phase + phase) }
        // Concrete slab joints every 5 m: a periodic 3-mm step pattern (fundamental).
        add(n: 0.2, amplitude: 0.003, phase: phase)
        return a / StandardAtmosphere.gravity
    }

    /// Load factor of a Zero-G parabola at `u` s: 1 g → `pullG` (3 s) for 17 s, injection (5 s) to ≈ 0 g held, pull-out
    /// (5 s) at `pullG` for 15 s, back to 1 g (3 s). Durations other than 70 s stretch the 0-g part.
    func parabolaLoad(u: Double, length: Double, pullG: Double) -> Double {
        let zeroG = max(2, length - 48)
        let marks = [0, 3, 20, 25, 25 + zeroG, 30 + zeroG, 45 + zeroG, 48 + zeroG]
        let levels = [1, pullG, pullG, 0.0, 0.0, pullG, pullG, 1]
        for i in 1..<marks.count where u < marks[i] {
            let s = Self.smoothStep((u - marks[i - 1]) / (marks[i] - marks[i - 1]))
            return levels[i - 1] + (levels[i] - levels[i - 1]) * s
        }
        return 1
    }

    /// Stall: buffet from 30 % to 50 % of the manoeuvre (narrow-band at `value` Hz, 0.03–0.06 g, slowly modulated), the
    /// break (n dips to 0.5) to 60 %, the recovery pull to 1.8 g (1.6 g for gliders is close) to 85 %, then 1 g.
    func stallLoad(u: Double, length: Double, item: Resolved) -> Double {
        let x = u / length
        var dn = 0.0
        if x >= 0.3, x < 0.5 {
            let local = (x - 0.3) / 0.2
            let envelope = sin(.pi * local)
            let modulation = 1 + 0.3 * sin(2 * .pi * 0.7 * u + item.phase)
            dn += 0.045 * item.amplitude * envelope * modulation * sin(2 * .pi * item.value * u + item.phase)
        }
        if x >= 0.45, x < 0.6 { dn += -0.5 * Self.bump((x - 0.45) / 0.15) }
        if x >= 0.6, x < 0.85 { dn += 0.8 * Self.bump((x - 0.6) / 0.25) }
        return dn
    }

    /// sin²(π s) for s in [0, 1]: a smooth bump from 0 to 1 and back.
    static func bump(_ s: Double) -> Double {
        guard s > 0, s < 1 else { return 0 }
        let v = sin(.pi * s)
        return v * v
    }

    /// (1 − cos π s)/2 clamped to [0, 1].
    static func smoothStep(_ s: Double) -> Double { s <= 0 ? 0 : s >= 1 ? 1 : (1 - cos(.pi * s)) / 2 }
}

extension SimulationSpec {
    /// `kind@start[:value[:duration]]` (comma separated or repeated) → manoeuvres, e.g. `steep-turn@600:60` (60° bank),
    /// `parabola@5m`, `stall@300:4`, `takeoff-roll@30`, `taxi@0::3m`. Start and duration are durations (s, m, h);
    /// the value's meaning and range depend on the kind (`valueRange`).
    package static func manoeuvres(_ texts: [String]) throws(SimulationSpecError) -> [Manoeuvre] {
        let option = "--manoeuvre"
        let kinds = ManoeuvreKind.allCases.map(\.rawValue).joined(separator: ", ")
        return try texts.flatMap { $0.split(separator: ",") }.map { (part) throws(SimulationSpecError) in
            let halves = part.split(separator: "@", omittingEmptySubsequences: false)
            guard halves.count == 2 else {
                throw SimulationSpecError(option: option, message: "\"\(part)\" is not kind@start[:value[:duration]] (e.g. steep-turn@600:60)")
            }
            guard let kind = ManoeuvreKind(rawValue: halves[0].trimmingBlanksAndNewlines().lowercased()) else {
                throw SimulationSpecError(option: option, message: "\"\(halves[0])\" in \"\(part)\" is not a manoeuvre (write one of \(kinds))")
            }
            let fields = halves[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard (1...3).contains(fields.count) else {
                throw SimulationSpecError(option: option, message: "\"\(part)\" is not kind@start[:value[:duration]] (e.g. steep-turn@600:60)")
            }
            let start = try duration(fields[0], option: option)
            var value: Double?
            if fields.count >= 2, !fields[1].trimmingBlanksAndNewlines().isEmpty {
                let range = valueRange(kind)
                value = try number(fields[1], option: option, range: range.range, unit: range.unit + " (\(kind.rawValue) \(range.meaning))")
            }
            var length: Double?
            if fields.count == 3 {
                let seconds = try duration(fields[2], option: option)
                guard seconds > 0 else { throw SimulationSpecError(option: option, message: "duration in \"\(part)\" must be more than 0") }
                length = seconds
            }
            return Manoeuvre(kind: kind, start: start, durationSeconds: length, value: value)
        }.sorted { $0.start < $1.start }
    }

    /// What a manoeuvre's value means, its unit and its accepted range.
    package static func valueRange(_ kind: ManoeuvreKind) -> (range: ClosedRange<Double>, unit: String, meaning: String) {
        switch kind {
        case .steepTurn: (10...75, "degrees", "bank")
        case .pullUp: (1.1...3.8, "g", "peak load factor; the normal category's limit is 3.8 g, a transport's 2.5 g")
        case .parabola: (1.2...2.5, "g", "pull-up and pull-out load factor")
        case .stall: (1...20, "Hz", "buffet frequency")
        case .aerotow: (0...0.3, "g", "rope-surge RMS")
        case .takeoffRoll, .landingRoll, .taxi: (1...4_096, "1e-6 m^3", "ISO 8608 roughness Gd(0.1 cycles/m): 16 A, 64 B, 256 C, 1024 D")
        }
    }
}
