import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import Logging
import PostgresNIO

// PostgresServerStorage: API keys and sessions.
extension PostgresServerStorage {
    // MARK: keys

    package func addKey(airline: String, label: String, now: Double) async throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        let key = StorageSupport.newAPIKey()
        let logger = self.logger
        let id = try await write("add an API key") { connection -> Int64 in
            let rows = try await connection.query("""
                INSERT INTO api_keys (key, key_prefix, airline, label, active, created_at)
                VALUES (\(StorageSupport.apiKeyHash(key)), \(StorageSupport.apiKeyPrefix(key)), \(airline), \(label), TRUE, \(now))
                RETURNING id
                """, logger: logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            return id
        }
        return (key, APIKeyRecord(id: id, airline: airline, label: label, prefix: StorageSupport.apiKeyPrefix(key), active: true,
                                  createdAt: now))
    }

    package func listKeys() async throws(ServerDatabaseError) -> [APIKeyRecord] {
        try await read("list the API keys") { connection in
            var result: [APIKeyRecord] = []
            let rows = try await connection.query("SELECT id, key_prefix, airline, label, active, created_at FROM api_keys ORDER BY id", logger: self.logger)
            for try await (id, prefix, airline, label, active, createdAt) in rows.decode((Int64, String, String, String, Bool, Double).self) {
                result.append(APIKeyRecord(id: id, airline: airline, label: label, prefix: prefix, active: active, createdAt: createdAt))
            }
            return result
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

    package func lookupKey(_ key: String) async throws(ServerDatabaseError) -> (id: Int64, airline: String, active: Bool)? {
        try await read("look up an API key") { connection in
            let rows = try await connection.query(
                "SELECT id, airline, active FROM api_keys WHERE key = \(StorageSupport.apiKeyHash(key))", logger: self.logger)
            for try await (id, airline, active) in rows.decode((Int64, String, Bool).self) { return (id, airline, active) }
            return nil
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
            return reporter
        }
        return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporterId, expiresAt: now + ttl, keyActive: true)
    }

    package func session(token: String) async throws(ServerDatabaseError) -> SessionRecord? {
        try await read("look up a session") { connection in
            let rows = try await connection.query("""
                SELECT s.token, s.key_id, s.airline, s.reporter_id, s.expires_at, k.active
                FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.token = \(token)
                """, logger: self.logger)
            for try await (token, keyId, airline, reporter, expires, active) in rows.decode((String, Int64, String, String, Double, Bool).self) {
                return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporter, expiresAt: expires, keyActive: active)
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
