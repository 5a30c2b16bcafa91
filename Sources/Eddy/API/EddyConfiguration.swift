public import Dispatch
import EddyH3
public import EddyNavigation
import EddyStore
package import EddySupport
import EddySync
public import EddyVocabulary
public import Foundation

/// How delegate callbacks reach the host.
public enum CallbackDelivery: Sendable {
    /// Asynchronously, in order, on this serial queue (default: the main queue).
    case queue(DispatchQueue)
    /// Synchronously on the thread that caused them, in order (replays, command-line tools, tests).
    /// Callbacks caused while the delegate runs are delivered right after it returns, never re-entrantly.
    case callerThread
}

/// Where sync scheduling time comes from.
public enum SyncTiming: Sendable, Equatable {
    /// The wall clock: a background thread uploads and fetches on schedule (live use).
    case wallClock
    /// The time of the pushed samples: sync steps run inline as flight time passes their due time, so a replay or
    /// test is deterministic and runs as fast as the CPU allows.
    case flightTime
}

/// How an engine is set up (everything has a sensible default except where the store lives).
public struct EddyConfiguration: Sendable {
    /// Path of the engine's SQLite store (created when missing).
    public var storePath: String
    /// Store options (the cache's size, observation cap…).
    public var storeOptions: StoreOptions
    /// How callbacks reach the delegate.
    public var delivery: CallbackDelivery
    /// Where sync scheduling time comes from.
    public var syncTiming: SyncTiming
    /// Flight phase and low power thresholds. Low power speed and time, in-air speed (`airborneSpeedKnots`) and in-air
    /// altitude (`airborneClimbFeet`) are local defaults: a server that sends its own wins (`EddyEngine.thresholds`).
    public var flightPhase: FlightPhaseConfiguration
    /// Fixes whose horizontal accuracy (68 % radius) is worse than this are not used for position, metres. Default 50;
    /// a server that sends its own wins.
    public var maximumHorizontalAccuracyMeters: Double
    /// Fixes whose vertical accuracy (68 %) is worse than this have their GNSS altitude ignored, metres. Default 100;
    /// a server that sends its own wins.
    public var maximumVerticalAccuracyMeters: Double
    /// Radius of the automatic route area fetched around the aircraft when the data query has no route polygon, NM.
    public var autoRouteRadiusNM: Double
    /// The automatic route area is re-centred when the aircraft is this far from its centre, NM.
    public var autoRouteRecentreNM: Double
    /// Own position is uploaded (live flights) at most this often while airborne, seconds.
    public var positionUploadIntervalSeconds: Double
    /// Client version sent to the server.
    public var clientVersion: String
    /// HTTP connect timeout, seconds.
    public var connectTimeoutSeconds: Double
    /// HTTP total timeout per request, seconds.
    public var requestTimeoutSeconds: Double
    /// Seed of the sync back-off jitter (deterministic tests).
    public var syncJitterSeed: UInt64
    /// Cabin pressurisation when the host knows it; nil detects it from the barometric vs GNSS profile.
    public var cabinPressurization: CabinPressurization?
    /// QNH the host knows (ATIS / METAR), hPa; narrows the GNSS-to-pressure-altitude conversion. nil: unknown.
    public var qnhHectopascals: Double?
    /// A barometer calibration older than this is stale (not used; the host should recalibrate), days. Default 3.5.
    public var barometerCalibrationStaleDays: Double
    /// How the device is installed: `.cradle` (default; a flat device is lying on a seat and measures nothing) or
    /// `.fixed` (AHRS, logger, panel mount: flat is correct, never taken out of position by manoeuvres).
    public var deviceMount: DeviceMount
    /// A directory of SRTM `.hgt` tiles for height above terrain (HAT) in the altitude context; nil: no HAT.
    public var terrainDirectory: String?
    /// Makes the engine's HTTP transport at each start from the environment's base URL and proxy and the timeouts
    /// above. Default `HTTPTransportFactory.platformDefault`: `CurlTransport` on Linux, `URLSessionTransport` on
    /// Apple platforms; `HTTPTransportFactory.fixed(_:name:)` injects a transport of the host's own.
    public var transport: HTTPTransportFactory
    /// The engine's log: directory, level (default warning) and rolling-file size cap (default `eddy-logs/` next to the
    /// store, 2 files × 1 MiB); `EddyEngine.exportLogs()` returns it as one file.
    public var logging: EddyLogConfiguration
    /// Where a started session's API key and user id are kept, never in the SQLite store. Default: a
    /// `FileCredentialStore` at `<storePath>.credentials` (mode 0700, files 0600); on Apple platforms pass
    /// `KeychainCredentialStore()` (EddyAppleSensors) to use the Keychain.
    public var credentialStore: any EddyCredentialStore
    /// The iOS data-protection class given to the store's files (the database, its `-wal` and `-shm`, the logs and the
    /// credential directory) when the engine opens them. Default `.completeUntilFirstUserAuthentication`: readable
    /// while the device is locked after its first unlock, as recording in a locked iPad in flight needs; `.complete`
    /// would stop every write when the screen locks. nil leaves the app's default. Ignored where the platform has no
    /// data protection (Linux, macOS).
    public var storeFileProtection: FileProtectionType?
    /// Wraps the engine's HTTP transport (tests observe each request with it); nil for none.
    package var transportWrapper: (@Sendable (any HTTPTransport) -> any HTTPTransport)?
    /// The wall clock: the sync loop's in `.wallClock` mode, the host's calls', the log's time stamps, a real-time
    /// demo's pace. The system clock; tests give a `ManualEpochClock`.
    package var wallClock: any EpochClock = SystemEpochClock()

    /// Creates a configuration with defaults.
    public init(storePath: String, storeOptions: StoreOptions = StoreOptions(), delivery: CallbackDelivery = .queue(.main),
                syncTiming: SyncTiming = .wallClock) {
        self.storePath = storePath
        self.storeOptions = storeOptions
        self.delivery = delivery
        self.syncTiming = syncTiming
        flightPhase = FlightPhaseConfiguration()
        maximumHorizontalAccuracyMeters = 50
        maximumVerticalAccuracyMeters = 100
        autoRouteRadiusNM = 150
        autoRouteRecentreNM = 40
        positionUploadIntervalSeconds = 60
        clientVersion = EddyVersion.current
        connectTimeoutSeconds = 5
        requestTimeoutSeconds = 20
        syncJitterSeed = 0x5EED
        barometerCalibrationStaleDays = 3.5
        transport = .platformDefault
        deviceMount = .cradle
        logging = .besideStore(storePath)
        credentialStore = FileCredentialStore(directory: storePath + ".credentials")
        storeFileProtection = .completeUntilFirstUserAuthentication
    }
}
