#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import Logging
import PostgresNIO

// PostgresServerStorage: API keys and sessions.
extension PostgresServerStorage {
    // MARK: keys

    package func addKey(airline: String, label: String, now: Double, expiresAt: Double?) async throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        let key = StorageSupport.newAPIKey()
        let logger = self.logger
        let id = try await write("add an API key") { connection -> Int64 in
            let rows = try await connection.query("""
                INSERT INTO api_keys (key, key_prefix, airline, label, active, created_at, expires_at)
                VALUES (\(StorageSupport.apiKeyHash(key)), \(StorageSupport.apiKeyPrefix(key)), \(airline), \(label), TRUE, \(now), \(expiresAt))
                RETURNING id
                """, logger: logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            return id
        }
        return (key, APIKeyRecord(id: id, airline: airline, label: label, prefix: StorageSupport.apiKeyPrefix(key), active: true,
                                  createdAt: now, expiresAt: expiresAt))
    }

    /// The columns of an `APIKeyRecord`, in `records(_:)`'s order.
    static let keyColumns = "id, key_prefix, airline, label, active, created_at, expires_at, last_used_at, sessions_started"

    /// The records of rows of `keyColumns`.
    static func records(_ rows: PostgresRowSequence) async throws -> [APIKeyRecord] {
        var result: [APIKeyRecord] = []
        for try await (id, prefix, airline, label, active, createdAt, expiresAt, lastUsedAt, sessions) in rows.decode(
            (Int64, String, String, String, Bool, Double, Double?, Double?, Int64).self) {
            result.append(APIKeyRecord(id: id, airline: airline, label: label, prefix: prefix, active: active, createdAt: createdAt,
                                       expiresAt: expiresAt, lastUsedAt: lastUsedAt, sessionsStarted: Int(sessions)))
        }
        return result
    }

    package func listKeys() async throws(ServerDatabaseError) -> [APIKeyRecord] {
        try await read("list the API keys") { connection in
            try await Self.records(try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT \(Self.keyColumns) FROM api_keys ORDER BY id"), logger: self.logger))
        }
    }

    package func revokeKey(id: Int64) async throws(ServerDatabaseError) {
        let logger = self.logger
        try await write("revoke an API key") { connection in
            let rows = try await connection.query("UPDATE api_keys SET active = FALSE WHERE id = \(id) RETURNING id", logger: logger)
            var found = false
            for try await _ in rows.decode(Int64.self) { found = true }
            if !found { throw ServerDatabaseError.unknownKey(id) }
        }
    }

    package func lookupKey(_ key: String) async throws(ServerDatabaseError) -> APIKeyRecord? {
        var binds = PostgresBindings()
        binds.append(StorageSupport.apiKeyHash(key))
        let query = PostgresQuery(unsafeSQL: "SELECT \(Self.keyColumns) FROM api_keys WHERE key = $1", binds: binds)
        return try await read("look up an API key") { connection in
            try await Self.records(try await connection.query(query, logger: self.logger)).first
        }
    }

    // MARK: sessions

    package func openSession(keyId: Int64, airline: String, userId: String, now: Double, ttl: Double) async throws(ServerDatabaseError) -> SessionRecord {
        let token = StorageSupport.randomHex(bytes: 32)
        let candidate = "r_" + StorageSupport.randomHex(bytes: 8)
        let logger = self.logger
        let reporterId: String = try await write("open a session") { connection in
            try await connection.query("""
                INSERT INTO reporters (airline, user_id, reporter_id) VALUES (\(airline), \(userId), \(candidate))
                ON CONFLICT (airline, user_id) DO NOTHING
                """, logger: logger)
            var reporter = candidate
            let rows = try await connection.query(
                "SELECT reporter_id FROM reporters WHERE airline = \(airline) AND user_id = \(userId)", logger: logger)
            for try await value in rows.decode(String.self) { reporter = value }
            try await connection.query("DELETE FROM sessions WHERE expires_at < \(now - StorageSupport.forgetSessionsExpiredSeconds)", logger: logger)
            try await connection.query("""
                INSERT INTO sessions (token, key_id, airline, reporter_id, expires_at, created_at)
                VALUES (\(token), \(keyId), \(airline), \(reporter), \(now + ttl), \(now))
                """, logger: logger)
            try await connection.query(
                "UPDATE api_keys SET last_used_at = \(now), sessions_started = sessions_started + 1 WHERE id = \(keyId)", logger: logger)
            return reporter
        }
        return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporterId, expiresAt: now + ttl, keyActive: true)
    }

    package func session(token: String) async throws(ServerDatabaseError) -> SessionRecord? {
        try await read("look up a session") { connection in
            let rows = try await connection.query("""
                SELECT s.token, s.key_id, s.airline, s.reporter_id, s.expires_at, k.active, k.expires_at
                FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.token = \(token)
                """, logger: self.logger)
            for try await (token, keyId, airline, reporter, expires, active, keyExpiry) in rows.decode(
                (String, Int64, String, String, Double, Bool, Double?).self) {
                return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporter, expiresAt: expires, keyActive: active,
                                     keyExpiresAt: keyExpiry)
            }
            return nil
        }
    }

    package func expireAllSessions(now: Double) async throws(ServerDatabaseError) {
        let logger = self.logger
        try await write("expire the sessions") { connection in
            _ = try await connection.query("UPDATE sessions SET expires_at = \(now - 1)", logger: logger)
        }
    }
}
#endif
