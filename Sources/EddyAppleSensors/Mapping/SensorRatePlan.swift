/// The rates the adapter asks CoreMotion and CoreLocation for, from the engine's and the device's state.
///
/// Detection ticks at 25 Hz and needs an accelerometer rate of at least 2.5 × its band's top: 5 Hz for jets, 10 Hz for
/// light aircraft (docs/detection.md §9). 50 Hz gives two samples a tick (their mean halves the sensor noise's
/// variance); 25 Hz still gives one and measures everything, so it is what a hot or power-saving device gets. On the
/// ground after landing (the engine's low power mode) nothing is measured: 10 Hz keeps the input diagnostics alive and
/// the gyro rests until the engine leaves low power mode at take-off speed.
public struct SensorRatePlan: Sendable, Equatable {
    /// Accelerometer updates per second.
    public var accelerometerHz: Double
    /// Gyroscope updates per second; 0 = gyroscope off.
    public var gyroscopeHz: Double
    /// Whether CoreLocation runs at its best accuracy (`kCLLocationAccuracyBest`) rather than to about ten metres.
    public var bestLocationAccuracy: Bool

    /// A plan with these rates.
    public init(accelerometerHz: Double, gyroscopeHz: Double, bestLocationAccuracy: Bool) {
        self.accelerometerHz = accelerometerHz
        self.gyroscopeHz = gyroscopeHz
        self.bestLocationAccuracy = bestLocationAccuracy
    }

    /// The device's thermal state (`ProcessInfo.ThermalState`: nominal, fair, serious, critical).
    public enum Thermal: Sendable, Equatable, CaseIterable {
        /// Nominal or fair: no limit.
        case nominal, fair
        /// Serious: rates halved.
        case serious
        /// Critical: rates halved and the gyroscope off (detection works without it, docs/detection.md §2).
        case critical
    }

    /// The plan for the engine's low power mode (on the ground after landing), the system's Low Power Mode
    /// (`ProcessInfo.isLowPowerModeEnabled`) and the thermal state.
    public static func plan(engineLowPower: Bool, systemLowPowerMode: Bool, thermal: Thermal) -> SensorRatePlan {
        if engineLowPower { return SensorRatePlan(accelerometerHz: 10, gyroscopeHz: 0, bestLocationAccuracy: false) }
        switch (systemLowPowerMode, thermal) {
        case (_, .critical): return SensorRatePlan(accelerometerHz: 25, gyroscopeHz: 0, bestLocationAccuracy: true)
        case (true, _), (_, .serious): return SensorRatePlan(accelerometerHz: 25, gyroscopeHz: 25, bestLocationAccuracy: true)
        case (false, .nominal), (false, .fair): return SensorRatePlan(accelerometerHz: 50, gyroscopeHz: 50, bestLocationAccuracy: true)
        }
    }

    /// `CMMotionManager.accelerometerUpdateInterval`, seconds.
    public var accelerometerUpdateIntervalSeconds: Double { 1 / accelerometerHz }
    /// `CMMotionManager.gyroUpdateInterval`, seconds (nil: do not run the gyroscope).
    public var gyroUpdateIntervalSeconds: Double? { gyroscopeHz > 0 ? 1 / gyroscopeHz : nil }
}
