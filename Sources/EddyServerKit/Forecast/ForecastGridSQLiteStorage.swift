#if Tools
import GRDB

/// Forecast-grid cells in the SQLite backend (table of migration `v8-forecast-grids`).
extension SQLiteServerStorage: ForecastGridStore {
    /// Upserts the cells in one transaction, keeping the larger EDR of a row already held.
    package func storeForecastCells(_ cells: [StoredForecastCell], source: String, receivedAt: Double) async throws(ServerDatabaseError) -> Int {
        try await write("store forecast cells") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO forecast_cells (product, h3, layer, valid_time, issue_time, edr, source_file, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (product, h3, layer, valid_time, issue_time) DO UPDATE
                SET edr = max(edr, excluded.edr), source_file = excluded.source_file, received_at = excluded.received_at
                """)
            for cell in cells {
                try statement.execute(arguments: [cell.product, Int64(bitPattern: cell.h3), cell.layer, cell.validTime, cell.issueTime,
                                                  cell.edr, source, receivedAt])
            }
            return cells.count
        }
    }

    /// The cells valid in `[from, to]`, newest issue first for each cell, layer and valid time.
    package func forecastCells(validFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredForecastCell] {
        try await read("read forecast cells") { db in
            try Row.fetchAll(db, sql: "\(ForecastGridSchema.selection) WHERE valid_time BETWEEN ? AND ? \(ForecastGridSchema.order)",
                             arguments: [from, to]).map { row in
                StoredForecastCell(product: row[0], h3: UInt64(bitPattern: row[1] as Int64), layer: row[2], issueTime: row[3],
                                   validTime: row[4], edr: row[5])
            }
        }
    }

    /// How many forecast cells are stored.
    package func forecastCellCount() async throws(ServerDatabaseError) -> Int {
        try await read("count forecast cells") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM forecast_cells") ?? 0 }
    }
}
#endif
