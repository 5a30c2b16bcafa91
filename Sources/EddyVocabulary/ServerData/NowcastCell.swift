import Foundation

/// Where a turbulence value comes from (issue 31): the fleet's own measurement, a pilot report, or a gridded forecast.
public enum TurbulenceProvenance: String, Sendable, Hashable, Codable, CaseIterable {
    /// Measured in situ by the fleet's aircraft (Eddy reports).
    case fleetMeasured
    /// A pilot report (PIREP or AIREP): subjective, later, placed less exactly.
    case pilotReport
    /// A gridded turbulence forecast (GTG, WAFS): a model's prior, not a measurement.
    case forecast
}

/// One nowcast (short-range forecast) cell: predicted EDR in a tile for one forecast hour.
///
/// The same value is fetched from the server (JSON keys are the property names), kept by the store and read by
/// host apps. Properties are declared in the wire order; `provenance` is absent from older servers' answers and then
/// decodes as `.fleetMeasured` (their nowcast had no other input).
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
    /// The source that dominates the cell's value (docs/nowcast.md "Blend": the largest weighted evidence).
    public var provenance: TurbulenceProvenance

    /// How long a nowcast cell stays valid after its `validTime` (hourly nowcasts).
    public static let validitySeconds: Double = 3600

    /// Creates a nowcast cell.
    public init(tile: TileID, validTime: Double, forecastHour: Int, edr: Double, issueTime: Double,
                provenance: TurbulenceProvenance = .fleetMeasured) {
        self.tile = tile
        self.forecastHour = forecastHour
        self.validTime = validTime
        self.issueTime = issueTime
        self.edr = edr
        self.provenance = provenance
    }

    private enum CodingKeys: String, CodingKey { case tile, forecastHour, validTime, issueTime, edr, provenance }

    /// Decodes a cell; a missing `provenance` (an older server) is `.fleetMeasured`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tile = try container.decode(TileID.self, forKey: .tile)
        forecastHour = try container.decode(Int.self, forKey: .forecastHour)
        validTime = try container.decode(Double.self, forKey: .validTime)
        issueTime = try container.decode(Double.self, forKey: .issueTime)
        edr = try container.decode(Double.self, forKey: .edr)
        provenance = try container.decodeIfPresent(TurbulenceProvenance.self, forKey: .provenance) ?? .fleetMeasured
    }
}
