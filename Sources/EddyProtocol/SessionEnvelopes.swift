// `POST /v1/session`: the request that starts a session and its answer (token, tick, settings).

/// `POST /v1/session` body: who is starting a session.
package struct SessionStartRequest: Sendable, Codable, Equatable {
    /// The operator-issued API key.
    package var apiKey: String
    /// Company ICAO code (3 letters, e.g. `DAL`).
    package var airline: String
    /// Any id unique within the company.
    package var userId: String
    /// Client semantic version (`MAJOR.MINOR.PATCH`); older than the server's minimum gives 426.
    package var clientVersion: String
    /// Creates a request.
    package init(apiKey: String, airline: String, userId: String, clientVersion: String) {
        self.apiKey = apiKey; self.airline = airline; self.userId = userId; self.clientVersion = clientVersion
    }
}

/// `POST /v1/session` answer: a bearer token and the settings to use.
package struct SessionStartResponse: Sendable, Codable, Equatable {
    /// Bearer token for `Authorization: Bearer …` (secret; never logged).
    package var token: String
    /// Token expiry, Unix seconds (the server answers 401 after it).
    package var expiresAt: Double
    /// Server tick when the session started.
    package var serverTick: Int
    /// Settings the client should follow.
    package var settings: ServerSettings
    /// Creates a response.
    package init(token: String, expiresAt: Double, serverTick: Int, settings: ServerSettings) {
        self.token = token; self.expiresAt = expiresAt; self.serverTick = serverTick; self.settings = settings
    }
}
