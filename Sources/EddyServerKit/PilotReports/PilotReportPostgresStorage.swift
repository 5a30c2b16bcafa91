#if Tools
import EddyH3
import EddyVocabulary
import Logging
import PostgresNIO

/// Pilot reports in the PostgreSQL backend (tables of schema version 5). Ingest is rare and small (files of a few
/// thousand reports), so each report is one `INSERT … ON CONFLICT DO NOTHING RETURNING id` and its cells one insert
/// from arrays, all in one transaction that commits before the new ids are returned.
extension PostgresServerStorage: PilotReportStorage {
    /// Inserts the new records and their cells in one transaction; returns the new ids.
    package func storePilotReports(_ records: [PilotReportRecord], receivedAt: Double) async throws(ServerDatabaseError) -> Set<String> {
        if records.isEmpty { return [] }
        let logger = self.logger
        return try await write("store pilot reports") { connection -> Set<String> in
            var fresh = Set<String>()
            for record in records {
                let r = record.report
                let provenance = PilotReportRecord.provenance, kind = r.kind.rawValue, line = Int64(record.sourceLine)
                let (lat, lng) = (record.position.latitude, record.position.longitude)
                let (low, high) = (record.altitude.lowFeet, record.altitude.highFeet)
                let (intensity, type, reporterClass) = (record.intensity.code, r.turbulence?.type?.rawValue, record.aircraftClass.rawValue)
                let inserted = try await connection.query("""
                    INSERT INTO pilot_reports (\(unescaped: PilotReportSchema.reportColumns))
                    VALUES (\(record.id), \(provenance), \(kind), \(r.rawText), \(record.sourceFile), \(line), \(r.observationTime),
                        \(receivedAt), \(lat), \(lng), \(r.location.text), \(r.location.station), \(low), \(high), \(intensity), \(type),
                        \(r.aircraftType), \(r.flight), \(reporterClass), \(record.aircraftClassAssumed), \(record.edrLower), \(record.edrUpper))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: logger)
                var isNew = false
                for try await _ in inserted.decode(String.self) { isNew = true }
                guard isNew else { continue }
                fresh.insert(record.id)
                let h3 = record.cells.map { Int64(bitPattern: $0.h3) }, layers = record.cells.map { Int64($0.layer) }
                try await connection.query("""
                    INSERT INTO pilot_report_cells (report_id, h3, layer, observation_time)
                    SELECT \(record.id), t.h3, t.layer, \(r.observationTime) FROM unnest(\(h3)::int8[], \(layers)::int8[]) AS t(h3, layer)
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            return fresh
        }
    }

    /// The cells of reports observed in `[from, to]`.
    package func pilotReportCells(observedFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredPilotReportCell] {
        let logger = self.logger
        return try await read("read pilot reports") { connection -> [StoredPilotReportCell] in
            let rows = try await connection.query("""
                \(unescaped: PilotReportSchema.cellSelection)
                WHERE c.observation_time BETWEEN \(from) AND \(to) ORDER BY c.observation_time, c.report_id, c.layer
                """, logger: logger)
            var cells: [StoredPilotReportCell] = []
            for try await (id, provenance, kind, h3, layer, time, intensity, reporterClass, assumed, lower, upper)
                in rows.decode((String, String, String, Int64, Int32, Double, String, String, Bool, Double, Double?).self) {
                if let cell = PilotReportSchema.cell(reportId: id, provenance: provenance, kind: kind, h3: h3, layer: Int(layer),
                                                     observationTime: time, intensity: intensity, aircraftClass: reporterClass,
                                                     assumed: assumed, edrLower: lower, edrUpper: upper) {
                    cells.append(cell)
                }
            }
            return cells
        }
    }

    /// How many pilot reports are stored.
    package func pilotReportCount() async throws(ServerDatabaseError) -> Int {
        let logger = self.logger
        return try await read("count pilot reports") { connection -> Int in
            let rows = try await connection.query("SELECT count(*) FROM pilot_reports", logger: logger)
            var count = 0
            for try await n in rows.decode(Int64.self) { count = Int(n) }
            return count
        }
    }
}
#endif
