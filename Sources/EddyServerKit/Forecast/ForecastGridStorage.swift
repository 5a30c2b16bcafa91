#if Tools
import Foundation

/// One gridded turbulence forecast value on a tile cell (H3 resolution 5 × 1,000-ft layer), as the nowcast's blend
/// reads it: which product, issued when, valid when, how strong (issue 31; docs/nowcast.md "Forecast grids").
package struct StoredForecastCell: Sendable, Equatable {
    /// The product, e.g. "GTG" or "WAFS" (what the GRIB2 message's centre and process identify).
    package var product: String
    /// H3 resolution-5 cell.
    package var h3: UInt64
    /// Layer, thousands of feet of pressure altitude.
    package var layer: Int
    /// When the forecast was issued (the GRIB2 reference time), Unix seconds.
    package var issueTime: Double
    /// When the forecast is valid (reference time + forecast step), Unix seconds.
    package var validTime: Double
    /// The forecast EDR for the cell and layer, m^(2/3) s^-1 (the largest grid value falling in it).
    package var edr: Double

    /// Makes a forecast cell.
    package init(product: String, h3: UInt64, layer: Int, issueTime: Double, validTime: Double, edr: Double) {
        self.product = product
        self.h3 = h3
        self.layer = layer
        self.issueTime = issueTime
        self.validTime = validTime
        self.edr = edr
    }
}

/// Read side of the forecast-grid storage the blend uses; the SQLite and PostgreSQL backends conform where forecast
/// grids are ingested (`Forecast/`).
package protocol ForecastGridStorage: Sendable {
    /// The forecast cells valid in `[from, to]` (Unix seconds), newest issue first for each cell, layer and valid time.
    func forecastCells(validFrom from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredForecastCell]
}
#endif
