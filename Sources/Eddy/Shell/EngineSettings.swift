import EddyNavigation
import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyVocabulary
import Foundation

/// The engine's settings in its store, so that a relaunch restores them: aircraft, flight, data query, update frequency
/// and barometer calibration in the configuration table; the session and its server's thresholds in the session table
/// (forgotten at `stop()`); and a digest of the identity the server last validated, which `stop()` keeps so that a later
/// start with the same identity works offline.
enum EngineSettings {
    private static let aircraftKey = "engine.aircraft"
    private static let flightKey = "engine.flight"
    private static let dataQueryKey = "engine.dataQuery"
    private static let frequencyKey = "engine.updateFrequency"
    private static let sessionKey = "engine.session"
    private static let barometerCalibrationKey = "engine.barometerCalibration"
    /// Session value: the client thresholds of the last session's server (JSON), kept for offline restarts.
    private static let serverThresholdsKey = "engine.serverThresholds"
    /// Configuration value: FNV-1a 64 of the identity (key, airline, user id, environment) the server last validated.
    /// A digest, not the key: `stop()` keeps it, and it cannot be used to talk to a server.
    private static let validatedIdentityKey = "engine.validatedIdentity"

    /// What a relaunch restores (nil: never set, or unreadable: the default holds).
    struct Restored {
        /// The aircraft.
        var aircraft: AircraftType?
        /// The flight.
        var flight: Flight?
        /// The data query.
        var dataQuery: DataQuery?
        /// The update frequency.
        var updateFrequency: UpdateFrequency?
        /// The last session (a later start with the same identity works offline).
        var session: PersistedSession?
        /// The barometer calibration.
        var barometerCalibration: BarometerCalibration?
        /// The last session's server thresholds.
        var serverThresholds: ClientThresholds?
    }

    /// Reads every setting; an unreadable one is left at its default.
    static func restore(from store: EddyStore) -> Restored {
        Restored(
            aircraft: (try? store.configuration(AircraftType.self, forKey: aircraftKey)) ?? nil,
            flight: (try? store.configuration(Flight.self, forKey: flightKey)) ?? nil,
            dataQuery: (try? store.configuration(DataQuery.self, forKey: dataQueryKey)) ?? nil,
            updateFrequency: ((try? store.configurationValue(forKey: frequencyKey)) ?? nil).flatMap(UpdateFrequency.init(rawValue:)),
            session: ((try? store.sessionValue(forKey: sessionKey)) ?? nil)
                .flatMap { try? JSONDecoder().decode(PersistedSession.self, from: Data($0.utf8)) },
            barometerCalibration: (try? store.configuration(BarometerCalibration.self, forKey: barometerCalibrationKey)) ?? nil,
            serverThresholds: ((try? store.sessionValue(forKey: serverThresholdsKey)) ?? nil)
                .flatMap { try? JSONDecoder().decode(ClientThresholds.self, from: Data($0.utf8)) })
    }

    /// Persists a setting the core asked to persist.
    static func persist(_ setting: EngineSetting, in store: EddyStore) throws(StoreError) {
        switch setting {
        case .aircraft(let type): try store.setConfiguration(type, forKey: aircraftKey)
        case .flight(let flight?): try store.setConfiguration(flight, forKey: flightKey)
        case .flight(nil): try store.setConfigurationValue(nil, forKey: flightKey)
        case .dataQuery(let query): try store.setConfiguration(query, forKey: dataQueryKey)
        case .updateFrequency(let frequency): try store.setConfigurationValue(frequency.rawValue, forKey: frequencyKey)
        case .barometerCalibration(let calibration): try store.setConfiguration(calibration, forKey: barometerCalibrationKey)
        }
    }

    /// Persists a started session.
    static func persist(session: PersistedSession, in store: EddyStore) throws(StoreError) {
        try setSessionJSON(session, forKey: sessionKey, in: store)
    }

    /// Persists the thresholds a session's server sent (nil: it sent none).
    static func persist(serverThresholds: ClientThresholds?, in store: EddyStore) throws(StoreError) {
        if let serverThresholds { try setSessionJSON(serverThresholds, forKey: serverThresholdsKey, in: store) }
        else { try store.setSessionValue(nil, forKey: serverThresholdsKey) }
    }

    /// Whether the server validated `session`'s identity before (a start with it may work offline).
    static func wasValidated(_ session: PersistedSession, in store: EddyStore) -> Bool {
        ((try? store.configurationValue(forKey: validatedIdentityKey)) ?? nil) == digest(of: session)
    }

    /// Remembers that the server validated `session`'s identity (nil: forgets it, after the server refused the key).
    static func persist(validated session: PersistedSession?, in store: EddyStore) throws(StoreError) {
        try store.setConfigurationValue(session.map(digest(of:)), forKey: validatedIdentityKey)
    }

    private static func digest(of session: PersistedSession) -> String {
        let environment = [session.environment.name, session.environment.baseURL ?? "", session.environment.proxy ?? ""]
        return String(FNV1a.hash64([session.apiKey, session.airline, session.userId] + environment), radix: 16)
    }

    /// Forgets the session and its server's thresholds (`stop()`).
    static func forgetSession(in store: EddyStore) throws(StoreError) {
        try store.setSessionValue(nil, forKey: sessionKey)
        try store.setSessionValue(nil, forKey: serverThresholdsKey)
    }

    private static func setSessionJSON(_ value: some Encodable, forKey key: String, in store: EddyStore) throws(StoreError) {
        let text: String
        do { text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self) } catch {
            throw .invalidArgument("\(key) could not be encoded: \(error)")
        }
        try store.setSessionValue(text, forKey: key)
    }
}
