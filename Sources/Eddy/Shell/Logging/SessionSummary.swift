import EddySync
import Foundation

/// What a session did, counted by the shell from the callbacks and sync events it logs, and written to the log as
/// one `SUMMARY` line whatever the level (docs/engine.md "Logging"): at `stop()` and at every `exportLogs()`, so a
/// pilot's problem report always carries it. No secrets: the airline and the server's host, never the key, the user
/// id or a token.
struct SessionSummary: Sendable {
    /// When the session started (wall clock, Unix seconds); nil before the first start.
    var startedAt: Double?
    /// The airline of the session.
    var airline = ""
    /// The server's host and port ("offline" without a server).
    var server = ""
    /// Own reports stored (tile crossings, smooth ones included).
    var reportsStored = 0
    /// Reports the server accepted, took as duplicates, rejected.
    var uploadsAccepted = 0, uploadsDuplicate = 0, uploadsRejected = 0
    /// Fetches that returned data, and failed fetches (`didFailToFetchNewData`).
    var fetchesReceived = 0, fetchFailures = 0
    /// Measurement notices begun, by kind name.
    var noticesBegun: [String: Int] = [:]
    /// Consistency warnings, location failures, alerts, store failures.
    var inconsistencies = 0, locationFailures = 0, alerts = 0, storeFailures = 0
    /// Samples pushed while the engine was not started (dropped), since the engine was created.
    var samplesDroppedNotStarted = 0
    /// Whether the current not-started period's first dropped sample was logged (reset at start and stop).
    var droppingLogged = false

    /// A new session (counters back to zero; the dropped-sample count is the engine's, kept).
    mutating func started(at time: Double, airline: String, baseURL: String?) {
        let dropped = samplesDroppedNotStarted
        self = SessionSummary()
        samplesDroppedNotStarted = dropped
        startedAt = time
        self.airline = airline
        server = baseURL.map(Self.hostAndPort) ?? "offline"
    }

    /// Counts what the host was told.
    mutating func count(_ callback: EddyCallback) {
        switch callback {
        case .detectedTurbulence: reportsStored += 1
        case .didFailToFetchNewData: fetchFailures += 1
        case .didReceiveMeasurementNotice(let notice) where notice.phase == .began: noticesBegun[notice.kindName, default: 0] += 1
        case .didDetectInconsistency: inconsistencies += 1
        case .locationManagerDidFail: locationFailures += 1
        case .didReceiveAlert: alerts += 1
        case .didFailToAccessStore: storeFailures += 1
        default: break
        }
    }

    /// Counts a sync event.
    mutating func count(_ event: SyncEvent) {
        switch event {
        case .uploaded(let accepted, let duplicates, let rejected):
            uploadsAccepted += accepted; uploadsDuplicate += duplicates; uploadsRejected += rejected
        case .receivedData: fetchesReceived += 1
        default: break
        }
    }

    /// The summary line (without time stamp and level): `state` says why it is written, `flight` and `pending` are read
    /// by the caller.
    func line(state: String, flight: String, pendingReports: Int?) -> String {
        let since = startedAt.map { Date(timeIntervalSince1970: $0).ISO8601Format() } ?? "never started"
        let notices = noticesBegun.isEmpty ? "none"
            : noticesBegun.keys.sorted().map { "\($0) \(noticesBegun[$0] ?? 0)" }.joined(separator: ", ")
        return "session summary (\(state)): started \(since), airline \(airline.isEmpty ? "-" : airline), server \(server.isEmpty ? "-" : server), "
            + "flight \(flight); reports stored \(reportsStored), pending upload \(pendingReports.map(String.init) ?? "unknown"), "
            + "uploaded \(uploadsAccepted) (duplicates \(uploadsDuplicate), rejected \(uploadsRejected)); "
            + "fetches with data \(fetchesReceived), fetch failures \(fetchFailures); notices: \(notices); "
            + "inconsistencies \(inconsistencies), location failures \(locationFailures), alerts \(alerts), store failures \(storeFailures); "
            + "samples dropped while not started \(samplesDroppedNotStarted)"
    }

    /// "host:port" of a base URL (no user info, path or query: nothing secret).
    static func hostAndPort(_ baseURL: String) -> String {
        guard let url = URL(string: baseURL), let host = url.host else { return "unparsable URL" }
        return url.port.map { "\(host):\($0)" } ?? host
    }
}
