#if Tools
import EddySupport
import Foundation
import GRDB

// SQLiteServerStorage: API keys and sessions.
extension SQLiteServerStorage {
    // MARK: keys

    /// Adds a key for `airline`; returns the key (shown once) and its record.
    package func addKey(airline: String, label: String, now: Double, expiresAt: Double?) throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        let key = StorageSupport.newAPIKey()
        let id = try writeNow("add an API key") { db -> Int64 in
            try db.execute(
                sql: "INSERT INTO api_keys (key, key_prefix, airline, label, active, created_at, expires_at) VALUES (?, ?, ?, ?, 1, ?, ?)",
                arguments: [StorageSupport.apiKeyHash(key), StorageSupport.apiKeyPrefix(key), airline, label, now, expiresAt])
            return db.lastInsertedRowID
        }
        return (key, APIKeyRecord(id: id, airline: airline, label: label, prefix: StorageSupport.apiKeyPrefix(key), active: true,
                                  createdAt: now, expiresAt: expiresAt))
    }

    /// A key that never expires (the synchronous callers: `eddy-server keys`, tests).
    package func addKey(airline: String, label: String, now: Double) throws(ServerDatabaseError) -> (key: String, record: APIKeyRecord) {
        try addKey(airline: airline, label: label, now: now, expiresAt: nil)
    }

    /// The columns of an `APIKeyRecord`, in `record(_:)`'s order.
    static let keyColumns = "id, key_prefix, airline, label, active, created_at, expires_at, last_used_at, sessions_started"

    /// The record of a row of `keyColumns`.
    static func record(_ row: Row) -> APIKeyRecord {
        APIKeyRecord(
            id: row["id"], airline: row["airline"], label: row["label"], prefix: row["key_prefix"], active: row["active"],
            createdAt: row["created_at"], expiresAt: row["expires_at"], lastUsedAt: row["last_used_at"], sessionsStarted: row["sessions_started"])
    }

    /// Every key, oldest first.
    package func listKeys() throws(ServerDatabaseError) -> [APIKeyRecord] {
        try readNow("list the API keys") { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.keyColumns) FROM api_keys ORDER BY id").map(Self.record)
        }
    }

    /// Revokes a key: its sessions get 403 from now on.
    package func revokeKey(id: Int64) throws(ServerDatabaseError) {
        try writeNow("revoke an API key") { db in
            try db.execute(sql: "UPDATE api_keys SET active = 0 WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw ServerDatabaseError.unknownKey(id) }
        }
    }

    /// Looks a key up by its hash.
    package func lookupKey(_ key: String) async throws(ServerDatabaseError) -> APIKeyRecord? {
        let hash = StorageSupport.apiKeyHash(key)
        return try await read("look up an API key") { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.keyColumns) FROM api_keys WHERE key = ?", arguments: [hash]).map(Self.record)
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
            try db.execute(sql: "UPDATE api_keys SET last_used_at = ?, sessions_started = sessions_started + 1 WHERE id = ?",
                           arguments: [now, keyId])
            return SessionRecord(token: token, keyId: keyId, airline: airline, reporterId: reporterId, expiresAt: now + ttl, keyActive: true)
        }
    }

    /// The session for a token, with its key's state; nil when unknown.
    package func session(token: String) async throws(ServerDatabaseError) -> SessionRecord? {
        try await read("look up a session") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT s.token, s.key_id, s.airline, s.reporter_id, s.expires_at, k.active, k.expires_at
                FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.token = ?
                """, arguments: [token]) else { return nil }
            return SessionRecord(
                token: row[0], keyId: row[1], airline: row[2], reporterId: row[3], expiresAt: row[4], keyActive: row[5], keyExpiresAt: row[6])
        }
    }

    /// Test hook: expires every session now.
    package func expireAllSessions(now: Double) async throws(ServerDatabaseError) {
        try await write("expire the sessions") { db in try db.execute(sql: "UPDATE sessions SET expires_at = ?", arguments: [now - 1]) }
    }
}
#endif
