package import EddyVocabulary
import Foundation

/// Whether the aircraft is on the ground or flying, as far as the tracker has decided.
public enum FlightPhase: String, Sendable, Equatable, CaseIterable {
    /// Not decided yet (too few fixes).
    case unknown
    /// On the ground (taxi, parked).
    case onGround
    /// Flying.
    case airborne
}

/// A change the tracker reports.
package enum FlightPhaseEvent: Sendable, Equatable {
    /// The aircraft became airborne (take-off, or first decision when started in flight).
    case airborne
    /// The aircraft landed (airborne → on ground).
    case landed
    /// Low power mode entered (true) or left (false).
    case lowPower(Bool)
}

/// A flight phase event with the time of the fix that decided it.
package struct FlightPhaseChange: Sendable, Equatable {
    /// Time of the deciding fix, seconds (log time base).
    package var t: Double
    /// What changed.
    package var event: FlightPhaseEvent
    /// Creates a change.
    package init(t: Double, event: FlightPhaseEvent) { self.t = t; self.event = event }
}

/// Thresholds of the flight phase tracker (defaults and reasons in docs/alerts.md).
public struct FlightPhaseConfiguration: Sendable, Equatable {
    /// Ground speed at or above which the aircraft counts as flying, knots.
    public var airborneSpeedKnots: Double = 50
    /// How long the airborne condition must hold before `airborne` is reported, seconds.
    public var airborneHoldSeconds: Double = 10
    /// Climb above the last on-ground altitude that also counts as flying (slow aircraft), feet.
    public var airborneClimbFeet: Double = 500
    /// Ground speed below which the aircraft may be on the ground, knots.
    public var groundSpeedKnots: Double = 50
    /// How long the on-ground condition must hold before `landed` is reported, seconds.
    public var groundHoldSeconds: Double = 30
    /// Largest altitude spread (max − min) allowed during the ground hold, feet (a slow aircraft still climbing or descending is not on the ground).
    public var groundAltitudeSpreadFeet: Double = 200
    /// Speed below which the aircraft counts as slow for low power mode, knots; at or above it low power is left.
    public var lowPowerSpeedKnots: Double = 30
    /// How long after landing the aircraft must stay on the ground and slow before low power mode, seconds.
    public var lowPowerAfterSeconds: Double = 300

    /// Creates the default configuration.
    public init() {}
}

/// Decides on ground / airborne from location fixes and when to enter or leave low power mode.
///
/// Driven only by fix timestamps (no wall clock). When a fix has no speed, the speed is computed
/// from the previous fix (great-circle distance over time).
package struct FlightPhaseTracker: Sendable {
    /// The thresholds in use (the engine replaces them when the server sends its own; the next fix uses them).
    package var configuration: FlightPhaseConfiguration
    /// The current phase.
    package private(set) var phase: FlightPhase = .unknown
    /// Whether low power mode is on.
    package private(set) var isLowPower = false

    private var lastFix: LocationSample?
    private var airborneSince: Double?
    private var groundSince: Double?
    private var groundAltitudes: (min: Double, max: Double)?
    private var groundReferenceFeet: Double?
    private var landedAwaitingLowPower = false
    private var slowSince: Double?

    private static let metersPerSecondPerKnot = 1852.0 / 3600.0

    /// Creates a tracker.
    package init(configuration: FlightPhaseConfiguration = FlightPhaseConfiguration()) {
        self.configuration = configuration
    }

    /// Feeds one fix; returns the changes it caused, in order. Fixes older than the previous one are ignored.
    package mutating func update(_ fix: LocationSample) -> [FlightPhaseChange] {
        guard fix.t.isFinite, fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite else { return [] }
        if let lastFix, fix.t < lastFix.t { return [] }
        let speedKnots = Self.speedKnots(of: fix, previous: lastFix)
        lastFix = fix
        guard let speedKnots else { return [] }
        let altitude = fix.layerAltitudeFeet.flatMap { $0.isFinite ? $0 : nil }
        var changes: [FlightPhaseChange] = []
        let c = configuration

        // Airborne condition.
        var climbed = false
        if let altitude, let ref = groundReferenceFeet, phase == .onGround {
            climbed = altitude - ref >= c.airborneClimbFeet
        }
        if speedKnots >= c.airborneSpeedKnots || climbed {
            if airborneSince == nil { airborneSince = fix.t }
        } else {
            airborneSince = nil
        }

        // Ground condition.
        if speedKnots < c.groundSpeedKnots {
            if groundSince == nil {
                groundSince = fix.t
                groundAltitudes = altitude.map { ($0, $0) }
            } else if let altitude {
                if let g = groundAltitudes {
                    groundAltitudes = (Swift.min(g.min, altitude), Swift.max(g.max, altitude))
                } else {
                    groundAltitudes = (altitude, altitude)
                }
                if let g = groundAltitudes, g.max - g.min > c.groundAltitudeSpreadFeet {
                    // Still climbing or descending: restart the hold from this fix.
                    groundSince = fix.t
                    groundAltitudes = (altitude, altitude)
                }
            }
        } else {
            groundSince = nil
            groundAltitudes = nil
        }

        // Slow condition for low power mode (counted from the first slow fix, whatever the phase).
        if speedKnots < c.lowPowerSpeedKnots {
            if slowSince == nil { slowSince = fix.t }
        } else {
            slowSince = nil
        }

        // Phase decisions.
        if phase != .airborne, let since = airborneSince, fix.t - since >= c.airborneHoldSeconds {
            if isLowPower {
                isLowPower = false
                changes.append(FlightPhaseChange(t: fix.t, event: .lowPower(false)))
            }
            phase = .airborne
            landedAwaitingLowPower = false
            groundReferenceFeet = nil
            groundSince = nil
            groundAltitudes = nil
            changes.append(FlightPhaseChange(t: fix.t, event: .airborne))
        } else if phase != .onGround, let since = groundSince, fix.t - since >= c.groundHoldSeconds {
            let wasAirborne = phase == .airborne
            phase = .onGround
            groundReferenceFeet = groundAltitudes?.min
            airborneSince = nil
            if wasAirborne {
                landedAwaitingLowPower = true
                changes.append(FlightPhaseChange(t: fix.t, event: .landed))
            }
        }
        if phase == .onGround, let altitude, speedKnots < c.groundSpeedKnots {
            // The lowest altitude seen on the ground is the reference a climb is measured from.
            groundReferenceFeet = Swift.min(groundReferenceFeet ?? altitude, altitude)
        }

        // Low power mode.
        if phase == .onGround {
            if speedKnots >= c.lowPowerSpeedKnots {
                if isLowPower {
                    isLowPower = false
                    changes.append(FlightPhaseChange(t: fix.t, event: .lowPower(false)))
                }
            }
            if !isLowPower, landedAwaitingLowPower, let since = slowSince, fix.t - since >= c.lowPowerAfterSeconds {
                isLowPower = true
                changes.append(FlightPhaseChange(t: fix.t, event: .lowPower(true)))
            }
        }
        return changes
    }

    /// Leaves low power mode at once (the host started a new flight); returns the change, or nil when it was off.
    /// Low power is not entered again until the next landing.
    package mutating func leaveLowPower(at t: Double) -> FlightPhaseChange? {
        landedAwaitingLowPower = false
        slowSince = nil
        guard isLowPower else { return nil }
        isLowPower = false
        return FlightPhaseChange(t: t, event: .lowPower(false))
    }

    /// Ground speed of a fix in knots: its own speed, else computed from the previous fix; nil when neither is usable.
    static func speedKnots(of fix: LocationSample, previous: LocationSample?) -> Double? {
        if let v = fix.speedMetersPerSecond, v.isFinite, v >= 0 { return v / metersPerSecondPerKnot }
        guard let previous, fix.t > previous.t else { return nil }
        let nm = Geodesy.distanceNM(
            from: (previous.latitudeDegrees, previous.longitudeDegrees),
            to: (fix.latitudeDegrees, fix.longitudeDegrees))
        return nm / ((fix.t - previous.t) / 3600)
    }
}
