import EddyNavigation
import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyVocabulary
import Foundation

/// The engine's settings in its store, so that a relaunch restores them: aircraft, flight, data query, update frequency
/// and barometer calibration in the configuration table; the session's plain half (airline, environment) and its
/// server's thresholds in the session table, its secrets (API key, user id) in the credential store, all forgotten at
/// `stop()`; and a digest of the identity the server last validated, which `stop()` keeps so that a later start with
/// the same identity works offline.
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
        /// What went wrong or was mended while restoring (for the log): an unreadable credential store, a legacy
        /// store's secrets moved out.
        var notes: [String] = []
    }

    /// Where a session's secrets go: the host's credential store, under an account named after the store file (stable
    /// across app updates, which move an iOS app's container).
    struct SessionCredentials {
        /// The credential store.
        let store: any EddyCredentialStore
        /// The account name.
        let account: String

        /// The credentials of the engine whose store is at `storePath`.
        init(store: any EddyCredentialStore, storePath: String) {
            self.store = store
            account = "eddy.session." + URL(fileURLWithPath: storePath).lastPathComponent
        }
    }

    /// The session's plain half in the store; `apiKey` and `userId` are read only from stores written before the
    /// credential store existed, and moved out of them.
    private struct SessionRecord: Codable {
        var airline: String
        var environment: EddyEnvironment
        var apiKey: String?
        var userId: String?
    }

    /// The session's secret half in the credential store.
    private struct SessionSecrets: Codable {
        var apiKey: String
        var userId: String
    }

    /// Reads every setting; an unreadable one is left at its default.
    static func restore(from store: EddyStore, credentials: SessionCredentials) -> Restored {
        var restored = Restored(
            aircraft: (try? store.configuration(AircraftType.self, forKey: aircraftKey)) ?? nil,
            flight: (try? store.configuration(Flight.self, forKey: flightKey)) ?? nil,
            dataQuery: (try? store.configuration(DataQuery.self, forKey: dataQueryKey)) ?? nil,
            updateFrequency: ((try? store.configurationValue(forKey: frequencyKey)) ?? nil).flatMap(UpdateFrequency.init(rawValue:)),
            session: nil,
            barometerCalibration: (try? store.configuration(BarometerCalibration.self, forKey: barometerCalibrationKey)) ?? nil,
            serverThresholds: ((try? store.sessionValue(forKey: serverThresholdsKey)) ?? nil)
                .flatMap { try? JSONDecoder().decode(ClientThresholds.self, from: Data($0.utf8)) })
        restored.session = restoreSession(from: store, credentials: credentials, notes: &restored.notes)
        return restored
    }

    /// The last session: its plain half from the store, its secrets from the credential store. A store written before
    /// the credential store existed holds the secrets itself: they are moved to the credential store and scrubbed from
    /// the file (`scrubSessionValue`).
    private static func restoreSession(from store: EddyStore, credentials: SessionCredentials, notes: inout [String])
        -> PersistedSession? {
        guard let text = (try? store.sessionValue(forKey: sessionKey)) ?? nil,
              let record = try? JSONDecoder().decode(SessionRecord.self, from: Data(text.utf8)) else { return nil }
        if let apiKey = record.apiKey, let userId = record.userId {
            let session = PersistedSession(apiKey: apiKey, airline: record.airline, userId: userId, environment: record.environment)
            do {
                try persist(session: session, in: store, credentials: credentials, scrub: true)
                notes.append("the last session's API key and user id moved from the store to the credential store")
            } catch {
                notes.append("the last session's API key and user id are still in the store: \(error)")
            }
            return session
        }
        let secrets: SessionSecrets
        do {
            guard let data = try credentials.store.secret(forAccount: credentials.account) else {
                notes.append("the last session's secrets are not in the credential store: the next start validates the key online unless its identity was validated before")
                return nil
            }
            secrets = try JSONDecoder().decode(SessionSecrets.self, from: data)
        } catch {
            notes.append("the last session's secrets cannot be read from the credential store: \(error)")
            return nil
        }
        return PersistedSession(apiKey: secrets.apiKey, airline: record.airline, userId: secrets.userId, environment: record.environment)
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

    /// Persists a started session: its secrets in the credential store first, then its plain half in the store (with
    /// `scrub`, overwriting the old value's bytes in the file).
    static func persist(session: PersistedSession, in store: EddyStore, credentials: SessionCredentials, scrub: Bool = false)
        throws(EddyError) {
        let secrets: Data, record: String
        do {
            secrets = try JSONEncoder().encode(SessionSecrets(apiKey: session.apiKey, userId: session.userId))
            let plain = SessionRecord(airline: session.airline, environment: session.environment, apiKey: nil, userId: nil)
            record = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        } catch {
            throw .store(.invalidArgument("the session could not be encoded: \(error)"))
        }
        do { try credentials.store.setSecret(secrets, forAccount: credentials.account) } catch { throw .credentials(error) }
        do {
            if scrub { try store.scrubSessionValue(record, forKey: sessionKey) } else { try store.setSessionValue(record, forKey: sessionKey) }
        } catch { throw .store(error) }
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

    /// Forgets the session, its secrets and its server's thresholds (`stop()`).
    /// A credential store's failure is reported as the store's (`StoreError.unexpected`, naming the account), since
    /// `stop()` reports through `didFailToAccessStore`.
    static func forgetSession(in store: EddyStore, credentials: SessionCredentials) throws(StoreError) {
        try store.setSessionValue(nil, forKey: sessionKey)
        try store.setSessionValue(nil, forKey: serverThresholdsKey)
        do { try credentials.store.deleteSecret(forAccount: credentials.account) } catch {
            throw .unexpected(path: "credential store account \(credentials.account)", detail: "\(error)")
        }
    }

    private static func setSessionJSON(_ value: some Encodable, forKey key: String, in store: EddyStore) throws(StoreError) {
        let text: String
        do { text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self) } catch {
            throw .invalidArgument("\(key) could not be encoded: \(error)")
        }
        try store.setSessionValue(text, forKey: key)
    }
}
