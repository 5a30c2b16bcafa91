import EddyCore
import EddyProtocol
import Foundation

// The records the server's layers hand each other and the storage's error type: every backend reads and writes these,
// so they live here rather than inside one of them.

/// An API key as the operator sees it (`eddy-server keys list`).
package struct APIKeyRecord: Sendable, Equatable {
    /// Row id (what `keys revoke` takes).
    package var id: Int64
    /// Company ICAO code the key belongs to.
    package var airline: String
    /// Operator's label.
    package var label: String
    /// First characters of the key (safe to show).
    package var prefix: String
    /// False once revoked.
    package var active: Bool
    /// Creation time, Unix seconds.
    package var createdAt: Double
}

/// A live session (bearer token → who).
package struct SessionRecord: Sendable {
    /// Bearer token (secret).
    package var token: String
    /// Key the session was opened with.
    package var keyId: Int64
    /// Company ICAO code.
    package var airline: String
    /// Anonymised reporter id.
    package var reporterId: String
    /// Expiry, Unix seconds.
    package var expiresAt: Double
    /// Whether the key is still active.
    package var keyActive: Bool
}

/// Errors of the server database layer.
package enum ServerDatabaseError: Error, CustomStringConvertible {
    /// The key id given to `keys revoke` does not exist.
    case unknownKey(Int64)
    /// The database failed while doing `operation` (a query, the connection or the commit) because of `cause`: what the
    /// call wrote is not known to be committed, so nothing of it may be acknowledged (the server answers 503 and the
    /// client retries; uploads are idempotent).
    case failed(operation: String, cause: String)

    /// Description.
    package var description: String {
        switch self {
        case .unknownKey(let id): "no API key with id \(id); run `eddy-server keys list` to see the ids"
        case .failed(let operation, let cause): "the database failed to \(operation): \(cause)"
        }
    }

    /// `error` as a failure of `operation`; a `ServerDatabaseError` stays as it is. `cause` says what a backend's own
    /// error means (PostgresNIO's errors describe themselves generically, to keep query values out of logs).
    static func wrapping(_ error: any Error, operation: String, cause: (any Error) -> String = { String(describing: $0) })
        -> ServerDatabaseError {
        if let known = error as? ServerDatabaseError { return known }
        return .failed(operation: operation, cause: cause(error))
    }
}

/// One validated report ready to insert.
package struct IngestRow: Sendable {
    /// The report as uploaded.
    var report: TileReport
    /// Its cell's centre (stored for area filters).
    var center: GeoPoint
}

/// Area / window / layer / tick filter shared by the fetch queries.
package struct ObservationFilter: Sendable {
    /// Area (nil: everywhere).
    var polygon: [GeoPoint]?
    /// Oldest exit time, Unix seconds.
    var minExitTime: Double
    /// Lowest layer.
    var minLayer: Int
    /// Highest layer.
    var maxLayer: Int
    /// Delta fetches: only reports stored at or after this tick.
    var minTick: Int?
}

/// A stored report as the nowcast reads it.
package struct StoredNowcastInput: Sendable, Equatable {
    /// H3 cell.
    package var cell: UInt64
    /// Layer (thousands of feet).
    package var layer: Int
    /// Exit time, Unix seconds.
    package var exitTime: Double
    /// Peak EDR.
    package var edrPeak: Double
}

/// One nowcast cell to store.
package struct StoredNowcastCell: Sendable, Equatable {
    /// H3 cell.
    package var cell: UInt64
    /// Layer (thousands of feet).
    package var layer: Int
    /// Hours after the issue time.
    package var forecastHour: Int
    /// Forecast EDR.
    package var edr: Double
    /// The cell's centre (for area filters).
    package var center: GeoPoint
}
