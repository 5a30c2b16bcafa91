import Foundation

/// One point of an altitude profile: at `timeSeconds` the aircraft is at `pressureAltitudeFeet`.
public struct AltitudeWaypoint: Sendable, Equatable, Codable {
    /// Time, seconds from the start of the flight.
    public var timeSeconds: Double
    /// Pressure altitude, feet; nil = on the ground at the scenario's field elevation.
    public var pressureAltitudeFeet: Double?

    /// Creates a waypoint in the air (or on the ground when `pressureAltitudeFeet` is nil).
    public init(timeSeconds: Double, pressureAltitudeFeet: Double?) {
        self.timeSeconds = timeSeconds
        self.pressureAltitudeFeet = pressureAltitudeFeet
    }

    /// A waypoint on the ground at the field.
    public static func onGround(timeSeconds: Double) -> AltitudeWaypoint {
        AltitudeWaypoint(timeSeconds: timeSeconds, pressureAltitudeFeet: nil)
    }
}

/// An altitude profile resolved against the day's ground: pressure altitude and its rate at any time.
///
/// Waypoints are flown with linear interpolation in pressure altitude; before the first the aircraft holds the
/// first altitude, after the last the last. Waypoints on the ground (nil) are at the ground's pressure altitude
/// (the field's, or mean sea level's when the scenario has no field); with a field no waypoint is below it.
struct ResolvedProfile: Sendable {
    /// Waypoint times, seconds, increasing.
    let times: [Double]
    /// Pressure altitudes, feet.
    let altitudesFeet: [Double]
    /// The ground's pressure altitude, feet (nil: no ground in the scenario: no field and no on-ground waypoint).
    let groundFeet: Double?

    /// Resolves `waypoints` (sorted by time; equal times keep the later) with the field at pressure altitude
    /// `groundFeet` (nil: no field; on-ground waypoints are then at `seaLevelFeet`, MSL's pressure altitude).
    init(waypoints: [AltitudeWaypoint], groundFeet: Double?, seaLevelFeet: Double = 0) {
        var times: [Double] = []
        var altitudes: [Double] = []
        let ground = groundFeet ?? seaLevelFeet
        for waypoint in waypoints.sorted(by: { $0.timeSeconds < $1.timeSeconds }) where waypoint.timeSeconds.isFinite {
            let altitude = max(waypoint.pressureAltitudeFeet ?? ground, groundFeet ?? -.infinity)
            guard altitude.isFinite else { continue }
            if let last = times.last, last == waypoint.timeSeconds {
                altitudes[altitudes.count - 1] = altitude
            } else {
                times.append(waypoint.timeSeconds)
                altitudes.append(altitude)
            }
        }
        self.times = times
        self.altitudesFeet = altitudes
        self.groundFeet = groundFeet ?? (waypoints.contains { $0.pressureAltitudeFeet == nil } ? seaLevelFeet : nil)
    }

    /// Highest altitude of the profile, feet (the cruise).
    var highestFeet: Double { altitudesFeet.max() ?? 0 }

    /// Pressure altitude (ft) and its rate (ft/s) at `t`.
    func state(at t: Double) -> (altitudeFeet: Double, rateFeetPerSecond: Double) {
        guard let first = times.first, let firstAltitude = altitudesFeet.first else { return (0, 0) }
        if t <= first { return (firstAltitude, 0) }
        guard let last = times.last, let lastAltitude = altitudesFeet.last else { return (firstAltitude, 0) }
        if t >= last { return (lastAltitude, 0) }
        // Binary search for the segment times[i] ≤ t < times[i + 1].
        var low = 0, high = times.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if times[mid] <= t { low = mid } else { high = mid }
        }
        let span = times[high] - times[low]
        let rate = (altitudesFeet[high] - altitudesFeet[low]) / span
        return (altitudesFeet[low] + rate * (t - times[low]), rate)
    }

    /// Whether the aircraft is on the ground at this pressure altitude.
    func onGround(altitudeFeet: Double) -> Bool {
        guard let groundFeet else { return false }
        return altitudeFeet <= groundFeet + 1e-6
    }
}
