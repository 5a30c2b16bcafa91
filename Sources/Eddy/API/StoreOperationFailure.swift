import EddyStore
public import Foundation

/// A store operation the engine could not complete (`didFailToAccessStore(_:)`). The engine goes on; nothing already
/// stored is lost.
public struct StoreOperationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the engine was doing with its store.
    public enum Operation: String, Sendable, Equatable {
        /// Storing an own report in the outbox: not announced with `detectedTurbulence` yet; the engine keeps it in
        /// memory and stores (then announces) it when the store works again (lost only if the app quits first).
        case storeOwnReport
        /// Persisting a setting (aircraft, flight, data query, update frequency): it holds until the app quits.
        case persistSetting
        /// Forgetting the session and the fetched data at `stop()`.
        case clearCache
        /// Purging expired cached data (tried again 10 minutes later).
        case purgeExpiredData
        /// Reading the reports near the aircraft for alerts (tried again at the next location).
        case readAlertCandidates
    }

    /// What the engine was doing.
    public var operation: Operation
    /// The store's error: what went wrong and what to do.
    public var error: StoreError
    /// The own report concerned (`.storeOwnReport`).
    public var reportId: UUID?

    /// A failure of `operation`.
    public init(_ operation: Operation, _ error: StoreError, reportId: UUID? = nil) {
        self.operation = operation; self.error = error; self.reportId = reportId
    }

    /// What went wrong and what to do.
    public var description: String {
        let what = switch operation {
        case .storeOwnReport: "own report \(reportId.map { "\($0)" } ?? "") not stored yet (kept in memory, stored when the store works again)"
        case .persistSetting: "setting not persisted (it holds until the app quits)"
        case .clearCache: "session and fetched data not cleared at stop"
        case .purgeExpiredData: "expired data not purged (tried again in 10 min)"
        case .readAlertCandidates: "reports near the aircraft not readable for alerts (tried again at the next fix)"
        }
        return "\(what): \(error)"
    }
}
