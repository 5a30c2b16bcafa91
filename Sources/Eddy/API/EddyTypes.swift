import Dispatch
import EddyCore
import EddyH3
import EddyStore
import EddySync
import Foundation

/// Where the engine's sync server is (SkyPath's `env`). Eddy is open: the server is an `eddy-server` you run.
public struct EddyEnvironment: Sendable, Equatable, Codable {
    /// A name for logs and the persisted session (`production`, `staging`, `local`…).
    public var name: String
    /// Base URL of the server (`https://…` or `http://127.0.0.1:port`); nil for an offline engine (no sync).
    public var baseURL: String?
    /// Optional HTTP(S) proxy URL (for hosts whose network only allows a proxy).
    public var proxy: String?

    /// Creates an environment.
    public init(name: String, baseURL: String?, proxy: String? = nil) {
        self.name = name; self.baseURL = baseURL; self.proxy = proxy
    }

    /// A server at `baseURL`.
    public static func server(_ baseURL: String, name: String = "custom", proxy: String? = nil) -> EddyEnvironment {
        EddyEnvironment(name: name, baseURL: baseURL, proxy: proxy)
    }

    /// An `eddy-server` on this machine's loopback interface.
    public static func local(port: Int) -> EddyEnvironment {
        EddyEnvironment(name: "local", baseURL: "http://127.0.0.1:\(port)")
    }

    /// No server: detection, store, flight phase and alerts over cached data; own reports wait in the outbox
    /// until the engine is started with a server.
    public static let offline = EddyEnvironment(name: "offline", baseURL: nil)

    /// Checks the URL; throws `.environmentInvalid`.
    func validate() throws(EddyError) {
        guard let baseURL else { return }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil
        else { throw .environmentInvalid("base URL \"\(baseURL)\" is not an http(s) URL with a host: give e.g. https://eddy.example.com") }
    }
}

/// Every way an engine call can fail, typed, each saying what to do.
public enum EddyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server does not know this API key (first start).
    case apiKeyInvalid(String)
    /// The airline code or user id is malformed.
    case userIdOrAirlineInvalid(String)
    /// The environment is malformed.
    case environmentInvalid(String)
    /// The key or company is deactivated (HTTP 403): recording stopped.
    case userLocked(String)
    /// This engine is too old for the server (HTTP 426).
    case upgradeRequired(String)
    /// The first start needs the network to validate the key, and the server could not be reached.
    case offline(String)
    /// The call needs a started engine.
    case notStarted
    /// The call needs a location and none was received yet.
    case noLocation
    /// The server asks to wait (HTTP 429).
    case tooManyRequests(retryAfterSeconds: Double)
    /// A sync failure (fetch or upload), with its typed cause.
    case sync(SyncError)
    /// The local store failed (the store's own typed error: what went wrong and what to do).
    case store(StoreError)
    /// A data or turbulence query is invalid.
    case query(QueryError)
    /// The data query is invalid in a way the store's checks do not cover.
    case dataQueryInvalid(String)
    /// An alert query or position is invalid.
    case alertQuery(AlertQueryError)
    /// The aircraft type designator is not in the committed table.
    case unknownAircraft(String)
    /// A location sample was unusable.
    case invalidLocation(String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .apiKeyInvalid(let m): "API key invalid (\(m)): check the key your operator issued (eddy-server keys list)"
        case .userIdOrAirlineInvalid(let m): "\(m)"
        case .environmentInvalid(let m): "environment invalid: \(m)"
        case .userLocked(let m): "access refused (\(m)): the key or company is deactivated; ask your operator, then start again"
        case .upgradeRequired(let m): "this Eddy version is too old for the server (\(m)): update the app"
        case .offline(let m): "the first start needs the server to validate the API key, and it could not be reached (\(m)): try again when online"
        case .notStarted: "the engine is not started: call start(apiKey:airline:userId:environment:) first"
        case .noLocation: "no location yet: push a location sample first"
        case .tooManyRequests(let s): "the server asks to wait \(s) s before the next request"
        case .sync(let e): "sync failed: \(e)"
        case .store(let e): "local store failed: \(e)"
        case .query(let e): "invalid query: \(e)"
        case .dataQueryInvalid(let m): "invalid data query: \(m)"
        case .alertQuery(let e): "invalid alert query: \(e)"
        case .unknownAircraft(let m): "\(m)"
        case .invalidLocation(let m): "unusable location: \(m)"
        }
    }

    /// The engine error for a sync error (start-time mapping: 401 → key invalid, 403, 426, unreachable → offline).
    static func starting(_ error: SyncError) -> EddyError {
        switch error {
        case .apiKeyInvalid(let m): .apiKeyInvalid(m)
        case .forbidden(let m): .userLocked(m)
        case .clientTooOld(let m): .upgradeRequired(m)
        case .unreachable(let e): .offline("\(e)")
        case .rateLimited(let s): .tooManyRequests(retryAfterSeconds: s)
        case .badRequest(let m): .userIdOrAirlineInvalid("the server refused the session request (\(m)): check airline and user id")
        default: .sync(error)
        }
    }
}

/// A flight (SkyPath's `Flight`): set by the host, or temporary while airborne without one.
public struct Flight: Sendable, Equatable, Codable {
    /// Flight number (e.g. "DAL123").
    public var flightNumber: String?
    /// Departure airport, ICAO code.
    public var departure: String?
    /// Destination airport, ICAO code.
    public var destination: String?
    /// The host's flight plan id.
    public var flightPlanId: String?
    /// True for the flight the engine made up at take-off because the host set none.
    public var isTemporary: Bool
    /// Creates a flight.
    public init(flightNumber: String? = nil, departure: String? = nil, destination: String? = nil,
                flightPlanId: String? = nil, isTemporary: Bool = false) {
        self.flightNumber = flightNumber; self.departure = departure; self.destination = destination
        self.flightPlanId = flightPlanId; self.isTemporary = isTemporary
    }
    /// A stable key for report-id salts.
    var key: String { [flightNumber ?? "", departure ?? "", destination ?? "", flightPlanId ?? ""].joined(separator: "/") }
}

/// What the engine fetches and for where (SkyPath's `DataQuery`). Setting it triggers a fetch check at once.
public struct DataQuery: Sendable, Equatable, Codable {
    /// Data types fetched.
    public var types: Set<DataType>
    /// Route corridor polygon (closed or open ring, 3…250 vertices); nil lets the engine fetch around the
    /// aircraft (a `autoRouteRadiusNM` circle, re-centred as it flies).
    public var routePolygon: [LatLng]?
    /// Map viewport polygon (3…250 vertices); nil for none.
    public var viewport: [LatLng]?
    /// Whether the whole planet is fetched too (heavy; off by default).
    public var globalEnabled: Bool
    /// History window of fetched reports.
    public var historyWindow: HistoryWindow
    /// Altitude range, feet, whole thousands (0…60,000).
    public var altitudeRangeFeet: ClosedRange<Int>
    /// Lowest severity shown by local queries (for the aircraft's class).
    public var minimumSeverity: Severity

    /// Creates a query (defaults: turbulence, around the aircraft, 2 h, every altitude, light and worse).
    public init(types: Set<DataType> = [.turbulence], routePolygon: [LatLng]? = nil, viewport: [LatLng]? = nil,
                globalEnabled: Bool = false, historyWindow: HistoryWindow = .twoHours,
                altitudeRangeFeet: ClosedRange<Int> = 0...60_000, minimumSeverity: Severity = .light) {
        self.types = types; self.routePolygon = routePolygon; self.viewport = viewport; self.globalEnabled = globalEnabled
        self.historyWindow = historyWindow; self.altitudeRangeFeet = altitudeRangeFeet; self.minimumSeverity = minimumSeverity
    }

    /// Checks every field; throws a typed error naming the bad one.
    public func validate() throws(EddyError) {
        guard !types.isEmpty else { throw .dataQueryInvalid("types is empty: ask for at least one data type (e.g. [.turbulence])") }
        let (lower, upper) = (altitudeRangeFeet.lowerBound, altitudeRangeFeet.upperBound)
        guard lower % 1000 == 0, upper % 1000 == 0 else { throw .query(.altRangeNotRoundToThousandFeet(lowerFeet: lower, upperFeet: upper)) }
        guard lower >= QueryLimits.lowestAltitudeFeet, upper <= QueryLimits.highestAltitudeFeet else {
            throw .query(.altRangeOutOfBounds(lowerFeet: lower, upperFeet: upper))
        }
        for ring in [routePolygon, viewport] {
            guard let ring else { continue }
            let open = ring.count > 1 && ring.first == ring.last ? Array(ring.dropLast()) : ring
            guard open.count >= 3 else { throw .query(.polygonTooFewCoordinates(count: ring.count)) }
            guard ring.count <= QueryLimits.maximumPolygonCoordinates else {
                throw .query(.polygonTooManyCoordinates(count: ring.count, maximum: QueryLimits.maximumPolygonCoordinates))
            }
            for (index, p) in ring.enumerated()
            where !(p.latitude.isFinite && p.longitude.isFinite && abs(p.latitude) <= 90 && abs(p.longitude) <= 180) {
                throw .query(.invalidCoordinate(index: index, latitude: p.latitude, longitude: p.longitude))
            }
        }
    }
}

/// One `didReceiveAlert(_:)`: the tiles ahead that alert now (nearest first), or an empty, cleared result.
public struct EddyAlert: Sendable, Equatable {
    /// Engine time of the location update that produced it, Unix seconds.
    public var t: Double
    /// Geometry used (beam or route corridor); nil when cleared.
    public var mode: AlertMode?
    /// Alerting tiles, nearest first; empty when the alert cleared.
    public var items: [AlertItem]
    /// Tiles that are new or got worse since the previous alert.
    public var newOrWorse: [TileID]
    /// The alerting tiles grouped by the 60 / 30 NM clusterer.
    public var clusters: [TurbulenceCluster]
    /// True when nothing alerts any more.
    public var isCleared: Bool { items.isEmpty }
    /// Creates an alert.
    public init(t: Double, mode: AlertMode?, items: [AlertItem], newOrWorse: [TileID], clusters: [TurbulenceCluster]) {
        self.t = t; self.mode = mode; self.items = items; self.newOrWorse = newOrWorse; self.clusters = clusters
    }
}

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
    /// Flight phase and low power thresholds.
    public var flightPhase: FlightPhaseConfiguration
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
    /// Wraps the engine's HTTP transport (tests observe each request with it); nil for none.
    package var transportWrapper: (@Sendable (any HTTPTransport) -> any HTTPTransport)?

    /// Creates a configuration with defaults.
    public init(storePath: String, storeOptions: StoreOptions = StoreOptions(), delivery: CallbackDelivery = .queue(.main),
                syncTiming: SyncTiming = .wallClock) {
        self.storePath = storePath
        self.storeOptions = storeOptions
        self.delivery = delivery
        self.syncTiming = syncTiming
        flightPhase = FlightPhaseConfiguration()
        autoRouteRadiusNM = 150
        autoRouteRecentreNM = 40
        positionUploadIntervalSeconds = 60
        clientVersion = EddyVersion.current
        connectTimeoutSeconds = 5
        requestTimeoutSeconds = 20
        syncJitterSeed = 0x5EED
    }
}

extension EddyError {
    /// A failure met while using the store as the engine's error: a `StoreError` becomes `.store`, a `QueryError`
    /// `.query`, anything else (e.g. a value that cannot be encoded) `.store(.unexpected)` on the store at `storePath`.
    static func storeFailure(_ error: any Error, storePath: String) -> EddyError {
        switch error {
        case let error as StoreError: .store(error)
        case let error as QueryError: .query(error)
        default: .store(.unexpected(path: storePath, detail: "\(error)"))
        }
    }
}
