#if Tools
package import EddyVocabulary
import Foundation

/// A stored pilot report's cell, as the nowcast's later blend reads it: which report, where, when, how strong, and
/// that it is a pilot report.
package struct StoredPilotReportCell: Sendable, Equatable {
    /// The report's identity (`PilotReportRecord.id`).
    package var reportId: String
    /// Always `PilotReportRecord.provenance` ("pilotReport").
    package var provenance: String
    /// PIREP (routine, urgent) or AIREP.
    package var kind: PilotReportKind
    /// H3 resolution-5 cell.
    package var h3: UInt64
    /// Layer, thousands of feet.
    package var layer: Int
    /// Observation time, Unix seconds (its age at any issue time).
    package var observationTime: Double
    /// The reported intensity.
    package var intensity: ReportedTurbulenceIntensity
    /// The reporter's class, and whether it was assumed.
    package var aircraftClass: AircraftClass
    /// Whether the class was assumed (type unknown).
    package var aircraftClassAssumed: Bool
    /// Lower EDR bound, m^(2/3) s^-1.
    package var edrLower: Double
    /// Upper EDR bound (nil: open), m^(2/3) s^-1.
    package var edrUpper: Double?
}

/// Storage of pilot reports (docs/nowcast.md "Pilot reports"): one row per report (`pilot_reports`: source file and
/// line, provenance, decoded fields, EDR band) and one per report × cell × layer (`pilot_report_cells`), in the server's
/// own database. The SQLite and PostgreSQL backends conform; writes return after their commit.
package protocol PilotReportStorage: Sendable {
    /// Stores the records whose ids are not held yet (`receivedAt`: Unix seconds of the ingest), each with its cells,
    /// in one transaction; returns the ids that were new (the others are duplicates).
    func storePilotReports(_ records: [PilotReportRecord], receivedAt: Double) async throws(ServerDatabaseError) -> Set<String>
    /// The cells of the reports observed in `[from, to]` (Unix seconds), ordered by observation time, report, layer.
    func pilotReportCells(observedFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredPilotReportCell]
    /// How many pilot reports are stored.
    func pilotReportCount() async throws(ServerDatabaseError) -> Int
}

/// The pilot-report tables in both SQL dialects (SQLite's migration `v7-pilot-reports`, PostgreSQL's version 5).
enum PilotReportSchema {
    /// SQLite.
    static let sqlite = """
        CREATE TABLE pilot_reports (
            id TEXT PRIMARY KEY, provenance TEXT NOT NULL, kind TEXT NOT NULL, raw_text TEXT NOT NULL,
            source_file TEXT NOT NULL, source_line INTEGER NOT NULL, observation_time REAL NOT NULL, received_at REAL NOT NULL,
            lat REAL NOT NULL, lng REAL NOT NULL, location_text TEXT NOT NULL, station TEXT,
            altitude_low_ft REAL NOT NULL, altitude_high_ft REAL NOT NULL, intensity TEXT NOT NULL, turbulence_type TEXT,
            aircraft_type TEXT, flight TEXT, aircraft_class TEXT NOT NULL, aircraft_class_assumed INTEGER NOT NULL,
            edr_lower REAL NOT NULL, edr_upper REAL);
        CREATE INDEX pilot_reports_time ON pilot_reports(observation_time);
        CREATE TABLE pilot_report_cells (
            report_id TEXT NOT NULL REFERENCES pilot_reports(id) ON DELETE CASCADE, h3 INTEGER NOT NULL, layer INTEGER NOT NULL,
            observation_time REAL NOT NULL, PRIMARY KEY (report_id, h3, layer));
        CREATE INDEX pilot_report_cells_time ON pilot_report_cells(observation_time);
        CREATE INDEX pilot_report_cells_cell ON pilot_report_cells(h3, layer, observation_time);
        """

    /// PostgreSQL (one statement per element).
    static let postgres: [String] = [
        """
        CREATE TABLE pilot_reports (
            id TEXT PRIMARY KEY, provenance TEXT NOT NULL, kind TEXT NOT NULL, raw_text TEXT NOT NULL,
            source_file TEXT NOT NULL, source_line INTEGER NOT NULL, observation_time DOUBLE PRECISION NOT NULL,
            received_at DOUBLE PRECISION NOT NULL, lat DOUBLE PRECISION NOT NULL, lng DOUBLE PRECISION NOT NULL,
            location_text TEXT NOT NULL, station TEXT, altitude_low_ft DOUBLE PRECISION NOT NULL,
            altitude_high_ft DOUBLE PRECISION NOT NULL, intensity TEXT NOT NULL, turbulence_type TEXT, aircraft_type TEXT,
            flight TEXT, aircraft_class TEXT NOT NULL, aircraft_class_assumed BOOLEAN NOT NULL,
            edr_lower DOUBLE PRECISION NOT NULL, edr_upper DOUBLE PRECISION)
        """,
        "CREATE INDEX pilot_reports_time ON pilot_reports (observation_time)",
        """
        CREATE TABLE pilot_report_cells (
            report_id TEXT NOT NULL REFERENCES pilot_reports(id) ON DELETE CASCADE, h3 BIGINT NOT NULL, layer INTEGER NOT NULL,
            observation_time DOUBLE PRECISION NOT NULL, PRIMARY KEY (report_id, h3, layer))
        """,
        "CREATE INDEX pilot_report_cells_time ON pilot_report_cells (observation_time)",
        "CREATE INDEX pilot_report_cells_cell ON pilot_report_cells (h3, layer, observation_time)",
    ]

    /// The columns of a `pilot_reports` insert, in order.
    static let reportColumns = """
        id, provenance, kind, raw_text, source_file, source_line, observation_time, received_at, lat, lng, location_text, station,
        altitude_low_ft, altitude_high_ft, intensity, turbulence_type, aircraft_type, flight, aircraft_class, aircraft_class_assumed,
        edr_lower, edr_upper
        """

    /// The columns a cell read selects (cells joined with their report), in the order `cell(…)` takes them.
    static let cellSelection = """
        SELECT c.report_id, r.provenance, r.kind, c.h3, c.layer, c.observation_time, r.intensity, r.aircraft_class,
            r.aircraft_class_assumed, r.edr_lower, r.edr_upper
        FROM pilot_report_cells c JOIN pilot_reports r ON r.id = c.report_id
        """

    /// A read cell from its columns; nil when a stored code is unknown to this build.
    static func cell(reportId: String, provenance: String, kind: String, h3: Int64, layer: Int, observationTime: Double,
                     intensity: String, aircraftClass: String, assumed: Bool, edrLower: Double, edrUpper: Double?) -> StoredPilotReportCell? {
        guard let kind = PilotReportKind(rawValue: kind), let intensity = ReportedTurbulenceIntensity(code: intensity),
              let aircraftClass = AircraftClass(rawValue: aircraftClass) else { return nil }
        return StoredPilotReportCell(reportId: reportId, provenance: provenance, kind: kind, h3: UInt64(bitPattern: h3), layer: layer,
                                     observationTime: observationTime, intensity: intensity, aircraftClass: aircraftClass,
                                     aircraftClassAssumed: assumed, edrLower: edrLower, edrUpper: edrUpper)
    }
}
#endif
