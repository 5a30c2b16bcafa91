#if Tools
package import EddyProtocol
package import EddyVocabulary
import Foundation

// The records the server's layers hand each other: what the domain (`ServerDomain`) asks the storage to keep, what
// the storage gives back, and the storage's one error type. Every backend (SQLite, PostgreSQL, in memory) reads and
// writes these, so they live here rather than inside one of them.

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
    /// When the key stops opening sessions and its sessions get 403 `keyExpired`, Unix seconds (nil: never).
    package var expiresAt: Double? = nil
    /// When the key last opened a session (its last use: requests then run on the session), Unix seconds.
    package var lastUsedAt: Double? = nil
    /// Sessions the key has opened.
    package var sessionsStarted: Int = 0

    /// Whether the key may be used at `now`: active and not expired.
    package func isUsable(at now: Double) -> Bool { active && (expiresAt.map { now < $0 } ?? true) }
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
    /// When the key expires, Unix seconds (nil: never).
    package var keyExpiresAt: Double? = nil
}

/// The storage's errors (every `ServerStorage` call throws only these).
package enum ServerDatabaseError: Error, CustomStringConvertible {
    /// The key id given to `keys revoke` does not exist.
    case unknownKey(Int64)
    /// The database failed while doing `operation` (a query, the connection or the commit) because of `cause`: what the
    /// call wrote is not known to be committed, so nothing of it may be acknowledged (the server answers 503 and the
    /// client retries; uploads are idempotent).
    case failed(operation: String, cause: String)

    /// What went wrong and what to do (the text operators see in logs and in `eddy-server keys` output).
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

/// An upload as the storage writes it (one transaction): the reports whose ids it does not hold yet, under the id
/// the domain decided to serve them with (`ServerDomain.ingest`).
package struct ReportUpload: Sendable {
    /// The validated reports (unique ids).
    var rows: [IngestRow]
    /// The uploading session's reporter.
    var reporterId: String
    /// The reports are served under the public id of this reporter's live flight updated at or after this time (Unix
    /// seconds; the newest such flight)…
    var liveFlightUpdatedSince: Double
    /// …or, without one, under this random id.
    var fallbackPublicId: String
    /// Arrival tick.
    var tick: Int
    /// Arrival time, Unix seconds.
    var receivedAt: Double
}

/// Area / window / layer / tick filter of the fetches, as the domain takes it (the exact polygon).
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

    /// What the storage is asked for: the same window, layers and ticks, and the polygon's bounding box (the exact
    /// polygon test is the domain's).
    var storageQuery: ObservationQuery {
        ObservationQuery(minExitTime: minExitTime, minLayer: minLayer, maxLayer: maxLayer, minTick: minTick,
                         boundingBox: polygon.map(GeoBoundingBox.init(around:)))
    }
}

/// What a storage selects observations by: window, layers, ticks and a bounding box (an index range in SQL), and which
/// part of that selection, in the fetch order (exit time, then insertion): after a position, at most a number of rows.
package struct ObservationQuery: Sendable, Equatable {
    /// Oldest exit time, Unix seconds.
    var minExitTime: Double
    /// Lowest layer.
    var minLayer: Int
    /// Highest layer.
    var maxLayer: Int
    /// Only reports stored at or after this tick (delta fetches).
    var minTick: Int?
    /// Only reports whose tile centre lies in this box, edges included (nil: everywhere).
    var boundingBox: GeoBoundingBox?
    /// Only reports after this position in the fetch order (the previous page's last; nil: from the start).
    var after: ObservationPosition? = nil
    /// At most this many reports (nil: all).
    var limit: Int? = nil
}

/// A stored report's place in the fetch order: exit time, then the order of insertion (SQLite's rowid, PostgreSQL's
/// `seq`, the in-memory insertion number). Pages continue after the last position they returned (keyset pagination:
/// an index range, whatever the number of pages before).
package struct ObservationPosition: Sendable, Equatable, Hashable {
    /// Exit time, Unix seconds.
    var exitTime: Double
    /// Insertion number (unique per report).
    var sequence: Int64
}

/// A nowcast cell's place in the order nowcast pages are served in: cell (as a signed 64-bit integer, as SQL stores it),
/// layer, forecast hour.
package struct NowcastPosition: Sendable, Equatable, Hashable, Comparable {
    /// H3 cell as stored (`Int64(bitPattern:)`).
    var cell: Int64
    /// Layer (thousands of feet).
    var layer: Int
    /// Hours after the issue time.
    var forecastHour: Int

    /// The order of the three fields.
    package static func < (lhs: NowcastPosition, rhs: NowcastPosition) -> Bool {
        (lhs.cell, lhs.layer, lhs.forecastHour) < (rhs.cell, rhs.layer, rhs.forecastHour)
    }
}

/// A latitude / longitude box, degrees, edges included.
package struct GeoBoundingBox: Sendable, Equatable {
    /// Southern edge.
    var minLat: Double
    /// Northern edge.
    var maxLat: Double
    /// Western edge.
    var minLng: Double
    /// Eastern edge.
    var maxLng: Double

    /// The smallest box around `polygon`'s vertices.
    init(around polygon: [GeoPoint]) {
        let box = AreaGeometry.boundingBox(polygon)
        (minLat, maxLat, minLng, maxLng) = (box.minLat, box.maxLat, box.minLng, box.maxLng)
    }

    /// Whether `point` is inside or on an edge (what SQL's `BETWEEN` selects).
    func contains(_ point: GeoPoint) -> Bool {
        point.lat >= minLat && point.lat <= maxLat && point.lng >= minLng && point.lng <= maxLng
    }
}

/// A stored report as fetched: the observation served, its tile's centre (for the domain's polygon test) and its place
/// in the fetch order (where the next page starts).
package struct StoredObservation: Sendable, Equatable {
    /// The observation as the wire carries it.
    var observation: Observation
    /// The centre of its tile, as stored at ingest.
    var center: GeoPoint
    /// Its place in the fetch order.
    var position: ObservationPosition
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
    /// The source that dominates the cell's value (the blend's largest weighted evidence).
    package var provenance: TurbulenceProvenance = .fleetMeasured
}

/// A stored nowcast cell with the issue it belongs to (what the storage gives back).
package struct IssuedNowcastCell: Sendable, Equatable {
    /// Issue time, Unix seconds.
    var issueTime: Double
    /// The cell.
    var cell: StoredNowcastCell

    /// Its place in the order nowcast pages are served in.
    var position: NowcastPosition {
        NowcastPosition(cell: Int64(bitPattern: cell.cell), layer: cell.layer, forecastHour: cell.forecastHour)
    }
}

/// A live flight as stored: one row per uploader × client flight id.
package struct StoredFlight: Sendable, Equatable {
    /// The uploader (never served).
    var reporterId: String
    /// The id the uploader chose (never served: it may name the pilot).
    var clientFlightId: String
    /// The random id the flight is served under (drawn when the uploader × flight is first seen).
    var publicId: String
    /// The uploader's airline (only its viewers see the flight number).
    var airline: String
    /// Flight number, when sent.
    var flightNumber: String?
    /// ICAO aircraft type.
    var aircraftType: String
    /// Latitude, degrees.
    var latitude: Double
    /// Longitude, degrees.
    var longitude: Double
    /// Pressure altitude, feet.
    var altitudeFeet: Double
    /// Heading, degrees.
    var headingDegrees: Double
    /// Ground speed, knots.
    var speedKnots: Double
    /// Time of the position, Unix seconds.
    var time: Double
    /// When the server stored it, Unix seconds (expiry counts from here).
    var updatedAt: Double
}

/// A fleet altitude-offset observation as stored: the newest one per reporter × cell × layer.
package struct StoredAltitudeOffset: Sendable, Equatable {
    /// The uploader.
    var reporterId: String
    /// H3 resolution-3 cell of its position.
    var cell: UInt64
    /// 1,000-ft layer of its pressure altitude.
    var layer: Int
    /// The observation as uploaded.
    var observation: AltitudeOffsetObservation
    /// When the server stored it, Unix seconds.
    var receivedAt: Double
}

/// A position upload as the storage writes it (one transaction), with what the domain decided around it.
package struct PositionWrite: Sendable {
    /// The flight row: inserted with its `publicId` when the uploader × client flight id is new, else updated in place
    /// (keeping the public id drawn the first time).
    var flight: StoredFlight
    /// Flights updated before this time (Unix seconds) are dropped: they have expired.
    var dropFlightsUpdatedBefore: Double
    /// The aircraft's altitude offset: kept unless the reporter's stored one for that cell × layer is newer.
    var altitudeOffset: StoredAltitudeOffset?
    /// Altitude offsets measured before this time (Unix seconds) are dropped (nil: none).
    var dropAltitudeOffsetsMeasuredBefore: Double?
}
#endif
