#if Tools
import Logging
import PostgresNIO

/// Forecast-grid cells in the PostgreSQL backend (table of schema version 6): upserts from arrays (`unnest`), 5,000
/// rows a statement, all in one transaction that commits before the count is returned.
extension PostgresServerStorage: ForecastGridStore {
    /// Rows per insert statement.
    static let forecastBatchRows = 5_000

    /// Upserts the cells in one transaction, keeping the larger EDR of a row already held.
    package func storeForecastCells(_ cells: [StoredForecastCell], source: String, receivedAt: Double) async throws(ServerDatabaseError) -> Int {
        if cells.isEmpty { return 0 }
        let logger = self.logger
        return try await write("store forecast cells") { connection -> Int in
            for start in stride(from: 0, to: cells.count, by: Self.forecastBatchRows) {
                let batch = cells[start..<min(start + Self.forecastBatchRows, cells.count)]
                let products = batch.map(\.product), h3 = batch.map { Int64(bitPattern: $0.h3) }, layers = batch.map { Int64($0.layer) }
                let valid = batch.map(\.validTime), issue = batch.map(\.issueTime), edr = batch.map(\.edr)
                try await connection.query("""
                    INSERT INTO forecast_cells (product, h3, layer, valid_time, issue_time, edr, source_file, received_at)
                    SELECT t.product, t.h3, t.layer, t.valid_time, t.issue_time, t.edr, \(source), \(receivedAt)
                    FROM unnest(\(products)::text[], \(h3)::int8[], \(layers)::int8[], \(valid)::float8[], \(issue)::float8[], \(edr)::float8[])
                        AS t(product, h3, layer, valid_time, issue_time, edr)
                    ON CONFLICT (product, h3, layer, valid_time, issue_time) DO UPDATE
                    SET edr = GREATEST(forecast_cells.edr, EXCLUDED.edr), source_file = EXCLUDED.source_file,
                        received_at = EXCLUDED.received_at
                    """, logger: logger)
            }
            return cells.count
        }
    }

    /// The cells valid in `[from, to]`, newest issue first for each cell, layer and valid time.
    package func forecastCells(validFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredForecastCell] {
        let logger = self.logger
        return try await read("read forecast cells") { connection -> [StoredForecastCell] in
            let rows = try await connection.query("""
                \(unescaped: ForecastGridSchema.selection) WHERE valid_time BETWEEN \(from) AND \(to) \(unescaped: ForecastGridSchema.order)
                """, logger: logger)
            var cells: [StoredForecastCell] = []
            for try await (product, h3, layer, issue, valid, edr) in rows.decode((String, Int64, Int32, Double, Double, Double).self) {
                cells.append(StoredForecastCell(product: product, h3: UInt64(bitPattern: h3), layer: Int(layer), issueTime: issue,
                                                validTime: valid, edr: edr))
            }
            return cells
        }
    }

    /// How many forecast cells are stored.
    package func forecastCellCount() async throws(ServerDatabaseError) -> Int {
        let logger = self.logger
        return try await read("count forecast cells") { connection -> Int in
            let rows = try await connection.query("SELECT count(*) FROM forecast_cells", logger: logger)
            var count = 0
            for try await n in rows.decode(Int64.self) { count = Int(n) }
            return count
        }
    }
}
#endif
