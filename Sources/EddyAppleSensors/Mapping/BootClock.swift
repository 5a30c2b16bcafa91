/// Maps CoreMotion's boot-relative times to Unix seconds, the time base of location fixes and of the engine.
///
/// CoreMotion stamps every reading (`CMLogItem.timestamp`) with "the amount of time in seconds since the device booted"
/// (developer.apple.com/documentation/coremotion/cmlogitem/timestamp), on the clock that `ProcessInfo.systemUptime`
/// reads: "the amount of time the system has been awake since the last time it was restarted"
/// (developer.apple.com/documentation/foundation/processinfo/systemuptime). That clock stops while the device sleeps,
/// so its offset to Unix time grows by each sleep. Pushing those stamps as they are, next to fixes on Unix time, puts
/// motion and location decades apart: the engine then measures nothing.
///
/// The anchor is the offset `Unix − uptime`, taken from one reading of both clocks and kept while later readings agree
/// with it within `toleranceSeconds` (the two reads are microseconds apart; NTP slews the wall clock by milliseconds
/// an hour), and taken again when they do not: after a sleep, or when the user or the network set the wall clock.
/// Keeping it steady keeps sample intervals exact; the re-anchoring is reported so the app can say so.
public struct BootClockAnchor: Sendable, Equatable {
    /// Unix seconds minus uptime seconds, once anchored.
    public private(set) var unixMinusUptimeSeconds: Double?
    /// How far a reading may disagree with the anchor before it is taken again, seconds.
    public let toleranceSeconds: Double

    /// What a reading of both clocks did to the anchor.
    public enum Observation: Sendable, Equatable {
        /// The first anchor.
        case anchored
        /// The reading agreed with the anchor.
        case kept
        /// The anchor moved by `stepSeconds` (positive after a sleep: Unix time ran on while uptime stood still).
        case reanchored(stepSeconds: Double)
        /// A clock read was not a finite number: nothing changed.
        case ignored
    }

    /// An anchor that follows readings disagreeing by more than `toleranceSeconds` (default 0.25 s).
    public init(toleranceSeconds: Double = 0.25) {
        self.toleranceSeconds = toleranceSeconds.isFinite && toleranceSeconds > 0 ? toleranceSeconds : 0.25
    }

    /// Notes one reading of both clocks, taken one right after the other (`ProcessInfo.systemUptime`, then
    /// `Date().timeIntervalSince1970`).
    public mutating func observe(uptimeSeconds: Double, unixSeconds: Double) -> Observation {
        guard uptimeSeconds.isFinite, unixSeconds.isFinite else { return .ignored }
        let offset = unixSeconds - uptimeSeconds
        guard let anchored = unixMinusUptimeSeconds else {
            unixMinusUptimeSeconds = offset
            return .anchored
        }
        let step = offset - anchored
        guard abs(step) > toleranceSeconds else { return .kept }
        unixMinusUptimeSeconds = offset
        return .reanchored(stepSeconds: step)
    }

    /// The Unix time of a boot-relative stamp, or nil before the first reading (or for a stamp that is not finite).
    public func unixSeconds(uptimeSeconds: Double) -> Double? {
        guard let offset = unixMinusUptimeSeconds, uptimeSeconds.isFinite else { return nil }
        return uptimeSeconds + offset
    }
}
