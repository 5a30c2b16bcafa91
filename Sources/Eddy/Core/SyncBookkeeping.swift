import EddyProtocol
import EddySupport
import EddySync
import EddyVocabulary

/// What the engine remembers for sync: the automatic route area's centre, when the position was last uploaded and
/// the flight's random wire id, when the next flight-time sync step and the next purge are due. Pure; part of
/// `EngineCore`.
struct SyncBookkeeping: Sendable {
    /// Centre of the automatic route area (nil until the first fix with a server, or after a data query change).
    private(set) var autoRouteCentre: (latitude: Double, longitude: Double)?
    private var lastPositionUpload: Double?
    /// Draws the random per-flight id sent with position uploads (seeded by the shell from the system's generator).
    private var flightIDGenerator: SplitMix64
    /// The current flight's wire id: random per flight, never derived from the user id (nil until the first upload).
    private(set) var wireFlightID: String?
    private var nextSyncStep = -Double.infinity
    private var lastPurge = -Double.infinity

    /// The cache is purged of expired data at most this often, in engine time, seconds.
    static let purgeIntervalSeconds = 600.0

    /// Bookkeeping whose flight ids are drawn from `flightIDSeed`.
    init(flightIDSeed: UInt64) { flightIDGenerator = SplitMix64(seed: flightIDSeed) }

    /// A new session: the route area is placed afresh and the first sync step is due at once.
    mutating func sessionStarted() {
        nextSyncStep = -.infinity
        autoRouteCentre = nil
    }

    /// The data query changed: the automatic route area is placed afresh at the next fix.
    mutating func forgetRouteCentre() { autoRouteCentre = nil }

    /// The flight changed: the next upload draws a new wire id.
    mutating func forgetFlightID() { wireFlightID = nil }

    /// The host asked for a fetch now: the next flight-time step is due at once.
    mutating func fetchRequested() { nextSyncStep = -.infinity }

    /// A sync step ran at `now` (the scheduler's clock) and asked for the next one in `waitSeconds`.
    mutating func syncStepFinished(waitSeconds: Double, now: Double) { nextSyncStep = now + min(waitSeconds, 1) }

    /// Whether a flight-time sync step is due at `t`.
    func syncStepDue(at t: Double) -> Bool { t >= nextSyncStep }

    /// Whether the purge is due at `t` (then it is counted as done).
    mutating func takePurge(at t: Double) -> Bool {
        guard t - lastPurge >= Self.purgeIntervalSeconds else { return false }
        lastPurge = t
        return true
    }

    /// Whether a position upload is due at `t`, `interval` seconds after the last one.
    func positionUploadDue(at t: Double, interval: Double) -> Bool { t - (lastPositionUpload ?? -.infinity) >= interval }

    /// A position upload was queued at `t`.
    mutating func positionUploaded(at t: Double) { lastPositionUpload = t }

    /// The current flight's wire id, drawn at its first position upload: `f` and 16 hex digits, random per flight.
    mutating func currentWireFlightID() -> String {
        if let wireFlightID { return wireFlightID }
        let hex = String(flightIDGenerator.next(), radix: 16)
        let id = "f" + String(repeating: "0", count: 16 - hex.count) + hex
        wireFlightID = id
        return id
    }

    /// Re-centres the automatic route area when the aircraft is `recentreNM` from its centre (or it has none): true
    /// when it moved.
    mutating func recentreRoute(at fix: LocationSample, recentreNM: Double) -> Bool {
        if let centre = autoRouteCentre,
           Geodesy.distanceNM(from: (centre.latitude, centre.longitude), to: (fix.latitudeDegrees, fix.longitudeDegrees))
            < recentreNM { return false }
        autoRouteCentre = (fix.latitudeDegrees, fix.longitudeDegrees)
        return true
    }
}
