import EddySensorLog
import EddyVocabulary
import Foundation

/// AndroSensor (Fiv Asim, Android): one wide CSV separated by `;` (optionally announced by an Excel `sep=;` first
/// line), m/s² with Android's sign, `Time since start in ms`, and the row's local wall clock in
/// `YYYY-MO-DD HH-MI-SS_SSS` (docs/import.md §AndroSensor).
enum AndroSensorImporter: FormatImporter {
    static let format = ImportFormat.androsensor

    static func confidence(_ source: ExportSource) -> Double {
        guard source.isSingleFile, let header = source.headerLine(source.fileNames[0]) else { return 0 }
        let n = Columns.normalize(header)
        if TextFastPaths.contains(n, "accelerometer x(m/s"), TextFastPaths.contains(n, "time since start in ms") { return 0.95 }
        if TextFastPaths.contains(n, "yyyy-mo-dd hh-mi-ss_sss") { return 0.9 }
        return 0
    }

    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError) {
        let name = source.fileNames[0]
        context.expectBytes(source.size(name))
        let reader = try context.reader(source, name)
        let c = Columns(try reader.readHeader(allowed: [0x3B, 0x2C, 0x09], minimumColumns: 3), line: reader.lineNumber)
        reader.decimalComma = reader.delimiter != 0x2C
        var l = WideRowLayout()
        l.ax = c.index(prefix: "ACCELEROMETER X"); l.ay = c.index(prefix: "ACCELEROMETER Y"); l.az = c.index(prefix: "ACCELEROMETER Z")
        let time = c.index("Time since start in ms")
        let date = c.index("YYYY-MO-DD HH-MI-SS_SSS")
        try c.require([("ACCELEROMETER X (m/s²)", l.ax), ("ACCELEROMETER Y (m/s²)", l.ay), ("ACCELEROMETER Z (m/s²)", l.az),
                       ("Time since start in ms", time)], file: reader.file, format: format)
        try c.requireSameUnit([l.ax, l.ay, l.az], what: "ACCELEROMETER", file: reader.file)
        let unit = c.unit(l.ax)
        if unit.hasPrefix("m/s") || unit.isEmpty {
            l.accelScale = -1 / Units.standardGravity
            context.unitMappings.append("ACCELEROMETER X/Y/Z (m/s²) × (−1/9.80665) → ax, ay, az g (Android sign: +9.81 on z at rest)")
        } else if unit == "g" {
            l.accelScale = -1
            context.unitMappings.append("ACCELEROMETER X/Y/Z (g) × (−1) → ax, ay, az g (Android sign)")
        } else {
            throw ImportError(kind: .mixedUnits, file: reader.file, line: c.line, message: "ACCELEROMETER unit \"\(unit)\" is not m/s² or g", advice: "Export with SI units")
        }
        l.wx = c.index(prefix: "GYROSCOPE X"); l.wy = c.index(prefix: "GYROSCOPE Y"); l.wz = c.index(prefix: "GYROSCOPE Z")
        if l.hasGyro {
            try c.requireSameUnit([l.wx, l.wy, l.wz], what: "GYROSCOPE", file: reader.file)
            if c.unit(l.wx).hasPrefix("deg") { l.gyroScale = Double.pi / 180 }
            context.unitMappings.append("GYROSCOPE X/Y/Z (\(c.unit(l.wx))) → wx, wy, wz rad/s")
        }
        l.pressure = c.index(prefix: "ATMOSPHERIC PRESSURE")
        if l.pressure >= 0 { context.unitMappings.append("ATMOSPHERIC PRESSURE (hPa) → pressure_hpa (0 = no reading)") }
        l.lat = c.index("LOCATION Latitude :", "GPS LATITUDE (degrees)"); l.lon = c.index("LOCATION Longitude :", "GPS LONGITUDE (degrees)")
        l.alt = c.index("LOCATION Altitude ( m)", "GPS ALTITUDE (m)")
        l.speed = c.index("LOCATION Speed ( Kmh)", "GPS SPEED (Kmh)"); l.speedScale = 1 / 3.6
        l.hacc = c.index("LOCATION Accuracy ( m)", "GPS ACCURACY (m)")
        l.course = c.index("LOCATION ORIENTATION (°)", "GPS ORIENTATION (°)")
        l.altitudeIsEllipsoidal = true
        if l.hasLocation {
            context.unitMappings.append("LOCATION Latitude/Longitude → lat/lon; Speed (km/h) ÷ 3.6 → m/s; Accuracy (m) → h_acc_m; ORIENTATION (°) → course_deg")
            if context.options.geoidUndulationMeters == nil {
                context.notes.append("LOCATION Altitude is Android's height above the WGS84 ellipsoid and no geoid was given: alt_m left empty")
                l.alt = -1
            } else {
                context.unitMappings.append("LOCATION Altitude (WGS84 ellipsoid) − EGM96 undulation → alt_m (MSL)")
            }
        }
        // The first row fixes the origin (rows are in time order; every sensor shares the row's time).
        guard try reader.nextRow() else { _ = try context.begin(kinds: [.accelerometer], originEpochSeconds: nil); return }
        let firstMilliseconds = try reader.required(time, "Time since start in ms")
        var originEpoch: Double?
        if date >= 0, !reader.isEmpty(date) {
            guard let wall = reader.withCell(date, { TimeParsing.dateTime($0) }) else {
                throw reader.lineError(.badTime, "date \(Excerpt.escaped(reader.text(at: date).utf8)) is not YYYY-MO-DD HH-MI-SS_SSS", "Fix the cell or delete the line")
            }
            originEpoch = wall.epochSeconds
            if !wall.hasZone { context.notes.append("AndroSensor writes local time without a zone: time_origin reads it as UTC") }
        }
        context.unitMappings.append("Time since start in ms ÷ 1000 − first row → t s")
        var kinds: Set<SensorFileKind> = [.accelerometer]
        if l.hasGyro { kinds.insert(.gyroscope) }
        if l.pressure >= 0 { kinds.insert(.barometer) }
        if l.hasLocation { kinds.insert(.location) }
        let sink = try context.begin(kinds: kinds, originEpochSeconds: originEpoch)
        let origin = firstMilliseconds / 1000
        // The first row again, then the rest.
        reader.replayCurrentRow()
        try WideRowImport.run(reader, l, sink, context, origin: origin) { row throws(ImportError) in try row.required(time, "Time since start in ms") / 1000 }
    }
}
