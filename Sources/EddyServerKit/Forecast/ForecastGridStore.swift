#if Tools
/// Storage of forecast-grid cells (docs/nowcast.md "Forecast grids"): one row per product × cell × layer × valid time ×
/// issue time (`forecast_cells`), in the server's own database. The SQLite and PostgreSQL backends conform; writes
/// return after their commit.
package protocol ForecastGridStore: ForecastGridStorage {
    /// Stores `cells` in one transaction (`source`: the file they came from; `receivedAt`: Unix seconds of the ingest).
    /// A cell already held for the same product, cell, layer, valid and issue time keeps one row with the larger EDR, so
    /// ingesting the same message again changes nothing, and a newer issue for the same valid time is a row of its own.
    /// Returns how many rows were written (inserted or updated).
    func storeForecastCells(_ cells: [StoredForecastCell], source: String, receivedAt: Double) async throws(ServerDatabaseError) -> Int
    /// How many forecast cells are stored.
    func forecastCellCount() async throws(ServerDatabaseError) -> Int
}

/// The forecast-grid table in both SQL dialects (SQLite's migration `v8-forecast-grids`, PostgreSQL's version 6).
enum ForecastGridSchema {
    /// SQLite.
    static let sqlite = """
        CREATE TABLE forecast_cells (
            product TEXT NOT NULL, h3 INTEGER NOT NULL, layer INTEGER NOT NULL, valid_time REAL NOT NULL, issue_time REAL NOT NULL,
            edr REAL NOT NULL, source_file TEXT NOT NULL, received_at REAL NOT NULL,
            PRIMARY KEY (product, h3, layer, valid_time, issue_time)) WITHOUT ROWID;
        CREATE INDEX forecast_cells_valid ON forecast_cells(valid_time);
        """

    /// PostgreSQL (one statement per element).
    static let postgres: [String] = [
        """
        CREATE TABLE forecast_cells (
            product TEXT NOT NULL, h3 BIGINT NOT NULL, layer INTEGER NOT NULL, valid_time DOUBLE PRECISION NOT NULL,
            issue_time DOUBLE PRECISION NOT NULL, edr DOUBLE PRECISION NOT NULL, source_file TEXT NOT NULL,
            received_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (product, h3, layer, valid_time, issue_time))
        """,
        "CREATE INDEX forecast_cells_valid ON forecast_cells (valid_time)",
    ]

    /// The read: the cells valid in a range, by valid time, cell, layer, newest issue first (then product).
    static let selection = """
        SELECT product, h3, layer, issue_time, valid_time, edr FROM forecast_cells
        """
    /// The order of a read.
    static let order = "ORDER BY valid_time, h3, layer, issue_time DESC, product"
}
#endif
