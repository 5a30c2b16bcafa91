import Foundation

/// Where the simulated aircraft truly was at one second (a row of `truth-track.csv`).
public struct TruthTrackPoint: Sendable, Equatable {
    /// Time, seconds (the log's time base).
    public var t: Double
    /// True latitude, degrees.
    public var latitudeDegrees: Double
    /// True longitude, degrees.
    public var longitudeDegrees: Double
    /// True pressure altitude (flight level × 100), feet.
    public var pressureAltitudeFeet: Double
    /// True altitude above mean sea level (geopotential), metres.
    public var mslAltitudeMeters: Double
    /// Rate of pressure altitude, feet per minute (+ = climbing).
    public var verticalSpeedFeetPerMinute: Double
    /// Rate of MSL altitude, m/s.
    public var mslVerticalSpeedMetersPerSecond: Double
    /// Cabin pressure altitude, feet; nil when the cabin is not pressurised.
    public var cabinPressureAltitudeFeet: Double?
    /// Outside static pressure, hPa.
    public var staticPressureHectopascals: Double
    /// Ground speed, m/s.
    public var groundSpeedMetersPerSecond: Double
    /// True track, degrees.
    public var courseDegrees: Double
    /// Whether the aircraft is on the ground (at the field elevation).
    public var onGround: Bool
    /// Whether a GNSS multipath excursion is corrupting this second's fix.
    public var multipath: Bool

    /// Creates a point.
    public init(
        t: Double, latitudeDegrees: Double, longitudeDegrees: Double, pressureAltitudeFeet: Double, mslAltitudeMeters: Double,
        verticalSpeedFeetPerMinute: Double, mslVerticalSpeedMetersPerSecond: Double, cabinPressureAltitudeFeet: Double?,
        staticPressureHectopascals: Double, groundSpeedMetersPerSecond: Double, courseDegrees: Double, onGround: Bool, multipath: Bool
    ) {
        self.t = t; self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        self.pressureAltitudeFeet = pressureAltitudeFeet; self.mslAltitudeMeters = mslAltitudeMeters
        self.verticalSpeedFeetPerMinute = verticalSpeedFeetPerMinute; self.mslVerticalSpeedMetersPerSecond = mslVerticalSpeedMetersPerSecond
        self.cabinPressureAltitudeFeet = cabinPressureAltitudeFeet; self.staticPressureHectopascals = staticPressureHectopascals
        self.groundSpeedMetersPerSecond = groundSpeedMetersPerSecond; self.courseDegrees = courseDegrees
        self.onGround = onGround; self.multipath = multipath
    }
}

/// The conditions of a simulated flight that hold for all of it (the first line of `truth-track.csv`).
package struct TruthConditions: Sendable, Equatable {
    /// ISA deviation, °C.
    package var isaDeviationCelsius: Double
    /// QNH, hPa.
    package var qnhHectopascals: Double
    /// Absolute bias of the barometer, hPa (added to every reading).
    package var barometerBiasHectopascals: Double
    /// Field elevation above MSL, feet; nil when the scenario has no ground.
    package var fieldElevationFeet: Double?
    /// Whether the cabin is pressurised (the barometer reads cabin pressure).
    package var pressurizedCabin: Bool
    /// The GNSS error profile.
    package var gnssProfile: GNSSProfile
    /// Whether the fixes are ADS-B own-ship reports carrying pressure altitude.
    package var adsb: Bool

    /// Creates the conditions.
    package init(
        isaDeviationCelsius: Double, qnhHectopascals: Double, barometerBiasHectopascals: Double, fieldElevationFeet: Double?,
        pressurizedCabin: Bool, gnssProfile: GNSSProfile, adsb: Bool
    ) {
        self.isaDeviationCelsius = isaDeviationCelsius; self.qnhHectopascals = qnhHectopascals
        self.barometerBiasHectopascals = barometerBiasHectopascals; self.fieldElevationFeet = fieldElevationFeet
        self.pressurizedCabin = pressurizedCabin; self.gnssProfile = gnssProfile; self.adsb = adsb
    }
}

/// A bad `truth-track.csv`: the file, the line, what is wrong and what to do.
package struct TruthTrackError: Error, CustomStringConvertible, Equatable, Sendable {
    /// File path or name.
    package var file: String
    /// 1-based line (the conditions line is 1, the header 2), when the problem is on a line.
    package var line: Int?
    /// What is wrong.
    package var message: String
    /// What to do.
    package var advice: String
    /// `file:line: message. advice`
    package var description: String {
        "\(line.map { "\(file):\($0)" } ?? file): \(message). \(advice)"
    }
}

/// A simulated flight's true track, one point per second, and its conditions: written as `truth-track.csv`
/// (docs/simulation.md §Truth track) when the scenario uses any altitude feature.
package struct TruthTrack: Sendable, Equatable {
    /// The file's name inside a flight directory.
    package static let fileName = "truth-track.csv"
    /// The first token of the conditions line, and the format version after it.
    package static let magic = "# eddy-truth-track 1"
    /// The CSV header row.
    package static let header = "t,lat,lon,pressure_alt_ft,msl_m,vs_fpm,msl_vs_mps,cabin_pressure_alt_ft,static_pressure_hpa,ground_speed_mps,course_deg,on_ground,multipath"

    /// Conditions of the whole flight.
    package var conditions: TruthConditions
    /// One point per second.
    package var points: [TruthTrackPoint]

    /// Creates a track.
    package init(conditions: TruthConditions, points: [TruthTrackPoint]) {
        self.conditions = conditions; self.points = points
    }

    /// The conditions line and the header, each ending in a newline.
    package static func preamble(_ c: TruthConditions) -> String {
        "\(magic) isa_deviation_c=\(c.isaDeviationCelsius) qnh_hpa=\(c.qnhHectopascals) baro_bias_hpa=\(c.barometerBiasHectopascals) "
            + "field_elevation_ft=\(c.fieldElevationFeet.map { "\($0)" } ?? "") pressurized=\(c.pressurizedCabin ? 1 : 0) "
            + "gnss=\(c.gnssProfile.rawValue) adsb=\(c.adsb ? 1 : 0)\n\(header)\n"
    }

    /// One CSV row (shortest round-trip numbers, so reading gives back the same doubles), ending in a newline.
    package static func row(_ p: TruthTrackPoint) -> String {
        "\(p.t),\(p.latitudeDegrees),\(p.longitudeDegrees),\(p.pressureAltitudeFeet),\(p.mslAltitudeMeters),"
            + "\(p.verticalSpeedFeetPerMinute),\(p.mslVerticalSpeedMetersPerSecond),\(p.cabinPressureAltitudeFeet.map { "\($0)" } ?? ""),"
            + "\(p.staticPressureHectopascals),\(p.groundSpeedMetersPerSecond),\(p.courseDegrees),\(p.onGround ? 1 : 0),\(p.multipath ? 1 : 0)\n"
    }

    /// The whole file's text.
    package func csvText() -> String {
        var text = Self.preamble(conditions)
        for point in points { text += Self.row(point) }
        return text
    }

    /// Reads `truth-track.csv` from a flight directory.
    package static func read(directory: String) throws(TruthTrackError) -> TruthTrack {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else {
            throw TruthTrackError(file: path, line: nil, message: "missing",
                                  advice: "Only flights simulated with an altitude feature (--isa-deviation, --qnh, --profile, --gnss, --adsb, …) have one")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw TruthTrackError(file: path, line: nil, message: "cannot be read (\(error.localizedDescription))", advice: "Check the file's permissions")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw TruthTrackError(file: path, line: nil, message: "is not UTF-8 text", advice: "Regenerate it with eddy simulate")
        }
        return try parse(text, file: fileName)
    }

    /// Parses the text of a `truth-track.csv`; `file` names it in errors.
    package static func parse(_ text: String, file: String = fileName) throws(TruthTrackError) -> TruthTrack {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func fail(_ line: Int?, _ message: String, _ advice: String = "Regenerate the file with eddy simulate") -> TruthTrackError {
            TruthTrackError(file: file, line: line, message: message, advice: advice)
        }
        guard let first = lines.first, first.hasPrefix(magic + " ") || first == magic else {
            throw fail(1, "does not start with \"\(magic)\"", "This is not an Eddy truth track (or a newer version)")
        }
        var values: [String: String] = [:]
        for pair in first.dropFirst(magic.count).split(separator: " ") {
            guard let equals = pair.firstIndex(of: "=") else { throw fail(1, "\"\(pair)\" is not key=value") }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        func number(_ key: String, optional: Bool = false) throws(TruthTrackError) -> Double? {
            guard let text = values[key] else { throw fail(1, "the conditions line lacks \(key)=") }
            if text.isEmpty, optional { return nil }
            guard let value = Double(text), value.isFinite else { throw fail(1, "\(key)=\"\(text)\" is not a finite number") }
            return value
        }
        func flag(_ key: String) throws(TruthTrackError) -> Bool {
            guard let text = values[key] else { throw fail(1, "the conditions line lacks \(key)=") }
            guard text == "0" || text == "1" else { throw fail(1, "\(key)=\"\(text)\" must be 0 or 1") }
            return text == "1"
        }
        guard let gnssText = values["gnss"], let gnss = GNSSProfile(rawValue: gnssText) else {
            throw fail(1, "gnss=\"\(values["gnss"] ?? "")\" is not ideal, phone or poor")
        }
        let conditions = TruthConditions(
            isaDeviationCelsius: try number("isa_deviation_c") ?? 0, qnhHectopascals: try number("qnh_hpa") ?? 0,
            barometerBiasHectopascals: try number("baro_bias_hpa") ?? 0, fieldElevationFeet: try number("field_elevation_ft", optional: true),
            pressurizedCabin: try flag("pressurized"), gnssProfile: gnss, adsb: try flag("adsb"))
        guard lines.count > 1, lines[1] == Substring(header) else {
            throw fail(2, "the header is not \"\(header)\"")
        }
        var points: [TruthTrackPoint] = []
        points.reserveCapacity(max(0, lines.count - 2))
        let columns = header.split(separator: ",").count
        for index in 2..<lines.count {
            let line = lines[index]
            if line.isEmpty && index == lines.count - 1 { break }   // the final newline
            let lineNumber = index + 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == columns else {
                throw fail(lineNumber, "has \(fields.count) fields, the header has \(columns)", "A truncated file? Regenerate it")
            }
            func value(_ i: Int) throws(TruthTrackError) -> Double {
                guard let v = Double(fields[i]), v.isFinite else {
                    throw fail(lineNumber, "column \(i + 1) \"\(fields[i])\" is not a finite number")
                }
                return v
            }
            func bit(_ i: Int) throws(TruthTrackError) -> Bool {
                guard fields[i] == "0" || fields[i] == "1" else { throw fail(lineNumber, "column \(i + 1) \"\(fields[i])\" must be 0 or 1") }
                return fields[i] == "1"
            }
            let point = TruthTrackPoint(
                t: try value(0), latitudeDegrees: try value(1), longitudeDegrees: try value(2), pressureAltitudeFeet: try value(3),
                mslAltitudeMeters: try value(4), verticalSpeedFeetPerMinute: try value(5), mslVerticalSpeedMetersPerSecond: try value(6),
                cabinPressureAltitudeFeet: fields[7].isEmpty ? nil : try value(7), staticPressureHectopascals: try value(8),
                groundSpeedMetersPerSecond: try value(9), courseDegrees: try value(10), onGround: try bit(11), multipath: try bit(12))
            guard abs(point.latitudeDegrees) <= 90, abs(point.longitudeDegrees) <= 180 else {
                throw fail(lineNumber, "lat \(point.latitudeDegrees) / lon \(point.longitudeDegrees) out of range")
            }
            if let previous = points.last, point.t <= previous.t {
                throw fail(lineNumber, "t \(point.t) is not after the previous line's \(previous.t)")
            }
            points.append(point)
        }
        return TruthTrack(conditions: conditions, points: points)
    }

    /// The point at or just before `t` (nil before the first).
    package func point(at t: Double) -> TruthTrackPoint? {
        var low = 0, high = points.count
        while low < high {
            let mid = (low + high) / 2
            if points[mid].t <= t { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : points[low - 1]
    }
}

/// Streams a truth track into `truth-track.csv` (bounded memory for any flight length).
package final class TruthTrackFileWriter {
    private let handle: FileHandle
    private let path: String

    /// Creates (or replaces) `truth-track.csv` in `directory` and writes its conditions line and header.
    package init(directory: String, conditions: TruthConditions) throws(TruthTrackError) {
        path = directory.hasSuffix("/") ? directory + TruthTrack.fileName : directory + "/" + TruthTrack.fileName
        guard FileManager.default.createFile(atPath: path, contents: Data(TruthTrack.preamble(conditions).utf8)),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw TruthTrackError(file: path, line: nil, message: "cannot be created", advice: "Check that the directory exists and is writable")
        }
        self.handle = handle
        do { _ = try handle.seekToEnd() } catch {
            throw TruthTrackError(file: path, line: nil, message: "cannot be opened for appending (\(error.localizedDescription))", advice: "Check the file system")
        }
    }

    /// Appends rows.
    package func append(_ points: [TruthTrackPoint]) throws(TruthTrackError) {
        guard !points.isEmpty else { return }
        var text = ""
        for point in points { text += TruthTrack.row(point) }
        do { try handle.write(contentsOf: Data(text.utf8)) } catch {
            throw TruthTrackError(file: path, line: nil, message: "write failed (\(error.localizedDescription))", advice: "Check free disk space")
        }
    }

    /// Closes the file.
    package func finish() throws(TruthTrackError) {
        do { try handle.close() } catch {
            throw TruthTrackError(file: path, line: nil, message: "close failed (\(error.localizedDescription))", advice: "Check free disk space")
        }
    }
}
