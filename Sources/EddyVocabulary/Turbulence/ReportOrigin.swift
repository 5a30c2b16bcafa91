import EddyH3

/// Who produced a report: this aircraft, or another one (fetched from the server). Alerts and store queries share it.
public enum ReportOrigin: String, Sendable, Hashable, Codable {
    /// This aircraft's own report.
    case own
    /// A report fetched from the server (another aircraft).
    case server
}
