import EddySensorLog
import EddyVocabulary
import Foundation

/// Sensor Logger (Kelvin Choi, iOS and Android): one CSV per sensor, in a folder or a .zip (docs/import.md §Sensor Logger).
///
/// Every file has `time` (Unix epoch nanoseconds, read as an exact integer) and `seconds_elapsed`. Accelerations are
/// m/s²; iOS and Android differ by a sign on every axis (awesome-sensor-logger COORDINATES.md), so the platform comes
/// from `metadata.csv`. `TotalAcceleration.csv` (Android) holds gravity; otherwise `Accelerometer.csv` (without gravity)
/// plus `Gravity.csv` (the latest gravity sample at or before each acceleration sample) give the total.
enum SensorLoggerImporter: FormatImporter {
    static let format = ImportFormat.sensorlogger

    static func confidence(_ source: ExportSource) -> Double {
        for name in ["TotalAcceleration.csv", "Accelerometer.csv", "Gyroscope.csv", "Location.csv"] {
            if let file = source.file(named: name), let header = source.headerLine(file)?.lowercased(),
               TextFastPaths.contains(header, "seconds_elapsed"), TextFastPaths.contains(header, "time") { return 0.95 }
        }
        return 0
    }

    /// One per-sensor file being read: its time column as exact nanoseconds.
    private static func openStream(_ source: ExportSource, _ name: String, _ context: ImportContext) throws(ImportError) -> SensorCSVStream {
        try SensorCSVStream(source, name, context, timeColumn: "time", format: format)
    }
}

private extension SensorCSVStream {
    /// The row's time in epoch nanoseconds.
    func nanoseconds() throws(ImportError) -> Int64 {
        guard let value = reader.withCell(time, { TimeParsing.integer($0) }) else {
            throw reader.lineError(.badTime, "time \(Excerpt.escaped(reader.text(at: time).utf8)) is not an integer of nanoseconds", "Sensor Logger writes Unix epoch nanoseconds; fix or delete the line")
        }
        return value
    }
    func axes() throws(ImportError) -> (Int, Int, Int) {
        let x = columns.index("x"), y = columns.index("y"), z = columns.index("z")
        try columns.require([("x", x), ("y", y), ("z", z)], file: reader.file, format: .sensorlogger)
        return (x, y, z)
    }
}

extension SensorLoggerImporter {
    /// The first time stamp of a file (files are in time order, so the earliest).
    private static func firstTime(_ source: ExportSource, _ name: String?, _ context: ImportContext) throws(ImportError) -> Int64? {
        guard let name else { return nil }
        let stream = try openStream(source, name, context)
        stream.reader.onBytes = nil
        return try stream.reader.nextRow() ? try stream.nanoseconds() : nil
    }

    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError) {
        let total = source.file(named: "TotalAcceleration.csv")
        let accel = source.file(named: "Accelerometer.csv")
        let gravity = source.file(named: "Gravity.csv")
        let gyro = source.file(named: "Gyroscope.csv")
        let baro = source.file(named: "Barometer.csv")
        let location = source.file(named: "Location.csv")
        let accelFile: String
        if let total { accelFile = total } else if let accel, gravity != nil { accelFile = accel } else {
            throw ImportError(kind: .missingColumns, file: source.displayName(accel ?? "Accelerometer.csv"),
                              message: accel == nil ? "no accelerometer file (Accelerometer.csv or TotalAcceleration.csv) in the export"
                                                    : "Accelerometer.csv holds acceleration without gravity and there is no Gravity.csv to add it back",
                              advice: "Record with Accelerometer and Gravity (iOS) or Total Acceleration (Android) enabled and export again")
        }
        // Platform: iOS and Android accelerations differ by a sign on every axis.
        var android = total != nil
        var platformKnown = total != nil
        if let meta = source.file(named: "metadata.csv") {
            if let platform = try platform(source, meta, context) { android = platform == "android"; platformKnown = true }
        }
        if !platformKnown { context.notes.append("metadata.csv gives no platform: assumed iOS sign convention (the detector does not depend on the sign)") }
        let used = [accelFile, total == nil ? gravity : nil, gyro, baro, location].compactMap { $0 }
        context.expectBytes(source.totalSize(used))
        var firsts: [Int64] = []
        for name in used { if let first = try firstTime(source, name, context) { firsts.append(first) } }
        guard let origin = firsts.min() else { _ = try context.begin(kinds: [.accelerometer], originEpochSeconds: nil); return }
        var kinds: Set<SensorFileKind> = [.accelerometer]
        if gyro != nil { kinds.insert(.gyroscope) }
        if baro != nil { kinds.insert(.barometer) }
        if location != nil { kinds.insert(.location) }
        let sink = try context.begin(kinds: kinds, originEpochSeconds: Double(origin / 1_000_000_000) + Double(origin % 1_000_000_000) / 1e9)
        @inline(__always) func seconds(_ ns: Int64) -> Double { Double(ns - origin) / 1e9 }
        let sign = android ? -1.0 : 1.0
        let scale = sign / Units.standardGravity
        context.unitMappings.append("time (epoch ns) − earliest → t s; seconds_elapsed ignored")
        context.unitMappings.append(total != nil
            ? "TotalAcceleration.csv x, y, z m/s² × (−1/9.80665) → ax, ay, az g (Android sign: +9.81 on z at rest)"
            : "Accelerometer.csv + Gravity.csv x, y, z m/s² × (\(android ? "−" : "+")1/9.80665) → ax, ay, az g (\(android ? "Android" : "iOS") sign)")

        // Accelerometer (with gravity joined when needed).
        let stream = try openStream(source, accelFile, context)
        let (x, y, z) = try stream.axes()
        var gravityCursor = try total == nil ? GravityCursor(openStream(source, gravity!, context)) : nil
        var clock = Monotonic()
        while try stream.reader.nextRow() {
            let ns = try stream.nanoseconds()
            let t = seconds(ns)
            if try clock.check(t, stream.reader, "accelerometer") { continue }
            var ax = try stream.reader.required(x, "x"), ay = try stream.reader.required(y, "y"), az = try stream.reader.required(z, "z")
            if var cursor = gravityCursor {
                let g = try cursor.at(ns)
                gravityCursor = cursor
                ax += g.0; ay += g.1; az += g.2
            }
            try sink.accelerometer(t: t, x: ax * scale, y: ay * scale, z: az * scale)
        }
        if let gyro {
            context.unitMappings.append("Gyroscope.csv x, y, z rad/s → wx, wy, wz (same on both platforms)")
            let stream = try openStream(source, gyro, context)
            let (x, y, z) = try stream.axes()
            var clock = Monotonic()
            while try stream.reader.nextRow() {
                let t = seconds(try stream.nanoseconds())
                if try clock.check(t, stream.reader, "gyroscope") { continue }
                try sink.gyroscope(t: t, x: try stream.reader.required(x, "x"), y: try stream.reader.required(y, "y"), z: try stream.reader.required(z, "z"))
            }
        }
        if let baro {
            context.unitMappings.append("Barometer.csv pressure mbar = hPa → pressure_hpa")
            let stream = try openStream(source, baro, context)
            let pressure = stream.columns.index("pressure")
            try stream.columns.require([("pressure", pressure)], file: stream.reader.file, format: format)
            var clock = Monotonic()
            while try stream.reader.nextRow() {
                let t = seconds(try stream.nanoseconds())
                if try clock.check(t, stream.reader, "barometer") { continue }
                if let value = try stream.reader.number(pressure, "pressure") {
                    try sink.barometer(t: t, hectopascals: try LocationCheck.hectopascals(value, reader: stream.reader))
                }
            }
        }
        if let location {
            let stream = try openStream(source, location, context)
            let c = stream.columns
            let lat = c.index("latitude"), lon = c.index("longitude"), msl = c.index("altitudeAboveMeanSeaLevel"), ellipsoid = c.index("altitude")
            let speed = c.index("speed"), bearing = c.index("bearing"), hacc = c.index("horizontalAccuracy"), vacc = c.index("verticalAccuracy")
            try c.require([("latitude", lat), ("longitude", lon)], file: stream.reader.file, format: format)
            let geoid = context.options.geoidUndulationMeters
            if msl >= 0 {
                context.unitMappings.append("Location.csv altitudeAboveMeanSeaLevel m → alt_m; speed m/s, bearing °, accuracies m (negative = unknown)")
            } else if geoid != nil {
                context.unitMappings.append("Location.csv altitude (WGS84 ellipsoid) − EGM96 undulation → alt_m (MSL); speed, bearing, accuracies as is")
            } else {
                context.notes.append("Location.csv altitude is above the WGS84 ellipsoid and no geoid was given: alt_m left empty")
            }
            var clock = Monotonic()
            while try stream.reader.nextRow() {
                let t = seconds(try stream.nanoseconds())
                if try clock.check(t, stream.reader, "location") { continue }
                let r = stream.reader
                guard let la = try r.number(lat, "latitude"), let lo = try r.number(lon, "longitude") else { continue }
                var altitude: Double?
                if msl >= 0 { altitude = try r.number(msl, "altitudeAboveMeanSeaLevel") } else if let geoid, let h = try r.number(ellipsoid, "altitude") { altitude = geoid(la, lo).map { h - $0 } }
                try sink.location(try LocationCheck.fix(
                    t: t, lat: la, lon: lo, reader: r, altitude: altitude, hAcc: try r.number(hacc, "horizontalAccuracy"),
                    vAcc: try r.number(vacc, "verticalAccuracy"), speed: try r.number(speed, "speed"), course: try r.number(bearing, "bearing")))
            }
        }
    }

    /// Latest gravity sample at or before a time (the first one before any).
    private struct GravityCursor {
        let stream: SensorCSVStream
        let x: Int, y: Int, z: Int
        var current: (Double, Double, Double)?
        var pending: (Int64, (Double, Double, Double))?
        var ended = false

        init(_ stream: SensorCSVStream) throws(ImportError) {
            self.stream = stream
            (x, y, z) = try stream.axes()
        }

        private mutating func readNext() throws(ImportError) {
            if try stream.reader.nextRow() {
                let r = stream.reader
                pending = (try stream.nanoseconds(), (try r.required(x, "x"), try r.required(y, "y"), try r.required(z, "z")))
            } else {
                pending = nil; ended = true
            }
        }

        mutating func at(_ ns: Int64) throws(ImportError) -> (Double, Double, Double) {
            if current == nil, pending == nil, !ended { try readNext(); current = pending?.1 }
            while let next = pending, next.0 <= ns {
                current = next.1
                try readNext()
            }
            guard let current else {
                throw ImportError(kind: .noSamples, file: stream.reader.file, message: "holds no gravity sample", advice: "Record with Gravity enabled")
            }
            return current
        }
    }
}

extension SensorLoggerImporter {
    /// The `platform` column of metadata.csv, lower-cased (`ios`, `android`), or nil.
    static func platform(_ source: ExportSource, _ name: String, _ context: ImportContext) throws(ImportError) -> String? {
        let reader = DelimitedReader(source: try source.open(name), file: source.displayName(name))
        let columns = Columns(try reader.readHeader(allowed: [0x2C, 0x3B, 0x09], minimumColumns: 1), line: reader.lineNumber)
        let column = columns.index("platform")
        guard column >= 0, try reader.nextRow() else { return nil }
        let value = TextFastPaths.trimmingWhitespace(reader.text(at: column)).lowercased()
        return value.isEmpty ? nil : value
    }
}
