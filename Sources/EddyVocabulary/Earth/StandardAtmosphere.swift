import Foundation

/// International Standard Atmosphere (ICAO 1993) below 20 km, geopotential altitude. Sources: docs/detection.md §ISA.
package enum StandardAtmosphere {
    /// Sea-level standard temperature, K.
    package static let seaLevelTemperatureKelvin = 288.15
    /// Sea-level standard pressure, Pa.
    package static let seaLevelPressurePascals = 101_325.0
    /// Troposphere temperature lapse rate, K/m.
    package static let lapseRateKelvinPerMeter = 0.0065
    /// Standard gravity, m/s².
    package static let gravity = 9.80665
    /// Specific gas constant of dry air, J/(kg·K).
    package static let gasConstant = 287.05287
    /// Tropopause geopotential altitude, m.
    package static let tropopauseMeters = 11_000.0

    /// Temperature (K) at a geopotential altitude in metres (0…20 km).
    package static func temperatureKelvin(altitudeMeters h: Double) -> Double {
        h <= tropopauseMeters ? seaLevelTemperatureKelvin - lapseRateKelvinPerMeter * h : 216.65
    }

    /// Pressure (Pa) at a geopotential altitude in metres (0…20 km).
    package static func pressurePascals(altitudeMeters h: Double) -> Double {
        let exponent = gravity / (gasConstant * lapseRateKelvinPerMeter)
        if h <= tropopauseMeters {
            return seaLevelPressurePascals * pow(temperatureKelvin(altitudeMeters: h) / seaLevelTemperatureKelvin, exponent)
        }
        let tropopausePressure = seaLevelPressurePascals * pow(216.65 / seaLevelTemperatureKelvin, exponent)
        return tropopausePressure * exp(-gravity * (h - tropopauseMeters) / (gasConstant * 216.65))
    }

    /// Air density (kg/m³) at a geopotential altitude in metres.
    package static func densityKilogramsPerCubicMeter(altitudeMeters h: Double) -> Double {
        pressurePascals(altitudeMeters: h) / (gasConstant * temperatureKelvin(altitudeMeters: h))
    }

    /// Pressure altitude (ft) for a static pressure in hPa: the altimeter at 1013.25 hPa.
    package static func pressureAltitudeFeet(pressureHectopascals p: Double) -> Double {
        let pascals = p * 100
        let exponent = gasConstant * lapseRateKelvinPerMeter / gravity
        let tropopausePressure = pressurePascals(altitudeMeters: tropopauseMeters)
        let meters: Double
        if pascals >= tropopausePressure {
            meters = seaLevelTemperatureKelvin / lapseRateKelvinPerMeter
                * (1 - pow(pascals / seaLevelPressurePascals, exponent))
        } else {
            meters = tropopauseMeters + gasConstant * 216.65 / gravity * log(tropopausePressure / pascals)
        }
        return meters / 0.3048
    }
}
