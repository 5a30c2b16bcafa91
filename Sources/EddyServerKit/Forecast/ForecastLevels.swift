#if Tools
import EddyVocabulary
import Foundation

/// Which GRIB2 fields are gridded turbulence EDR, and what their vertical levels, times and centres mean for Eddy's
/// tiles (docs/nowcast.md "Forecast grids"). Pure: no I/O, no clock.
package enum ForecastField {
    /// Discipline 0: meteorological products (Code table 0.0).
    package static let discipline = 0
    /// Parameter category 19: physical atmospheric properties (Code table 4.1.0).
    package static let category = 19
    /// The category-19 parameters in m^(2/3) s^-1 as ecCodes' Code table 4.2.0.19 names them (tables 25–30 of ecCodes
    /// 2.28): GTG and the 0.25° WAFS grids publish 30 (NCEP's EDPARM), 29 (CATEDR) and 28 (MWTURB).
    package static let edrParameters: [Int: String] = [
        28: "Mountain wave turbulence (eddy dissipation rate)",
        29: "Clear air turbulence (CAT) (eddy dissipation rate)",
        30: "Eddy dissipation parameter",
        31: "Maximum of eddy dissipation parameter in layer",
    ]
    /// GRIB2 fixed surface 100: isobaric surface, Pa (Code table 4.5).
    package static let isobaricSurface = 100
    /// GRIB2 fixed surface 102: specific altitude above mean sea level, m (Code table 4.5).
    package static let altitudeAboveMeanSeaLevel = 102

    /// Whether a message of this discipline, category and parameter is a turbulence EDR field Eddy reads.
    package static func isEDR(discipline: Int, category: Int, parameter: Int) -> Bool {
        discipline == Self.discipline && category == Self.category && edrParameters[parameter] != nil
    }

    /// The product a message belongs to: WAFC London (`egrr`) publishes WAFS; NCEP (`kwbc`) publishes WAFS on isobaric
    /// levels and GTG on altitudes above MSL; any other centre is named by its ecCodes abbreviation, upper-cased.
    package static func product(centre: String, levelType: Int) -> String {
        switch (centre.lowercased(), levelType) {
        case ("egrr", _), ("kwbc", isobaricSurface): "WAFS"
        case ("kwbc", altitudeAboveMeanSeaLevel): "GTG"
        default: centre.uppercased()
        }
    }
}

/// A GRIB2 level as Eddy's 1,000-ft pressure-altitude layer.
package enum ForecastLevel {
    /// The layer of an altitude in feet: rounded to the nearest 100 ft first, because the products' levels are flight
    /// levels whose ISA pressures are published to 0.1 hPa (696.8 hPa is FL100 to within 2 ft), then floor(ft / 1000).
    package static func layer(altitudeFeet: Double) -> Int {
        TileID.layer(altitudeFeet: (altitudeFeet / 100).rounded() * 100)
    }

    /// The layer of a level of `type` whose value is `value` in the type's SI unit (Pa, m), or why the level is not one
    /// Eddy can place.
    package static func layer(type: Int, value: Double?) -> Result<Int, LevelProblem> {
        guard let value, value.isFinite else { return .failure(LevelProblem("its level value is missing")) }
        let feet: Double
        switch type {
        case ForecastField.isobaricSurface:
            guard (1...110_000).contains(value) else {
                return .failure(LevelProblem("isobaric level \(value) Pa is outside 1…110,000 Pa"))
            }
            // ICAO standard atmosphere (ICAO Doc 7488): below 11 km h = T0/L (1 − (p/p0)^(RL/g0)), above it
            // h = 11 km + (R T11 / g0) ln(p11/p); `StandardAtmosphere`, the same formula the engine's altimeter uses.
            feet = StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: value / 100)
        case ForecastField.altitudeAboveMeanSeaLevel:
            guard (0...30_000).contains(value) else {
                return .failure(LevelProblem("altitude level \(value) m is outside 0…30,000 m"))
            }
            feet = value / 0.3048
        default:
            return .failure(LevelProblem("level type \(type) (Code table 4.5) is neither an isobaric surface (100) nor an altitude above MSL (102), so it has no flight level"))
        }
        let layer = layer(altitudeFeet: feet)
        guard layer >= 0 else { return .failure(LevelProblem("level \(value) lies below sea level (\(Int(feet)) ft)")) }
        return .success(layer)
    }

    /// Why a level cannot be placed.
    package struct LevelProblem: Error, Sendable, Equatable {
        /// What is wrong with the level.
        package var reason: String
        /// Makes a problem.
        package init(_ reason: String) { self.reason = reason }
    }
}

/// GRIB dates and times (ecCodes' `dataDate`/`dataTime`, `validityDate`/`validityTime`) as Unix seconds.
package enum GRIBTime {
    /// Unix seconds of `date` (YYYYMMDD) and `time` (HHMM), UTC; nil when they are not a calendar date and time.
    package static func unixSeconds(date: Int, time: Int) -> Double? {
        let (year, month, day) = (date / 10_000, (date / 100) % 100, date % 100)
        let (hour, minute) = (time / 100, time % 100)
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return Double(AircraftReportCSV.daysFromCivil(year: year, month: month, day: day)) * 86_400 + Double(hour * 3_600 + minute * 60)
    }
}
#endif
