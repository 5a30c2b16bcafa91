import Dispatch
public import EddyAlerts
import EddyH3
import EddyStore
import EddySync
import EddyTerrain
import Foundation

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
    /// The terrain directory could not be used (missing, unreadable, a bad tile): the terrain error says what to do.
    case terrain(TerrainError)
    /// A demo could not start (`startDemo`): the message says which value is wrong.
    case demoInvalid(String)
    /// A flight-level hint (planned or cleared level, cruise temperature) is not plausible: the message says which.
    case flightLevelHintInvalid(String)
    /// The log could not be exported (logging off, or the directory not writable): the message says what to do.
    case logging(String)
    /// The credential store (`EddyConfiguration.credentialStore`) refused to keep the session's secrets.
    case credentials(CredentialStoreError)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .apiKeyInvalid(let m): "API key invalid (\(m)): check the key your operator issued (eddy-server keys list)"
        case .userIdOrAirlineInvalid(let m): "\(m)"
        case .environmentInvalid(let m): "environment invalid: \(m)"
        case .userLocked(let m): "access refused (\(m)): the key or company is deactivated; ask your operator, then start again"
        case .upgradeRequired(let m): "this Eddy version is too old for the server (\(m)): update the app"
        case .offline(let m): "the first start needs the server to validate the API key, and it could not be reached (\(m)): try again when online"
        case .credentials(let e): "the session's API key and user id could not be kept in the credential store: \(e)"
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
        case .terrain(let e): "terrain: \(e)"
        case .logging(let m): "logs: \(m)"
        case .demoInvalid(let m): "demo not started: \(m)"
        case .flightLevelHintInvalid(let m): "flight-level hint refused: \(m)"
        }
    }

    /// The engine error for a session-start error, with advice for `airline` and `baseURL` (401 → key invalid; 403 →
    /// locked, or the key belongs to another airline; 404 / 405 → no Eddy server at this base URL; 426; unreachable →
    /// offline; another 4xx → the request was refused).
    static func starting(_ error: SyncError, airline: String, baseURL: String) -> EddyError {
        switch error {
        case .apiKeyInvalid(let m): return .apiKeyInvalid(m)
        case .forbidden(let m) where m.hasPrefix("airlineMismatch"):
            return .userIdOrAirlineInvalid("the server says the API key does not belong to airline \(airline) (\(m)): "
                + "pass the airline the key was issued for, or that airline's key")
        case .forbidden(let m): return .userLocked(m)
        case .clientTooOld(let m): return .upgradeRequired(m)
        case .unreachable(let e): return .offline("\(e)")
        case .rateLimited(let s): return .tooManyRequests(retryAfterSeconds: s)
        case .badRequest(let m) where m.hasPrefix("404:") || m.hasPrefix("405:"):
            let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            let hint = trimmed.hasSuffix("/v1") ? ": drop the trailing /v1 (Eddy adds it)" : ": give the server's root"
            return .environmentInvalid("no Eddy session endpoint at \(trimmed)/v1/session (\(m)); the base URL is wrong\(hint), "
                + "e.g. https://eddy.example.com")
        case .badRequest(let m):
            return .userIdOrAirlineInvalid("the server refused the session request (\(m)): check airline and user id")
        default: return .sync(error)
        }
    }
}

extension EddyError {
    /// The engine's error for a store error: a refused query is `.query` (what to fix), the rest `.store`.
    init(_ error: StoreError) {
        if case .invalidQuery(let query) = error { self = .query(query) } else { self = .store(error) }
    }
}
