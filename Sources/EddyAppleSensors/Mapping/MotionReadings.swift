public import EddyVocabulary

/// Raw CoreMotion readings as their handlers deliver them, in Apple's units, and their mapping to Eddy's samples.
///
/// Eddy asks for the raw accelerometer and gyroscope (`CMAccelerometerData`, `CMGyroData`), not `CMDeviceMotion`:
/// detection needs the total specific force with gravity in it, which is exactly the raw accelerometer
/// (`CMDeviceMotion` splits it into `gravity` + `userAcceleration` with an attitude filter built for a hand-held
/// device, whose "gravity" in a sustained turn is the apparent vertical anyway); Eddy estimates the gyro's offset
/// itself (docs/detection.md §2); the raw streams cost the least power; and the recordings Eddy is validated on are raw
/// accelerometer logs (docs/import.md, SensorLog).
public enum AppleMotion {
    /// `CMAccelerometerData.acceleration` (g, device axes, iOS sign: lying face up at rest reads (0, 0, −1)) at
    /// `timestamp` (seconds since boot) → an accelerometer sample on Unix time. Eddy's axes and sign are iOS's
    /// (docs/import.md), so the values pass unchanged. Nil before the clock is anchored.
    public static func accelerometer(xG: Double, yG: Double, zG: Double, uptimeSeconds: Double, clock: BootClockAnchor) -> SensorSample? {
        guard let t = clock.unixSeconds(uptimeSeconds: uptimeSeconds) else { return nil }
        return .accelerometer(AccelerometerSample(t: t, x: xG, y: yG, z: zG))
    }

    /// `CMGyroData.rotationRate` (rad/s, device axes) at `timestamp` (seconds since boot) → a gyroscope sample on Unix
    /// time. Nil before the clock is anchored.
    public static func gyroscope(x: Double, y: Double, z: Double, uptimeSeconds: Double, clock: BootClockAnchor) -> SensorSample? {
        guard let t = clock.unixSeconds(uptimeSeconds: uptimeSeconds) else { return nil }
        return .gyroscope(GyroscopeSample(t: t, x: x, y: y, z: z))
    }

    /// `CMAltitudeData.pressure` ("the recorded pressure, in kilopascals",
    /// developer.apple.com/documentation/coremotion/cmaltitudedata/pressure) at `timestamp` (seconds since boot) → a
    /// barometer sample in hPa on Unix time (1 kPa = 10 hPa). Nil before the clock is anchored.
    public static func barometer(pressureKilopascals: Double, uptimeSeconds: Double, clock: BootClockAnchor) -> SensorSample? {
        guard let t = clock.unixSeconds(uptimeSeconds: uptimeSeconds) else { return nil }
        return .barometer(BarometerSample(t: t, pressureHectopascals: pressureKilopascals * 10))
    }
}
