import EddySensorLog
import EddyVocabulary
import Foundation

/// IGC flight recorder files (FAI/IGC "Technical specification for IGC-approved GNSS flight recorders", appendix A):
/// B fix records with UTC time, latitude/longitude, validity, pressure altitude and GNSS altitude (metres), extensions
/// declared by the I record, the date in the HFDTE header (docs/import.md §IGC).
///
/// An IGC file has no accelerometer: the flight gets an empty accelerometer.csv (header only) and a location.csv with
/// `source = external`. Pressure altitude (ICAO ISA, 1013.25 hPa datum) → `pressure_alt_ft`; GNSS altitude is above
/// the WGS84 ellipsoid → `alt_m` = GNSS − geoid undulation when a geoid is given, else empty.
enum IGCImporter: FormatImporter {
    static let format = ImportFormat.igc

    static func confidence(_ source: ExportSource) -> Double {
        guard source.isSingleFile else { return 0 }
        let name = source.fileNames[0].lowercased()
        let head = source.prefix(source.fileNames[0], count: 8192)
        guard !head.contains(0) else { return 0 }
        let (hasDate, hasB) = head.withUnsafeBufferPointer { bytes in
            ("HFDTE".utf8.withContiguousStorageIfAvailable { TextFastPaths.contains(bytes, $0) } ?? false,
             "\nB".utf8.withContiguousStorageIfAvailable { TextFastPaths.contains(bytes, $0) } ?? false)
        }
        if hasDate, hasB, head.first == 0x41 { return 0.99 }
        if name.hasSuffix(".igc"), hasDate || hasB { return 0.9 }
        return 0
    }

    /// The type meta.json gets when `--type` was not given: the glider-type header's value when it is an ICAO
    /// designator Eddy knows, else `GLID` (a glider of no designated type, flown as the generic glider) for a small-class
    /// import — IGC loggers are glider loggers — with a note saying why and what to pass.
    static func chooseAircraftType(gliderTypeHeader header: String?, _ context: ImportContext) {
        guard context.options.aircraftType == nil, context.options.aircraftClass == .small else { return }
        if let header, let type = AircraftTypeTable.type(designator: header) {
            context.aircraftType = type.designator
            context.notes.append("aircraft type \(type.designator) (\(type.name)) from the glider-type header HFGTY")
            return
        }
        context.aircraftType = "GLID"
        let why = switch header {
        case nil: "the file has no glider-type header (HFGTY)"
        case ""?: "the glider-type header (HFGTY) is empty"
        case let text?: "the glider-type header says \"\(text)\", not an ICAO designator Eddy knows"
        }
        context.notes.append("\(why): aircraft type GLID, a glider of no designated type (docs/detection.md); pass --type (e.g. --type AS21) to name it")
    }

    /// One extension field of B records: 0-based byte range and its code.
    private struct Extension { var start: Int; var end: Int; var code: String }

    static func run(_ source: ExportSource, _ context: ImportContext) throws(ImportError) {
        let name = source.fileNames[0]
        context.expectBytes(source.size(name))
        let head = source.prefix(name, count: 4096)
        if head.contains(0) {
            throw ImportError(kind: .binaryFile, file: name, message: "holds binary data, not IGC text (starts \(Excerpt.escaped(head)))", advice: "Pass the .igc text file the logger wrote")
        }
        let reader = try context.reader(source, name)
        let file = reader.file
        var date: Int?   // days since 1970
        var extensions: [Extension] = []
        var sink: FlightSink?
        var origin = 0.0
        var lastSecondOfDay = -1
        var dayOffset = 0
        var clock = -Double.infinity
        var invalidFixes = 0
        var gliderTypeHeader: String?   // nil: no HFGTY header; "": an empty one
        var zeroPressure = 0
        let geoid = context.options.geoidUndulationMeters
        func digits(_ line: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int, _ what: String) throws(ImportError) -> Int {
            var value = 0
            var negative = false
            for i in start..<(start + count) {
                let byte = line[i]
                if i == start, byte == 0x2D { negative = true; continue }
                let d = byte &- 0x30
                guard d < 10 else {
                    throw ImportError(kind: .notANumber, file: file, line: reader.lineNumber,
                                      message: "\(what) \(Excerpt.escaped(UnsafeBufferPointer(rebasing: line[start..<(start + count)]))) is not a number",
                                      advice: "The B record is damaged: fix or delete the line")
                }
                // An extension may declare up to 99 digits (I record): refuse more than an Int holds.
                let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow, shifted <= Int.max - Int(d) else {
                    throw ImportError(kind: .notANumber, file: file, line: reader.lineNumber, message: "\(what) has too many digits",
                                      advice: "The B record or its I record is damaged: fix or delete the line")
                }
                value = shifted + Int(d)
            }
            return negative ? -value : value
        }
        while let line = try reader.nextRawLine() {
            guard let kind = line.first else { continue }
            if kind == UInt8(ascii: "H"), line.count >= 11 {
                let text = String(decoding: line, as: UTF8.self)
                if text.uppercased().hasPrefix("HFGTY") || text.uppercased().hasPrefix("HOGTY") {
                    // HFGTYGLIDERTYPE:manufacturer and model (spec A3.3); the value follows the colon.
                    gliderTypeHeader = text.split(separator: ":", maxSplits: 1).dropFirst().first
                        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
                    continue
                }
                guard text.uppercased().hasPrefix("HFDTE") else { continue }
                let value = text.dropFirst(5).drop { !$0.isNumber }
                let numbers = Array(value.prefix(6))
                guard numbers.count == 6, numbers.allSatisfy(\.isNumber), let day = Int(String(numbers[0..<2])), let month = Int(String(numbers[2..<4])),
                      let yy = Int(String(numbers[4..<6])), TimeParsing.validDate(yy < 80 ? 2000 + yy : 1900 + yy, month, day) else {
                    throw ImportError(kind: .badTime, file: file, line: reader.lineNumber, message: "HFDTE date \(Excerpt.escaped(text.utf8)) is not DDMMYY",
                                      advice: "The header date is damaged: write it as HFDTEDATE:DDMMYY")
                }
                date = TimeParsing.daysFromCivil(yy < 80 ? 2000 + yy : 1900 + yy, month, day)
            } else if kind == UInt8(ascii: "I"), line.count >= 3 {
                let count = try digits(line, 1, 2, "I record count")
                guard count >= 0 else {
                    throw ImportError(kind: .notANumber, file: file, line: reader.lineNumber, message: "I record declares \(count) extensions",
                                      advice: "The file is damaged: the I record starts with a two-digit count (00–99)")
                }
                guard line.count >= 3 + 7 * count else {
                    throw ImportError(kind: .truncated, file: file, line: reader.lineNumber, message: "I record declares \(count) extensions but is \(line.count) bytes long", advice: "The file is damaged: fix the I record")
                }
                extensions = try (0..<count).map { index throws(ImportError) in
                    let base = 3 + 7 * index
                    let start = try digits(line, base, 2, "I record start byte"), end = try digits(line, base + 2, 2, "I record end byte")
                    return Extension(start: start - 1, end: end, code: String(decoding: UnsafeBufferPointer(rebasing: line[(base + 4)..<(base + 7)]), as: UTF8.self))
                }
            } else if kind == UInt8(ascii: "B") {
                guard line.count >= 35 else {
                    throw ImportError(kind: .truncated, file: file, line: reader.lineNumber, message: "B record is \(line.count) bytes, at least 35 are needed (line cut short?)",
                                      advice: "Delete the incomplete line (often the last one of an interrupted log)")
                }
                guard let date else {
                    throw ImportError(kind: .badTime, file: file, line: reader.lineNumber, message: "B record before any HFDTE date header",
                                      advice: "IGC files need an HFDTE header before the fixes")
                }
                let secondOfDay = try digits(line, 1, 2, "hour") * 3600 + digits(line, 3, 2, "minute") * 60 + digits(line, 5, 2, "second")
                if lastSecondOfDay >= 0, secondOfDay + 43_200 < lastSecondOfDay { dayOffset += 1 }
                lastSecondOfDay = secondOfDay
                var latitude = Double(try digits(line, 7, 2, "latitude degrees")) + Double(try digits(line, 9, 5, "latitude minutes")) / 60_000
                var longitude = Double(try digits(line, 15, 3, "longitude degrees")) + Double(try digits(line, 18, 5, "longitude minutes")) / 60_000
                var hAcc: Double?, speed: Double?, track: Double?
                for e in extensions where e.end <= line.count && e.start >= 0 && e.start < e.end {
                    let width = e.end - e.start
                    switch e.code {
                    case "LAD": latitude += Double(try digits(line, e.start, width, "LAD")) / (60_000 * pow(10, Double(width)))
                    case "LOD": longitude += Double(try digits(line, e.start, width, "LOD")) / (60_000 * pow(10, Double(width)))
                    case "FXA": hAcc = Double(try digits(line, e.start, width, "FXA"))
                    case "GSP": speed = Double(try digits(line, e.start, width, "GSP")) / 3.6
                    case "TRT": track = Double(try digits(line, e.start, width, "TRT"))
                    default: break
                    }
                }
                if line[14] == UInt8(ascii: "S") { latitude = -latitude } else if line[14] != UInt8(ascii: "N") {
                    throw ImportError(kind: .notANumber, file: file, line: reader.lineNumber, message: "latitude hemisphere \(Excerpt.escaped([line[14]])) is not N or S", advice: "The B record is damaged: fix or delete the line")
                }
                if line[23] == UInt8(ascii: "W") { longitude = -longitude } else if line[23] != UInt8(ascii: "E") {
                    throw ImportError(kind: .notANumber, file: file, line: reader.lineNumber, message: "longitude hemisphere \(Excerpt.escaped([line[23]])) is not E or W", advice: "The B record is damaged: fix or delete the line")
                }
                guard line[24] == UInt8(ascii: "A") else { invalidFixes += 1; continue }
                let pressureMeters = try digits(line, 25, 5, "pressure altitude")
                let gnssMeters = try digits(line, 30, 5, "GNSS altitude")
                let epoch = Double((date + dayOffset) * 86_400 + secondOfDay)
                if sink == nil {
                    origin = epoch
                    chooseAircraftType(gliderTypeHeader: gliderTypeHeader, context)
                    sink = try context.begin(kinds: [.accelerometer, .location], originEpochSeconds: epoch)
                    context.unitMappings = [
                        "B time HHMMSS UTC + HFDTE date − first fix → t s",
                        "latitude DDMMmmm, longitude DDDMMmmm (+LAD/LOD digits) → lat, lon °",
                        "pressure altitude m (ISA, 1013.25 hPa) ÷ 0.3048 → pressure_alt_ft (00000 = none)",
                        geoid == nil ? "GNSS altitude (WGS84 ellipsoid): no geoid given, alt_m left empty" : "GNSS altitude (WGS84 ellipsoid) − EGM96 undulation → alt_m",
                        "FXA m → h_acc_m; GSP km/h ÷ 3.6 → speed_mps; TRT ° → course_deg; source = external",
                    ]
                }
                let t = epoch - origin
                guard t >= clock else {
                    throw ImportError(kind: .timeWentBackwards, file: file, line: reader.lineNumber, message: "fix time is before the previous fix's", advice: "Fixes must be in time order: fix or delete the line")
                }
                clock = t
                if pressureMeters == 0 { zeroPressure += 1 }
                let altitude = geoid.flatMap { $0(latitude, longitude) }.map { Double(gnssMeters) - $0 }
                try sink?.location(try LocationCheck.fix(
                    t: t, lat: latitude, lon: longitude, reader: reader, altitude: altitude, hAcc: hAcc, vAcc: nil, speed: speed,
                    course: track, pressureAltitudeFeet: pressureMeters == 0 ? nil : Double(pressureMeters) / Units.metersPerFoot, source: .external))
            }
        }
        if sink == nil {
            throw ImportError(kind: .noSamples, file: file, message: "has no valid B fix record", advice: "Check that the logger recorded a flight")
        }
        context.notes.append("IGC logs carry no accelerometer: accelerometer.csv is empty, so replay finds the position track but measures nothing")
        if invalidFixes > 0 { context.notes.append("\(invalidFixes) B records with validity V (no 3-D fix) were left out") }
        if zeroPressure > 0 { context.notes.append("\(zeroPressure) fixes with pressure altitude 00000 (no pressure sensor, or sea level) have no pressure_alt_ft") }
    }
}
