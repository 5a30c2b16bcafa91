package import EddyNavigation
package import EddyVocabulary

/// The parts of `EddyConfiguration` that decide what the core does.
package struct EngineCoreConfiguration: Sendable {
    /// Where sync scheduling time comes from.
    package var syncTiming: SyncTiming
    /// Flight phase and low power thresholds.
    package var flightPhase: FlightPhaseConfiguration
    /// Radius of the automatic route area, NM.
    package var autoRouteRadiusNM: Double
    /// Distance that re-centres the automatic route area, NM.
    package var autoRouteRecentreNM: Double
    /// Shortest interval between own-position uploads while airborne, seconds.
    package var positionUploadIntervalSeconds: Double
    /// Seed of the sync back-off jitter.
    package var syncJitterSeed: UInt64
    /// Cabin pressurisation forced by the host (nil: detected).
    package var cabinPressurization: CabinPressurization?
    /// QNH the host knows, hPa.
    package var qnhHectopascals: Double?
    /// Age beyond which a barometer calibration is stale, seconds.
    package var barometerCalibrationStaleSeconds: Double
    /// How the device is installed (detection's flat and handling rules).
    package var deviceMount: DeviceMount
    /// The local defaults of the thresholds a server may override.
    package var localThresholds: EddyThresholds

    /// Takes the core's settings from an engine configuration.
    package init(_ configuration: EddyConfiguration) {
        syncTiming = configuration.syncTiming
        flightPhase = configuration.flightPhase
        autoRouteRadiusNM = configuration.autoRouteRadiusNM
        autoRouteRecentreNM = configuration.autoRouteRecentreNM
        positionUploadIntervalSeconds = configuration.positionUploadIntervalSeconds
        syncJitterSeed = configuration.syncJitterSeed
        cabinPressurization = configuration.cabinPressurization
        qnhHectopascals = configuration.qnhHectopascals.flatMap { $0.isFinite && $0 >= 900 && $0 <= 1_100 ? $0 : nil }
        let days = configuration.barometerCalibrationStaleDays
        barometerCalibrationStaleSeconds = (days.isFinite && days > 0 ? days : 3.5) * 86_400
        deviceMount = configuration.deviceMount
        localThresholds = EddyThresholds(
            local: configuration.flightPhase, maximumHorizontalAccuracyMeters: configuration.maximumHorizontalAccuracyMeters,
            maximumVerticalAccuracyMeters: configuration.maximumVerticalAccuracyMeters)
    }
}


extension EngineCoreConfiguration {
    /// Navigation's settings for an aircraft class: the host's cabin and QNH, the calibration's staleness.
    func navigation(for aircraftClass: AircraftClass) -> NavigationConfiguration {
        var altitude = AltitudeConfiguration(aircraftClass: aircraftClass)
        altitude.cabin = cabinPressurization
        altitude.qnhHectopascals = qnhHectopascals
        var c = NavigationConfiguration(altitude: altitude)
        c.barometerCalibrationStaleSeconds = barometerCalibrationStaleSeconds
        return c
    }
}
