import EddySensorLog
import Foundation

/// Physics Toolbox Sensor Suite (Vieyra Software): one wide CSV, `time` then the enabled sensors: `gFx, gFy, gFz`
/// (g-force: the normal force over weight, +1 on z lying face-up), `ax, ay, az` (linear acceleration, m/s², no
/// gravity), `wx, wy, wz` (rad/s), `p` (hPa), `Latitude, Longitude, Speed (m/s)` (docs/import.md §Physics Toolbox).
///
/// `time` is seconds since the start, a clock `HH:MM:SS:SSS`, or a date and time, depending on app version and platform.
enum PhysicsToolboxImporter: FormatImporter {
    static let format = ImportFormat.physicstoolbox

    static func confidence(_ source: ExportSource) -> Double {
        guard source.isSingleFile, let header = source.headerLine(source.fileNames[0]) else { return 0 }
        let n = Columns.normalize(header)
        let cells = Set(n.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" }).map { TextFastPaths.trimmingWhitespace(String($0)) })
        if cells.contains("time"), cells.contains("gfx"), cells.contains("gfz") { return 0.95 }
        if cells.contains("time"), cells.contains("wx"), cells.contains("ax") { return 0.6 }
        return 0
    }

    private enum TimeBase { case seconds, clock, dateTime }

    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError) {
        let name = source.fileNames[0]
        context.expectBytes(source.size(name))
        let reader = try context.reader(source, name)
        let c = Columns(try reader.readHeader(allowed: [0x2C, 0x3B, 0x09], minimumColumns: 3), line: reader.lineNumber)
        reader.decimalComma = reader.delimiter != 0x2C
        var l = WideRowLayout()
        let time = c.index("time")
        l.ax = c.index("gFx"); l.ay = c.index("gFy"); l.az = c.index("gFz")
        if l.ax < 0, c.index("ax") >= 0 {
            throw ImportError(kind: .missingColumns, file: reader.file, line: c.line,
                              message: "has linear acceleration ax, ay, az (gravity removed) but no g-force gFx, gFy, gFz",
                              advice: "Record with the g-Force Meter (or Multi Record with g-Force) enabled: the detector needs gravity in the signal")
        }
        try c.require([("time", time), ("gFx", l.ax), ("gFy", l.ay), ("gFz", l.az)], file: reader.file, format: format)
        l.accelScale = -1
        context.unitMappings.append("gFx, gFy, gFz (g-force, +1 on z face-up) × (−1) → ax, ay, az g (iOS sign)")
        l.wx = c.index("wx"); l.wy = c.index("wy"); l.wz = c.index("wz")
        if l.hasGyro { context.unitMappings.append("wx, wy, wz rad/s → wx, wy, wz") }
        l.pressure = c.index("p")
        if l.pressure >= 0 { context.unitMappings.append("p hPa → pressure_hpa (0 = no reading)") }
        l.lat = c.index("Latitude"); l.lon = c.index("Longitude"); l.speed = c.index("Speed (m/s)", "Speed")
        l.alt = c.index("Altitude (m)", "Altitude")
        if l.hasLocation { context.unitMappings.append("Latitude, Longitude °, Speed (m/s)\(l.alt >= 0 ? ", Altitude m (MSL)" : "") → location.csv (written when the fix changes)") }

        guard try reader.nextRow() else { _ = try context.begin(kinds: [.accelerometer], originEpochSeconds: nil); return }
        // The time base, from the first row's cell.
        let base: TimeBase
        var dayOffset = 0.0
        var originEpoch: Double?
        let firstTime: Double
        if let clock = reader.withCell(time, { TimeParsing.clock($0) }) {
            base = .clock
            firstTime = clock
            context.notes.append("time is a clock without a date: time_origin's date is a placeholder (2000-01-01), t is exact")
            originEpoch = Double(TimeParsing.daysFromCivil(2000, 1, 1) * 86_400) + clock
        } else if let wall = reader.withCell(time, { TimeParsing.dateTime($0) }) {
            base = .dateTime
            firstTime = wall.epochSeconds
            originEpoch = wall.epochSeconds
            if !wall.hasZone { context.notes.append("time has no zone: read as UTC") }
        } else {
            base = .seconds
            firstTime = try reader.required(time, "time")
        }
        context.unitMappings.append(base == .seconds ? "time s − first row → t" : base == .clock ? "time HH:MM:SS:SSS − first row → t (midnight roll-over adds a day)" : "time (date and time) − first row → t")
        var kinds: Set<SensorFileKind> = [.accelerometer]
        if l.hasGyro { kinds.insert(.gyroscope) }
        if l.pressure >= 0 { kinds.insert(.barometer) }
        if l.hasLocation { kinds.insert(.location) }
        let sink = try context.begin(kinds: kinds, originEpochSeconds: originEpoch)
        var previousClock = firstTime
        reader.replayCurrentRow()
        try WideRowImport.run(reader, l, sink, context, origin: firstTime) { r throws(ImportError) in
            switch base {
            case .seconds:
                return try r.required(time, "time")
            case .clock:
                guard let clock = r.withCell(time, { TimeParsing.clock($0) }) else {
                    throw r.lineError(.badTime, "time \(Excerpt.escaped(r.text(at: time).utf8)) is not a clock HH:MM:SS:SSS like the first row's", "Fix or delete the line")
                }
                if clock + 43_200 < previousClock { dayOffset += 86_400 }
                previousClock = clock
                return clock + dayOffset
            case .dateTime:
                guard let wall = r.withCell(time, { TimeParsing.dateTime($0) }) else {
                    throw r.lineError(.badTime, "time \(Excerpt.escaped(r.text(at: time).utf8)) is not a date and time like the first row's", "Fix or delete the line")
                }
                return wall.epochSeconds
            }
        }
    }
}
