import EddySupport
import Foundation
import GRDB

// SQLiteServerStorage: API keys and sessions.
extension SQLiteServerStorage {
    // MARK: keys

    /// Adds a key for `airline`; returns the key (shown once) and its record.
    package func addKey(airline: String, label: String, now: Double) throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        let key = StorageSupport.newAPIKey()
        let id = try writeNow("add an API key") { db -> Int64 in
            try db.execute(
                sql: "INSERT INTO api_keys (key, key_prefix, airline, label, active, created_at) VALUES (?, ?, ?, ?, 1, ?)",
                arguments: [StorageSupport.apiKeyHash(key), StorageSupport.apiKeyPrefix(key), airline, label, now])
            return db.lastInsertedRowID
        }
        return (key, APIKeyRecord(id: id, airline: airline, label: label, prefix: StorageSupport.apiKeyPrefix(key), active: true,
                                  createdAt: now))
    }

    /// Every key, oldest first.
    package func listKeys() throws(ServerDatabaseError) -> [APIKeyRecord] {
        try readNow("list the API keys") { db in
            try Row.fetchAll(db, sql: "SELECT id, key_prefix, airline, label, active, created_at FROM api_keys ORDER BY id").map { row in
                APIKeyRecord(
                    id: row["id"], airline: row["airline"], label: row["label"], prefix: row["key_prefix"],
                    active: row["active"], createdAt: row["created_at"])
            }
        }
    }

    /// Revokes a key: its sessions get 403 from now on.
    package func revokeKey(id: Int64) throws(ServerDatabaseError) {
        try writeNow("revoke an API key") { db in
            try db.execute(sql: "UPDATE api_keys SET active = 0 WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw ServerDatabaseError.unknownKey(id) }
        }
    }

    /// Looks a key up by its hash: (id, airline, active) or nil.
    package func lookupKey(_ key: String) async throws(ServerDatabaseError) -> (id: Int64, airline: String, active: Bool)? {
        let hash = StorageSupport.apiKeyHash(key)
        return try await read("look up an API key") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, airline, active FROM api_keys WHERE key = ?", arguments: [hash]) else {
                return nil
            }
            return (row["id"], row["airline"], row["active"])
        }
    }

    // MARK: sessions

    /// Opens a session; the reporter id is random per airline × user and kept (not derived from the user id).
    package func openSession(keyId: Int64, airline: String, userId: String, now: Double, ttl: Double) async throws(ServerDatabaseError)
        -> SessionRecord {
        let token = StorageSupport.randomHex(bytes: 32)
        return try await write("open a session") { db in
            let reporterId: String
            if let existing = try String.fetchOne(
                db, sql: "SELECT reporter_id FROM reporters WHERE airline = ? AND user_id = ?", arguments: [airline, userId]) {
                reporterId = existing
            } else {
                reporterId = "r_" + StorageSupport.randomHex(bytes: 8)
                try db.execute(
                    sql: "INSERT INTO reporters (airline, user_id, reporter_id) VALUES (?, ?, ?)",
                    arguments: [airline, userId, reporterId])
            }
            try db.execute(sql: "DELETE FROM sessions WHERE expires_at < ?", arguments: [now - StorageSupport.forgetSessionsExpiredSeconds])
            try db.execute(
                sql: "INSERT INTO sessions (token, key_id, airline, reporter_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [token, keyId, airline, reporterId, now + ttl, now])
            return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporterId, expiresAt: now + ttl, keyActive: true)
        }
    }

    /// The session for a token, with its key's state; nil when unknown.
    package func session(token: String) async throws(ServerDatabaseError) -> SessionRecord? {
        try await read("look up a session") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT s.token, s.key_id, s.airline, s.reporter_id, s.expires_at, k.active
                FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.token = ?
                """, arguments: [token]) else { return nil }
            return SessionRecord(
                token: row[0], keyId: row[1], airline: row[2], reporterId: row[3], expiresAt: row[4], keyActive: row[5])
        }
    }

    /// Test hook: expires every session now.
    package func expireAllSessions(now: Double) async throws(ServerDatabaseError) {
        try await write("expire the sessions") { db in try db.execute(sql: "UPDATE sessions SET expires_at = ?", arguments: [now - 1]) }
    }
}
