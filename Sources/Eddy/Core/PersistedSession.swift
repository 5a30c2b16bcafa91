/// The session persisted in the store so that a later start with the same identity works offline.
package struct PersistedSession: Codable, Equatable, Sendable {
    /// The API key.
    package var apiKey: String
    /// Airline ICAO code.
    package var airline: String
    /// The host's user id.
    package var userId: String
    /// Where the server is.
    package var environment: EddyEnvironment

    /// Creates a session.
    package init(apiKey: String, airline: String, userId: String, environment: EddyEnvironment) {
        self.apiKey = apiKey; self.airline = airline; self.userId = userId; self.environment = environment
    }
}
