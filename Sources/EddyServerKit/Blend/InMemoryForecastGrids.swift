#if Tools
import Synchronization

/// The in-memory backend (tests) reads forecast grids a test puts in with ``holdForecastCells(_:)``: the blend then
/// reads them as it reads an ingested GRIB2 product from the SQL backends.
extension InMemoryServerStorage: ForecastGridStorage {
    /// The held forecast cells valid in `[from, to]`, newest issue first for each cell, layer and valid time.
    package func forecastCells(validFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredForecastCell] {
        forecastGrid.withLock { cells in
            cells.filter { $0.validTime >= from && $0.validTime <= to }
                .sorted { ($0.h3, $0.layer, $0.validTime, -$0.issueTime) < ($1.h3, $1.layer, $1.validTime, -$1.issueTime) }
        }
    }

    /// Holds `cells` as if a forecast product had been ingested.
    package func holdForecastCells(_ cells: [StoredForecastCell]) {
        forecastGrid.withLock { $0 += cells }
    }
}
#endif
