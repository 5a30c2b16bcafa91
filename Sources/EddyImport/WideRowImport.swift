import EddySensorLog

/// Shared loop of the "one row per tick, latest value of every sensor" formats (AndroSensor, Physics Toolbox).
///
/// Such rows carry one time for all sensors and repeat a sensor's last reading until it updates. Each row gives one
/// accelerometer, gyroscope and barometer sample (rows with the same time as the previous one are skipped); a
/// location fix is written only when latitude, longitude, altitude or speed change (the GNSS updates about once a
/// second while rows come at the sensor rate), and 0, 0 is "no fix yet".
struct WideRowLayout {
    var ax = -1, ay = -1, az = -1
    /// Multiplier from the file's acceleration unit and sign to Eddy g (iOS sign).
    var accelScale = 1.0
    var wx = -1, wy = -1, wz = -1
    var gyroScale = 1.0
    var pressure = -1
    var lat = -1, lon = -1, alt = -1, speed = -1, course = -1, hacc = -1
    var speedScale = 1.0
    var altitudeIsEllipsoidal = false

    var hasGyro: Bool { wx >= 0 && wy >= 0 && wz >= 0 }
    var hasLocation: Bool { lat >= 0 && lon >= 0 }
}

enum WideRowImport {
    /// Streams every row of `reader` (header already read) into `sink`; `time` gives a row's seconds in the file's base.
    static func run(_ reader: DelimitedReader, _ l: WideRowLayout, _ sink: FlightSink, _ context: ImportContext,
                    origin: Double, time: (DelimitedReader) throws(ImportError) -> Double) throws(ImportError) {
        var clock = Monotonic()
        var lastFix: (Double, Double, Double?, Double?)?
        let geoid = context.options.geoidUndulationMeters
        while try reader.nextRow() {
            let t = try time(reader) - origin
            if try clock.check(t, reader, "row") { continue }
            if let x = try reader.number(l.ax, "ax"), let y = try reader.number(l.ay, "ay"), let z = try reader.number(l.az, "az") {
                try sink.accelerometer(t: t, x: x * l.accelScale, y: y * l.accelScale, z: z * l.accelScale)
            }
            if l.hasGyro, let x = try reader.number(l.wx, "wx"), let y = try reader.number(l.wy, "wy"), let z = try reader.number(l.wz, "wz") {
                try sink.gyroscope(t: t, x: x * l.gyroScale, y: y * l.gyroScale, z: z * l.gyroScale)
            }
            if l.pressure >= 0, let p = try reader.number(l.pressure, "pressure"), p > 0 {
                try sink.barometer(t: t, hectopascals: try LocationCheck.hectopascals(p, reader: reader))
            }
            if l.hasLocation, let la = try reader.number(l.lat, "latitude"), let lo = try reader.number(l.lon, "longitude"), la != 0 || lo != 0 {
                let altitude = try reader.number(l.alt, "altitude")
                let speed = try reader.number(l.speed, "speed").map { $0 * l.speedScale }
                if let last = lastFix, last.0 == la, last.1 == lo, last.2 == altitude, last.3 == speed { continue }
                lastFix = (la, lo, altitude, speed)
                var msl = altitude
                if l.altitudeIsEllipsoidal { msl = altitude.flatMap { h in geoid.flatMap { $0(la, lo) }.map { h - $0 } } }
                try sink.location(try LocationCheck.fix(
                    t: t, lat: la, lon: lo, reader: reader, altitude: msl, hAcc: try reader.number(l.hacc, "accuracy"), vAcc: nil,
                    speed: speed, course: try reader.number(l.course, "course")))
            }
        }
    }
}
