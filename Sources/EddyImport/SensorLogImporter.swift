import EddySensorLog
import EddyVocabulary

/// SensorLog (iOS app by Bernd Thomas): one wide CSV, one row per logging tick, every sensor's latest reading with
/// its own time stamp (docs/import.md §SensorLog).
///
/// Sensor stamps are seconds since the device booted (`…Timestamp_sinceReboot(s)`); location stamps are Unix epoch
/// seconds (`locationTimestamp_since1970(s)`); `loggingTime(txt)` is the wall clock of the row. The boot epoch is
/// `loggingTime − accelerometerTimestamp_sinceReboot` of the first row holding both. A sensor's reading repeats
/// across rows until it updates: a row whose stamp equals the previous one is the same sample and is skipped.
enum SensorLogImporter: FormatImporter {
    static let format = ImportFormat.sensorlog

    static func confidence(_ source: ExportSource) -> Double {
        guard source.isSingleFile, let header = source.headerLine(source.fileNames[0]) else { return 0 }
        let lower = header.lowercased()
        if TextFastPaths.contains(lower, "accelerometertimestamp_sincereboot(s)") || TextFastPaths.contains(lower, "motiontimestamp_sincereboot(s)") { return 0.95 }
        if TextFastPaths.contains(lower, "loggingtime(txt)") { return 0.8 }
        return 0
    }

    private struct Layout {
        var logging = -1
        var accelTime = -1, ax = -1, ay = -1, az = -1
        var motionTime = -1, ux = -1, uy = -1, uz = -1, gx = -1, gy = -1, gz = -1, rx = -1, ry = -1, rz = -1
        var gyroTime = -1, wx = -1, wy = -1, wz = -1
        var altTime = -1, pressure = -1
        var locTime = -1, lat = -1, lon = -1, alt = -1, speed = -1, course = -1, hacc = -1, vacc = -1

        init(_ c: Columns) {
            logging = c.index("loggingTime(txt)")
            accelTime = c.index("accelerometerTimestamp_sinceReboot(s)")
            ax = c.index("accelerometerAccelerationX(G)"); ay = c.index("accelerometerAccelerationY(G)"); az = c.index("accelerometerAccelerationZ(G)")
            motionTime = c.index("motionTimestamp_sinceReboot(s)")
            ux = c.index("motionUserAccelerationX(G)"); uy = c.index("motionUserAccelerationY(G)"); uz = c.index("motionUserAccelerationZ(G)")
            gx = c.index("motionGravityX(G)"); gy = c.index("motionGravityY(G)"); gz = c.index("motionGravityZ(G)")
            rx = c.index("motionRotationRateX(rad/s)"); ry = c.index("motionRotationRateY(rad/s)"); rz = c.index("motionRotationRateZ(rad/s)")
            gyroTime = c.index("gyroTimestamp_sinceReboot(s)")
            wx = c.index("gyroRotationX(rad/s)"); wy = c.index("gyroRotationY(rad/s)"); wz = c.index("gyroRotationZ(rad/s)")
            altTime = c.index("altimeterTimestamp_sinceReboot(s)"); pressure = c.index("altimeterPressure(kPa)")
            locTime = c.index("locationTimestamp_since1970(s)")
            lat = c.index("locationLatitude(WGS84)"); lon = c.index("locationLongitude(WGS84)"); alt = c.index("locationAltitude(m)")
            speed = c.index("locationSpeed(m/s)"); course = c.index("locationCourse(°)")
            hacc = c.index("locationHorizontalAccuracy(m)"); vacc = c.index("locationVerticalAccuracy(m)")
        }

        var rawAccel: Bool { accelTime >= 0 && ax >= 0 && ay >= 0 && az >= 0 }
        var motionAccel: Bool { motionTime >= 0 && ux >= 0 && uy >= 0 && uz >= 0 && gx >= 0 && gy >= 0 && gz >= 0 }
        var motionGyro: Bool { motionTime >= 0 && rx >= 0 && ry >= 0 && rz >= 0 }
        var rawGyro: Bool { gyroTime >= 0 && wx >= 0 && wy >= 0 && wz >= 0 }
        var baro: Bool { altTime >= 0 && pressure >= 0 }
        var location: Bool { locTime >= 0 && lat >= 0 && lon >= 0 }
    }

    /// The boot epoch from a row: loggingTime − a boot-relative stamp of the same row.
    private static func bootEpoch(_ reader: DelimitedReader, _ l: Layout, accelTime: Int) throws(ImportError) -> (Double, Bool)? {
        guard l.logging >= 0, !reader.isEmpty(l.logging), let stamp = try reader.number(accelTime, "accelerometer time") else { return nil }
        guard let wall = reader.withCell(l.logging, { TimeParsing.dateTime($0) }) else {
            throw reader.lineError(.badTime, "loggingTime(txt) \(Excerpt.escaped(reader.text(at: l.logging).utf8)) is not a date and time",
                                   "SensorLog writes e.g. 2026-11-22 10:00:00.000 +0100; fix the cell or delete the line")
        }
        return (wall.epochSeconds - stamp, wall.hasZone)
    }

    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError) {
        let name = source.fileNames[0]
        context.expectBytes(source.size(name))
        // Pass 1 (a prefix of the file): boot epoch and the earliest stamp of every stream.
        var probe = try context.reader(source, name)
        probe.onBytes = nil
        let columns = Columns(try probe.readHeader(allowed: [0x2C, 0x3B, 0x09], minimumColumns: 2), line: probe.lineNumber)
        let l = Layout(columns)
        let useRaw = l.rawAccel
        guard useRaw || l.motionAccel else {
            try columns.require([("accelerometerTimestamp_sinceReboot(s)", l.accelTime), ("accelerometerAccelerationX(G)", l.ax),
                                 ("accelerometerAccelerationY(G)", l.ay), ("accelerometerAccelerationZ(G)", l.az)],
                                file: probe.file, format: format)
            return
        }
        let accelTime = useRaw ? l.accelTime : l.motionTime
        let useMotionGyro = l.motionGyro
        let gyroTime = useMotionGyro ? l.motionTime : l.gyroTime
        let hasGyro = useMotionGyro || l.rawGyro
        probe.decimalComma = probe.delimiter != 0x2C
        var boot: Double?
        var zoned = true
        var earliest = Double.infinity
        var seen = 0
        while seen < 2000, try probe.nextRow() {
            seen += 1
            if boot == nil, let found = try bootEpoch(probe, l, accelTime: accelTime) { boot = found.0; zoned = found.1 }
            for column in [accelTime, hasGyro ? gyroTime : -1, l.baro ? l.altTime : -1] where column >= 0 {
                if let t = try probe.number(column, columns.names[column]) { earliest = min(earliest, t) }
            }
            if l.location, let boot, let epoch = try probe.number(l.locTime, "locationTimestamp_since1970(s)"), epoch > 0 {
                earliest = min(earliest, epoch - boot)
            }
        }
        guard earliest.isFinite else { _ = try context.begin(kinds: [.accelerometer], originEpochSeconds: nil); return }
        var kinds: Set<SensorFileKind> = [.accelerometer]
        if hasGyro { kinds.insert(.gyroscope) }
        if l.baro { kinds.insert(.barometer) }
        if l.location, boot != nil { kinds.insert(.location) }
        if l.location, boot == nil { context.notes.append("no loggingTime(txt): location rows cannot be placed on the sensor clock and were left out") }
        if boot != nil, !zoned { context.notes.append("loggingTime(txt) has no time zone: read as UTC") }
        let sink = try context.begin(kinds: kinds, originEpochSeconds: boot.map { $0 + earliest })
        context.unitMappings = [
            useRaw ? "accelerometerAcceleration{X,Y,Z}(G) → ax, ay, az g (same sign: iOS reads z ≈ −1 face-up)"
                   : "motionUserAcceleration(G) + motionGravity(G) → ax, ay, az g (total = user + gravity, iOS sign)",
            "…Timestamp_sinceReboot(s) → t = stamp − earliest stamp (boot clock; time_origin = boot epoch + earliest)",
        ]
        if hasGyro { context.unitMappings.append(useMotionGyro ? "motionRotationRate{X,Y,Z}(rad/s) (bias-corrected) → wx, wy, wz rad/s" : "gyroRotation{X,Y,Z}(rad/s) → wx, wy, wz rad/s") }
        if l.baro { context.unitMappings.append("altimeterPressure(kPa) × 10 → pressure_hpa") }
        if kinds.contains(.location) { context.unitMappings.append("locationTimestamp_since1970(s) − boot epoch → t; locationAltitude(m) (MSL) → alt_m; negative speed/course/accuracy → empty") }

        // Pass 2: the whole file.
        probe = try context.reader(source, name)
        let reader = probe
        _ = try reader.readHeader(allowed: [reader.delimiter], minimumColumns: 2)
        reader.decimalComma = reader.delimiter != 0x2C
        var accelClock = Monotonic(), gyroClock = Monotonic(), baroClock = Monotonic(), locationClock = Monotonic()
        while try reader.nextRow() {
            if let stamp = try reader.number(accelTime, "accelerometer time") {
                let t = stamp - earliest
                if try !accelClock.check(t, reader, "accelerometer") {
                    if useRaw {
                        try sink.accelerometer(t: t, x: try reader.required(l.ax, "ax"), y: try reader.required(l.ay, "ay"), z: try reader.required(l.az, "az"))
                    } else {
                        try sink.accelerometer(
                            t: t, x: try reader.required(l.ux, "userX") + reader.required(l.gx, "gravityX"),
                            y: try reader.required(l.uy, "userY") + reader.required(l.gy, "gravityY"),
                            z: try reader.required(l.uz, "userZ") + reader.required(l.gz, "gravityZ"))
                    }
                }
            }
            if hasGyro, let stamp = try reader.number(gyroTime, "gyro time") {
                let t = stamp - earliest
                if try !gyroClock.check(t, reader, "gyroscope") {
                    let (x, y, z) = useMotionGyro ? (l.rx, l.ry, l.rz) : (l.wx, l.wy, l.wz)
                    try sink.gyroscope(t: t, x: try reader.required(x, "wx"), y: try reader.required(y, "wy"), z: try reader.required(z, "wz"))
                }
            }
            if l.baro, let stamp = try reader.number(l.altTime, "altimeter time") {
                let t = stamp - earliest
                if try !baroClock.check(t, reader, "altimeter"), let kilopascals = try reader.number(l.pressure, "altimeterPressure(kPa)") {
                    try sink.barometer(t: t, hectopascals: try LocationCheck.hectopascals(kilopascals * 10, reader: reader))
                }
            }
            if kinds.contains(.location), let boot, let epoch = try reader.number(l.locTime, "locationTimestamp_since1970(s)"), epoch > 0 {
                let t = epoch - boot - earliest
                if try !locationClock.check(t, reader, "location"), let lat = try reader.number(l.lat, "latitude"), let lon = try reader.number(l.lon, "longitude") {
                    try sink.location(try LocationCheck.fix(
                        t: t, lat: lat, lon: lon, reader: reader, altitude: try reader.number(l.alt, "altitude"),
                        hAcc: try reader.number(l.hacc, "h accuracy"), vAcc: try reader.number(l.vacc, "v accuracy"),
                        speed: try reader.number(l.speed, "speed"), course: try reader.number(l.course, "course")))
                }
            }
        }
    }
}

/// Location checks shared by the importers.
enum LocationCheck {
    /// A fix with range checks (lat/lon) and "negative = unknown" for accuracy, speed and course.
    static func fix(t: Double, lat: Double, lon: Double, reader: DelimitedReader, altitude: Double?, hAcc: Double?, vAcc: Double?,
                    speed: Double?, course: Double?, pressureAltitudeFeet: Double? = nil, source: LocationSource = .device) throws(ImportError) -> LocationSample {
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw reader.lineError(.outOfRange, "latitude/longitude \(lat), \(lon) out of range (−90…90, −180…180)", "Fix or delete the line")
        }
        func known(_ value: Double?) -> Double? { value.flatMap { $0 >= 0 ? $0 : nil } }
        return LocationSample(
            t: t, latitudeDegrees: lat, longitudeDegrees: lon, altitudeMeters: altitude, horizontalAccuracyMeters: known(hAcc),
            verticalAccuracyMeters: known(vAcc), speedMetersPerSecond: known(speed), courseDegrees: known(course).flatMap { $0 <= 360 ? $0 : nil },
            pressureAltitudeFeet: pressureAltitudeFeet, source: source)
    }

    /// A barometer reading in hPa within what a flight's reader accepts (0–2000 hPa, exclusive), else a line error: an
    /// import must never write a flight that `eddy replay` then refuses (a fuzz finding, docs/reliability.md §7).
    static func hectopascals(_ value: Double, reader: DelimitedReader) throws(ImportError) -> Double {
        guard value > 0, value < FlightLogReader.maximumPressureHectopascals else {
            throw reader.lineError(.outOfRange, "pressure \(value) hPa out of range (must be between 0 and 2000 hPa)",
                                   "Fix or delete the line (a value in Pa or kPa where hPa is expected?)")
        }
        return value
    }
}
