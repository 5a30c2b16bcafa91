import EddySensorLog
import EddyVocabulary
import Foundation

/// phyphox (RWTH Aachen) CSV export: one file per sensor (`Accelerometer.csv`, `Gyroscope.csv`, `Pressure.csv`,
/// `Location.csv`) in a folder or a .zip, or one `Raw Data.csv`; `meta/time.csv` anchors the clock (docs/import.md §phyphox).
///
/// `Time (s)` is seconds since the experiment started; `meta/time.csv`'s first START row gives the system time (Unix
/// epoch seconds) of an experiment time. "Acceleration with g" follows Android's sign (+9.81 m/s² on z at rest).
enum PhyphoxImporter: FormatImporter {
    static let format = ImportFormat.phyphox

    private static func accelerometerFile(_ source: ExportSource) -> String? {
        for name in ["Accelerometer.csv", "Raw Data.csv"] {
            if let file = source.file(named: name), let header = source.headerLine(file),
               TextFastPaths.contains(Columns.normalize(header), "time(s)"), TextFastPaths.contains(Columns.normalize(header), "(m/s2)") { return file }
        }
        if source.isSingleFile, let header = source.headerLine(source.fileNames[0]) {
            let n = Columns.normalize(header)
            if TextFastPaths.contains(n, "time(s)"), TextFastPaths.contains(n, "x(m/s2)") { return source.fileNames[0] }
        }
        return nil
    }

    static func confidence(_ source: ExportSource) -> Double {
        accelerometerFile(source) == nil ? 0 : (source.file(named: "time.csv") != nil ? 0.95 : 0.85)
    }

    /// Experiment time 0 in epoch seconds, from meta/time.csv's first START event.
    private static func epochOfZero(_ source: ExportSource, _ context: ImportContext) throws(ImportError) -> Double? {
        guard let name = source.file(named: "time.csv") else { return nil }
        let reader = DelimitedReader(source: try source.open(name), file: source.displayName(name))
        let c = Columns(try reader.readHeader(allowed: [0x2C, 0x3B, 0x09], minimumColumns: 3), line: reader.lineNumber)
        reader.decimalComma = reader.delimiter != 0x2C
        let event = c.index("event"), experiment = c.index("experiment time"), system = c.index("system time")
        try c.require([("event", event), ("experiment time", experiment), ("system time", system)], file: reader.file, format: format)
        while try reader.nextRow() {
            if reader.text(at: event).uppercased().contains("START") {
                return try reader.required(system, "system time") - reader.required(experiment, "experiment time")
            }
        }
        return nil
    }

    private static func openStream(_ source: ExportSource, _ name: String, _ context: ImportContext) throws(ImportError) -> SensorCSVStream {
        try SensorCSVStream(source, name, context, timeColumn: "Time (s)", format: format)
    }
}

private extension SensorCSVStream {
    func axes(_ prefixes: [String], unit: String) throws(ImportError) -> (Int, Int, Int) {
        var found = (-1, -1, -1)
        for prefix in prefixes {
            let x = columns.index("\(prefix)x (\(unit))"), y = columns.index("\(prefix)y (\(unit))"), z = columns.index("\(prefix)z (\(unit))")
            if x >= 0, y >= 0, z >= 0 { found = (x, y, z); break }
        }
        try columns.require([("\(prefixes[0])x (\(unit))", found.0), ("\(prefixes[0])y (\(unit))", found.1), ("\(prefixes[0])z (\(unit))", found.2)],
                            file: reader.file, format: .phyphox)
        return found
    }
}

extension PhyphoxImporter {
    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError) {
        guard let accel = accelerometerFile(source) else {
            throw ImportError(kind: .missingColumns, file: TextFastPaths.baseName(source.path), message: "no phyphox Accelerometer.csv with \"Time (s)\" and \"Acceleration x (m/s^2)\"",
                              advice: "Use phyphox's \"Acceleration with g\" experiment and export CSV")
        }
        let gyro = source.isSingleFile ? nil : source.file(named: "Gyroscope.csv")
        let pressure = source.isSingleFile ? nil : source.file(named: "Pressure.csv")
        let location = source.isSingleFile ? nil : source.file(named: "Location.csv")
        let used = [accel, gyro, pressure, location].compactMap { $0 }
        context.expectBytes(source.totalSize(used))
        var earliest = Double.infinity
        for name in used {
            let stream = try openStream(source, name, context)
            stream.reader.onBytes = nil
            if try stream.reader.nextRow(), let t = try stream.reader.number(stream.time, "Time (s)") { earliest = min(earliest, t) }
        }
        guard earliest.isFinite else { _ = try context.begin(kinds: [.accelerometer], originEpochSeconds: nil); return }
        let zero = try epochOfZero(source, context)
        var kinds: Set<SensorFileKind> = [.accelerometer]
        if gyro != nil { kinds.insert(.gyroscope) }
        if pressure != nil { kinds.insert(.barometer) }
        if location != nil { kinds.insert(.location) }
        let sink = try context.begin(kinds: kinds, originEpochSeconds: zero.map { $0 + earliest })
        context.unitMappings.append("Time (s) − earliest → t; time_origin = meta/time.csv START system time + earliest")
        context.unitMappings.append("Acceleration x, y, z (m/s^2) × (−1/9.80665) → ax, ay, az g (phyphox uses Android's sign: +9.81 on z at rest)")
        let scale = -1 / Units.standardGravity
        do {
            let stream = try openStream(source, accel, context)
            let (x, y, z) = try stream.axes(["Acceleration ", ""], unit: "m/s^2")
            var clock = Monotonic()
            let r = stream.reader
            while try r.nextRow() {
                let t = try r.required(stream.time, "Time (s)") - earliest
                if try clock.check(t, r, "accelerometer") { continue }
                try sink.accelerometer(t: t, x: try r.required(x, "x") * scale, y: try r.required(y, "y") * scale, z: try r.required(z, "z") * scale)
            }
        }
        if let gyro {
            context.unitMappings.append("Gyroscope x, y, z (rad/s) → wx, wy, wz")
            let stream = try openStream(source, gyro, context)
            let (x, y, z) = try stream.axes(["Gyroscope ", ""], unit: "rad/s")
            var clock = Monotonic()
            let r = stream.reader
            while try r.nextRow() {
                let t = try r.required(stream.time, "Time (s)") - earliest
                if try clock.check(t, r, "gyroscope") { continue }
                try sink.gyroscope(t: t, x: try r.required(x, "x"), y: try r.required(y, "y"), z: try r.required(z, "z"))
            }
        }
        if let pressure {
            context.unitMappings.append("Pressure (hPa) → pressure_hpa")
            let stream = try openStream(source, pressure, context)
            let p = stream.columns.index("Pressure (hPa)")
            try stream.columns.require([("Pressure (hPa)", p)], file: stream.reader.file, format: format)
            var clock = Monotonic()
            let r = stream.reader
            while try r.nextRow() {
                let t = try r.required(stream.time, "Time (s)") - earliest
                if try clock.check(t, r, "pressure") { continue }
                if let value = try r.number(p, "Pressure (hPa)") { try sink.barometer(t: t, hectopascals: try LocationCheck.hectopascals(value, reader: r)) }
            }
        }
        if let location {
            let stream = try openStream(source, location, context)
            let c = stream.columns
            let lat = c.index("Latitude (°)"), lon = c.index("Longitude (°)")
            let msl = c.index("Altitude (m)", "Height (m)"), wgs = c.index("Altitude WGS84 (m)")
            let speed = c.index("Velocity (m/s)", "Speed (m/s)"), direction = c.index("Direction (°)")
            let hacc = c.index("Horizontal Accuracy (m)"), vacc = c.index("Vertical Accuracy (m)")
            try c.require([("Latitude (°)", lat), ("Longitude (°)", lon)], file: stream.reader.file, format: format)
            context.unitMappings.append("Location: Latitude/Longitude (°), \(msl >= 0 ? c.names[msl] : "no altitude") → alt_m, Velocity (m/s), Direction (°), accuracies (m)")
            if msl >= 0, c.normalized[msl].hasPrefix("height") {
                context.notes.append("phyphox \"Height (m)\" is written as alt_m; on Android phones it is the height above the WGS84 ellipsoid (off MSL by the geoid, up to ±100 m)")
            }
            var clock = Monotonic()
            let r = stream.reader
            let geoid = context.options.geoidUndulationMeters
            while try r.nextRow() {
                let t = try r.required(stream.time, "Time (s)") - earliest
                if try clock.check(t, r, "location") { continue }
                guard let la = try r.number(lat, "latitude"), let lo = try r.number(lon, "longitude") else { continue }
                var altitude = try r.number(msl, "altitude")
                if msl < 0, let geoid, let h = try r.number(wgs, "Altitude WGS84 (m)") { altitude = geoid(la, lo).map { h - $0 } }
                try sink.location(try LocationCheck.fix(
                    t: t, lat: la, lon: lo, reader: r, altitude: altitude, hAcc: try r.number(hacc, "horizontal accuracy"),
                    vAcc: try r.number(vacc, "vertical accuracy"), speed: try r.number(speed, "velocity"), course: try r.number(direction, "direction")))
            }
        }
        if zero == nil { context.notes.append("no meta/time.csv: the experiment's wall-clock start is unknown") }
    }
}
