/// Whether the device's barometer reads the aircraft's static pressure (unpressurised cabin) or a cabin pressure.
public enum CabinPressurization: String, Sendable, Equatable, Codable, CaseIterable {
    /// Not decided yet: the barometer is not used for the layer.
    case unknown
    /// Pressurised: the barometer reads cabin altitude and is never used as the aircraft's altitude.
    case pressurized
    /// Unpressurised: the barometer reads the aircraft's pressure altitude.
    case unpressurized
}

/// Decides whether the cabin is pressurised from the barometric vs GNSS (or external pressure) altitude profile.
///
/// Two tests (docs/altitude.md "Cabin"), both robust to any real atmosphere (ISA −40…+40 °C, QNH 950…1050 hPa):
/// - **Profile**: over a climb or descent of at least `minimumProfileFeet` of reference altitude within
///   `profileWindowSeconds`, the ratio r = Δ(barometric pressure altitude) / Δ(reference altitude). Outside air gives
///   r = T_ISA / T ∈ 0.85…1.2; a cabin's schedule gives r ≈ cabin altitude / aircraft altitude ≲ 0.35. Pressurised when
///   r < 0.55, unpressurised when 0.75 < r < 1.3, for `confirmations` checks in a row (5 s apart).
/// - **Level**: reference altitude − barometric altitude > 2,000 ft + 12 % of the reference altitude (more than any
///   atmosphere explains: ISA+20 and QNH 1040 at FL350 give ≈ 3,500 ft) → pressurised; above 14,000 ft with
///   |difference| < 15 % of the reference → unpressurised (a certified cabin is kept at or below 8,000 ft).
/// A decision can be revised by later evidence (a cabin whose pressurisation starts late in the climb).
package struct CabinDetector: Sendable {
    /// Shortest reference-altitude change the profile test needs, feet.
    package var minimumProfileFeet = 800.0
    /// Longest span of the profile test, seconds.
    package var profileWindowSeconds = 300.0
    /// Checks in a row that must agree.
    package var confirmations = 3

    package private(set) var state: CabinPressurization = .unknown
    /// When the current state was decided, seconds (log time base).
    package private(set) var decidedAt: Double?

    private static let slots = 61
    private var times = [Double](repeating: .nan, count: slots)
    private var baro = [Double](repeating: .nan, count: slots)
    private var reference = [Double](repeating: .nan, count: slots)
    private var head = 0
    private var lastSlotTime = -Double.infinity
    private var streakState: CabinPressurization = .unknown
    private var streak = 0

    /// Creates a detector.
    package init() {}

    /// Forces a state (host configuration); nil returns to automatic detection from `.unknown`.
    package mutating func force(_ forced: CabinPressurization?, at t: Double) {
        state = forced ?? .unknown
        decidedAt = forced == nil ? nil : t
        streak = 0
    }

    /// Takes one pair of simultaneous altitudes (feet) every few seconds; returns true when the state changed.
    @discardableResult
    package mutating func update(t: Double, barometricPressureAltitudeFeet b: Double, referenceAltitudeFeet r: Double) -> Bool {
        guard t.isFinite, b.isFinite, r.isFinite, t >= lastSlotTime + 5 else { return false }
        lastSlotTime = t
        times[head] = t; baro[head] = b; reference[head] = r
        head = (head + 1) % Self.slots
        var verdict = CabinPressurization.unknown
        // Level test.
        let difference = r - b
        if difference > 2_000 + 0.12 * abs(r) {
            verdict = .pressurized
        } else if r > 14_000, abs(difference) < 0.15 * r {
            verdict = .unpressurized
        } else {
            // Profile test: the newest slot against the most recent older slot with a large enough change.
            var k = (head - 2 + Self.slots) % Self.slots
            for _ in 0..<(Self.slots - 1) {
                let tk = times[k]
                guard tk.isFinite, t - tk <= profileWindowSeconds else { break }
                let dr = r - reference[k]
                if abs(dr) >= minimumProfileFeet {
                    let ratio = (b - baro[k]) / dr
                    if ratio < 0.55 { verdict = .pressurized } else if ratio > 0.75, ratio < 1.3 { verdict = .unpressurized }
                    break
                }
                k = (k - 1 + Self.slots) % Self.slots
            }
        }
        guard verdict != .unknown else { streak = 0; return false }
        if verdict == streakState { streak += 1 } else { streakState = verdict; streak = 1 }
        guard streak >= confirmations, verdict != state else { return false }
        state = verdict
        decidedAt = t
        return true
    }
}
