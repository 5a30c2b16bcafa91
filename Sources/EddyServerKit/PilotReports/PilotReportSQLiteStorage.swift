#if Tools
import EddyH3
import EddyVocabulary
import GRDB

/// Pilot reports in the SQLite backend (tables of migration `v7-pilot-reports`).
extension SQLiteServerStorage: PilotReportStorage {
    /// Inserts the new records (`INSERT OR IGNORE` on the report id) and the cells of those that were new, in one
    /// transaction; returns the new ids.
    package func storePilotReports(_ records: [PilotReportRecord], receivedAt: Double) async throws(ServerDatabaseError) -> Set<String> {
        try await write("store pilot reports") { db in
            let report = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO pilot_reports (\(PilotReportSchema.reportColumns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let cell = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO pilot_report_cells (report_id, h3, layer, observation_time) VALUES (?, ?, ?, ?)
                """)
            var fresh = Set<String>()
            for record in records {
                let r = record.report
                try report.execute(arguments: [
                    record.id, PilotReportRecord.provenance, r.kind.rawValue, r.rawText, record.sourceFile, record.sourceLine,
                    r.observationTime, receivedAt, record.position.latitude, record.position.longitude, r.location.text,
                    r.location.station, record.altitude.lowFeet, record.altitude.highFeet, record.intensity.code,
                    r.turbulence?.type?.rawValue, r.aircraftType, r.flight, record.aircraftClass.rawValue, record.aircraftClassAssumed,
                    record.edrLower, record.edrUpper,
                ])
                guard db.changesCount > 0 else { continue }
                fresh.insert(record.id)
                for c in record.cells {
                    try cell.execute(arguments: [record.id, Int64(bitPattern: c.h3), c.layer, r.observationTime])
                }
            }
            return fresh
        }
    }

    /// The cells of reports observed in `[from, to]`.
    package func pilotReportCells(observedFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredPilotReportCell] {
        try await read("read pilot reports") { db in
            try Row.fetchAll(db, sql: """
                \(PilotReportSchema.cellSelection)
                WHERE c.observation_time BETWEEN ? AND ? ORDER BY c.observation_time, c.report_id, c.layer
                """, arguments: [from, to]).compactMap { row in
                PilotReportSchema.cell(reportId: row[0], provenance: row[1], kind: row[2], h3: row[3], layer: row[4], observationTime: row[5],
                                       intensity: row[6], aircraftClass: row[7], assumed: row[8], edrLower: row[9], edrUpper: row[10])
            }
        }
    }

    /// How many pilot reports are stored.
    package func pilotReportCount() async throws(ServerDatabaseError) -> Int {
        try await read("count pilot reports") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pilot_reports") ?? 0 }
    }
}
#endif
