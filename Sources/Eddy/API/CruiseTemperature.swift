import EddyVocabulary

/// The air temperature at cruise as the EFB knows it (the operational flight plan's ISA deviation, or an outside air
/// temperature from an aircraft interface device): with it Eddy chooses the flight level a level airliner holds far
/// more surely than from the climatology alone (docs/altitude.md "Host hints").
public struct CruiseTemperature: Sendable, Equatable {
    /// ISA deviation at the aircraft's level, °C (ISA+10 = 10).
    public var isaDeviationCelsius: Double
    /// Its 1σ, °C (default 2: an upper-air temperature forecast's error; a measured outside air temperature: 1).
    public var uncertaintyCelsius: Double
    /// When it held, Unix seconds; its 1σ grows by 0.25 °C an hour after that.
    public var observedAt: Double

    /// An ISA deviation, °C, with its 1σ, observed at `observedAt` (Unix seconds).
    public init(isaDeviationCelsius: Double, uncertaintyCelsius: Double = 2, observedAt: Double) {
        self.isaDeviationCelsius = isaDeviationCelsius
        self.uncertaintyCelsius = uncertaintyCelsius
        self.observedAt = observedAt
    }

    /// A static (outside) air temperature, °C, at a flight level: its ISA deviation is the temperature minus the
    /// ISA temperature at that pressure altitude (15 °C − 1.98 °C per 1,000 ft, −56.5 °C above FL361).
    public init(staticAirTemperatureCelsius: Double, flightLevel: Int, uncertaintyCelsius: Double = 1, observedAt: Double) {
        let isaKelvin = StandardAtmosphere.temperatureKelvin(altitudeMeters: Double(flightLevel) * 100 * 0.3048)
        self.init(isaDeviationCelsius: staticAirTemperatureCelsius + 273.15 - isaKelvin, uncertaintyCelsius: uncertaintyCelsius,
                  observedAt: observedAt)
    }

    /// Whether the values are usable: a deviation within ±60 °C, a 1σ in (0, 30] °C, a finite time.
    var isValid: Bool {
        isaDeviationCelsius.isFinite && abs(isaDeviationCelsius) <= 60 && uncertaintyCelsius.isFinite && uncertaintyCelsius > 0
            && uncertaintyCelsius <= 30 && observedAt.isFinite
    }
}
