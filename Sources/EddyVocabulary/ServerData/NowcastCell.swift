import Foundation

/// One nowcast (short-range forecast) cell: predicted EDR in a tile for one forecast hour.
///
/// The same value is fetched from the server (JSON keys are the property names), kept by the store and read by
/// host apps. Properties are declared in the wire order.
public struct NowcastCell: Sendable, Equatable, Hashable, Codable {
    /// Tile the forecast is for.
    public var tile: TileID
    /// Hours ahead of the issue time, 0…6 (0 = the current hour).
    public var forecastHour: Int
    /// Start of the hour the forecast is valid for, Unix epoch seconds (issue time + forecast hour; valid for
    /// `NowcastCell.validitySeconds`).
    public var validTime: Double
    /// When the forecast was issued, Unix epoch seconds (start of the hour).
    public var issueTime: Double
    /// Forecast EDR, m^(2/3) s^-1.
    public var edr: Double

    /// How long a nowcast cell stays valid after its `validTime` (hourly nowcasts).
    public static let validitySeconds: Double = 3600

    /// Creates a nowcast cell.
    public init(tile: TileID, validTime: Double, forecastHour: Int, edr: Double, issueTime: Double) {
        self.tile = tile
        self.forecastHour = forecastHour
        self.validTime = validTime
        self.issueTime = issueTime
        self.edr = edr
    }
}
