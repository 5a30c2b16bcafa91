package import EddyVocabulary
package import Foundation

// `POST /v1/reports`: a batch of own tile reports and the server's acknowledgement.

/// `POST /v1/reports` body: a batch of own tile reports; idempotent by `TileReport.id`.
package struct ReportBatch: Sendable, Codable, Equatable {
    /// Reports, at most `ServerSettings.maxReportsPerBatch`.
    package var reports: [TileReport]
    /// Creates a batch.
    package init(reports: [TileReport]) { self.reports = reports }
}

/// `POST /v1/reports` answer: which ids the server now holds.
package struct ReportBatchAck: Sendable, Codable, Equatable {
    /// Every id of the batch the server now holds (new or already known): the client may drop them from its outbox.
    package var acceptedIds: [UUID]
    /// How many were new.
    package var newCount: Int
    /// How many the server already had (a retried upload).
    package var duplicateCount: Int
    /// Reports refused for good (invalid content): the client drops them, retrying cannot help.
    package var rejected: [RejectedReport]
    /// Server tick at ingest.
    package var serverTick: Int
    /// Creates an acknowledgement.
    package init(acceptedIds: [UUID], newCount: Int, duplicateCount: Int, rejected: [RejectedReport] = [], serverTick: Int) {
        self.acceptedIds = acceptedIds; self.newCount = newCount; self.duplicateCount = duplicateCount
        self.rejected = rejected; self.serverTick = serverTick
    }

    private enum CodingKeys: String, CodingKey { case acceptedIds, newCount, duplicateCount, rejected, serverTick }

    /// Encodes the ids lower-case, as clients send them (RFC 9562; `JSONEncoder` writes UUIDs upper-case, which made
    /// clients comparing strings miss their own ids: issue 30).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(acceptedIds.map { $0.uuidString.lowercased() }, forKey: .acceptedIds)
        try container.encode(newCount, forKey: .newCount)
        try container.encode(duplicateCount, forKey: .duplicateCount)
        try container.encode(rejected, forKey: .rejected)
        try container.encode(serverTick, forKey: .serverTick)
    }
}

/// A report the server refused, and why.
package struct RejectedReport: Sendable, Codable, Equatable {
    /// The report id.
    package var id: UUID
    /// What is wrong with it.
    package var reason: String
    /// Creates a rejection.
    package init(id: UUID, reason: String) { self.id = id; self.reason = reason }

    private enum CodingKeys: String, CodingKey { case id, reason }

    /// Encodes the id lower-case, like `ReportBatchAck.acceptedIds`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.uuidString.lowercased(), forKey: .id)
        try container.encode(reason, forKey: .reason)
    }
}
