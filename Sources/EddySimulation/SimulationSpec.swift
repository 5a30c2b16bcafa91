import Foundation

/// A bad `eddy simulate` option value: says which option, what was given and what is expected.
package struct SimulationSpecError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The option, e.g. `--segments`.
    package var option: String
    /// What is wrong and what to write instead.
    package var message: String
    /// Creates an error.
    package init(option: String, message: String) { self.option = option; self.message = message }
    /// `--segments: "0.2:5x" …`
    package var description: String { "\(option): \(message)" }
}

/// Parsers for the textual `eddy simulate` options (kept here, out of the CLI, so tests reach them).
package enum SimulationSpec {
    /// A duration: a number with an optional unit `s` (default), `m` or `h`: `90`, `90s`, `10m`, `1.5h`.
    package static func duration(_ text: String, option: String) throws(SimulationSpecError) -> Double {
        let trimmed = text.trimmingBlanksAndNewlines()
        var number = Substring(trimmed)
        var factor = 1.0
        if let last = number.last, "smh".contains(last) {
            factor = last == "s" ? 1 : last == "m" ? 60 : 3600
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value >= 0 else {
            throw SimulationSpecError(option: option, message: "\"\(text)\" is not a duration (write 90, 90s, 10m or 1.5h)")
        }
        return value * factor
    }

    /// `EDR:duration,…` → segments, e.g. `0:10m,0.2:5m,0:5m,0.45:5m`.
    package static func segments(_ text: String) throws(SimulationSpecError) -> [TurbulenceSegment] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.isEmpty else { throw SimulationSpecError(option: "--segments", message: "empty (write EDR:duration pairs, e.g. 0:10m,0.2:5m)") }
        return try parts.map { (part) throws(SimulationSpecError) in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2 else {
                throw SimulationSpecError(option: "--segments", message: "\"\(part)\" is not EDR:duration (e.g. 0.2:5m)")
            }
            guard let edr = Double(fields[0].trimmingBlanksAndNewlines()), edr.isFinite, edr >= 0, edr <= 2 else {
                throw SimulationSpecError(option: "--segments", message: "EDR \"\(fields[0])\" in \"\(part)\" must be a number from 0 to 2 m^(2/3) s^-1")
            }
            let seconds = try duration(String(fields[1]), option: "--segments")
            guard seconds > 0 else { throw SimulationSpecError(option: "--segments", message: "duration in \"\(part)\" must be more than 0") }
            return TurbulenceSegment(edr: edr, durationSeconds: seconds)
        }
    }

    /// Repeats the segment pattern until it lasts `hours` (the last one cut to fit).
    package static func repeated(_ pattern: [TurbulenceSegment], hours: Double) throws(SimulationSpecError) -> [TurbulenceSegment] {
        guard hours.isFinite, hours > 0, hours <= 48 else { throw SimulationSpecError(option: "--hours", message: "\(hours) must be more than 0 and at most 48") }
        let total = hours * 3600
        var result: [TurbulenceSegment] = []
        var elapsed = 0.0
        while elapsed < total - 1e-9 {
            for segment in pattern where elapsed < total - 1e-9 {
                let length = min(segment.durationSeconds, total - elapsed)
                result.append(TurbulenceSegment(edr: segment.edr, durationSeconds: length))
                elapsed += length
            }
        }
        return result
    }

    /// `start:duration[:kind],…` (each a duration; kind burst, slow, fast or slide, default burst) → handling
    /// intervals, e.g. `1200:15`, `20m:15s:slow,40m:3s:slide`.
    package static func handling(_ texts: [String]) throws(SimulationSpecError) -> [HandlingInterval] {
        try texts.flatMap { $0.split(separator: ",") }.map { (part) throws(SimulationSpecError) in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2 || fields.count == 3 else {
                throw SimulationSpecError(option: "--handling", message: "\"\(part)\" is not start:duration[:kind] (e.g. 1200:15 or 20m:15s:slow)")
            }
            let start = try duration(String(fields[0]), option: "--handling")
            let length = try duration(String(fields[1]), option: "--handling")
            guard length > 0 else { throw SimulationSpecError(option: "--handling", message: "duration in \"\(part)\" must be more than 0") }
            var kind = HandlingKind.burst
            if fields.count == 3 {
                guard let parsed = HandlingKind(rawValue: fields[2].lowercased()) else {
                    throw SimulationSpecError(option: "--handling", message: "kind \"\(fields[2])\" in \"\(part)\" must be burst, slow, fast or slide")
                }
                kind = parsed
            }
            return HandlingInterval(start: start, end: start + length, kind: kind)
        }.sorted { $0.start < $1.start }
    }

    /// `frequency:milli-g` → a rattling cradle's vibration, e.g. `30:25` (30 Hz, 25 mg peak); 1–200 Hz, 0–500 mg.
    package static func vibration(_ text: String) throws(SimulationSpecError) -> CradleVibration {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 2 else {
            throw SimulationSpecError(option: "--vibration", message: "\"\(text)\" is not frequency:milli-g (e.g. 30:25 for 30 Hz at 25 mg)")
        }
        let hertz = try number(fields[0], option: "--vibration", range: 1...200, unit: "Hz")
        let milliG = try number(fields[1], option: "--vibration", range: 0...500, unit: "mg")
        return CradleVibration(frequencyHz: hertz, amplitudeG: milliG / 1000)
    }

    /// `start:duration:bank[:rollRate]` → coordinated turns, e.g. `600:120:25` (bank degrees, + = right).
    package static func turns(_ texts: [String]) throws(SimulationSpecError) -> [CoordinatedTurn] {
        try texts.flatMap { $0.split(separator: ",") }.map { (part) throws(SimulationSpecError) in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 || fields.count == 4 else {
                throw SimulationSpecError(option: "--turn", message: "\"\(part)\" is not start:duration:bank[:rollRate] (e.g. 600:2m:25)")
            }
            let start = try duration(fields[0], option: "--turn")
            let length = try duration(fields[1], option: "--turn")
            guard let bank = Double(fields[2]), bank.isFinite, abs(bank) <= 60 else {
                throw SimulationSpecError(option: "--turn", message: "bank \"\(fields[2])\" in \"\(part)\" must be degrees from -60 to 60")
            }
            var rate = 5.0
            if fields.count == 4 {
                guard let r = Double(fields[3]), r.isFinite, r > 0, r <= 30 else {
                    throw SimulationSpecError(option: "--turn", message: "roll rate \"\(fields[3])\" in \"\(part)\" must be 0 to 30 degrees per second")
                }
                rate = r
            }
            guard length > 0 else { throw SimulationSpecError(option: "--turn", message: "duration in \"\(part)\" must be more than 0") }
            return CoordinatedTurn(start: start, durationSeconds: length, bankDegrees: bank, rollRateDegreesPerSecond: rate)
        }
    }

    /// `time:altitude,…` → an altitude profile, e.g. `0:gnd,25m:35000,60m:35000,90m:gnd` (time a duration,
    /// altitude pressure-altitude feet or `gnd` for on the ground at the field). Times must increase; the
    /// vertical speed between two points must be at most `maximumVerticalSpeedFeetPerMinute`.
    package static func profile(_ text: String) throws(SimulationSpecError) -> [AltitudeWaypoint] {
        let option = "--profile"
        guard !text.isEmpty else {
            throw SimulationSpecError(option: option, message: "empty (write time:altitude-ft pairs, e.g. 0:1500,25m:35000,60m:35000)")
        }
        var waypoints: [AltitudeWaypoint] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2 else {
                throw SimulationSpecError(option: option, message: "\"\(part)\" is not time:altitude (e.g. 25m:35000 or 0:gnd)")
            }
            let time = try duration(String(fields[0]), option: option)
            let altitudeText = fields[1].trimmingBlanksAndNewlines().lowercased()
            var altitude: Double?
            if altitudeText != "gnd" {
                guard let value = Double(altitudeText), value.isFinite, (-1_000...60_000).contains(value) else {
                    throw SimulationSpecError(option: option, message: "altitude \"\(fields[1])\" in \"\(part)\" must be pressure-altitude feet from -1,000 to 60,000, or gnd")
                }
                altitude = value
            }
            if let previous = waypoints.last, time <= previous.timeSeconds {
                throw SimulationSpecError(option: option, message: "time in \"\(part)\" is not after the previous point's \(previous.timeSeconds) s")
            }
            waypoints.append(AltitudeWaypoint(timeSeconds: time, pressureAltitudeFeet: altitude))
        }
        return waypoints
    }

    /// The steepest climb or descent a profile may ask for, feet per minute (an airliner climbs at ≤ 4,000–6,000).
    package static let maximumVerticalSpeedFeetPerMinute = 12_000.0

    /// Checks a profile against the day's ground and the vertical-speed limit: no point below the field's
    /// pressure altitude (write `gnd` for the ground), no leg steeper than `maximumVerticalSpeedFeetPerMinute`.
    package static func checkProfile(
        _ waypoints: [AltitudeWaypoint], fieldElevationFeet: Double?, atmosphere: SimulatedAtmosphere
    ) throws(SimulationSpecError) {
        let groundFeet = atmosphere.pressureAltitudeFeet(mslAltitudeMeters: (fieldElevationFeet ?? 0) * 0.3048)
        var previous: (t: Double, feet: Double)?
        for waypoint in waypoints {
            let feet = waypoint.pressureAltitudeFeet ?? groundFeet
            if fieldElevationFeet != nil, let given = waypoint.pressureAltitudeFeet, given < groundFeet - 0.5 {
                throw SimulationSpecError(
                    option: "--profile",
                    message: "\(given) ft at \(waypoint.timeSeconds) s is below the field (pressure altitude \(String(format: "%.0f", groundFeet)) ft today); write gnd for the ground")
            }
            if let previous {
                let rate = abs(feet - previous.feet) / (waypoint.timeSeconds - previous.t) * 60
                if rate > maximumVerticalSpeedFeetPerMinute {
                    throw SimulationSpecError(
                        option: "--profile",
                        message: "\(String(format: "%.0f", rate)) ft/min from \(previous.t) s to \(waypoint.timeSeconds) s is steeper than \(String(format: "%.0f", maximumVerticalSpeedFeetPerMinute)) ft/min")
                }
            }
            previous = (waypoint.timeSeconds, feet)
        }
    }

    /// A number within a range, or an error naming the option, the value and the range with its unit.
    package static func number(_ text: String, option: String, range: ClosedRange<Double>, unit: String) throws(SimulationSpecError) -> Double {
        guard let value = Double(text.trimmingBlanksAndNewlines()), value.isFinite, range.contains(value) else {
            throw SimulationSpecError(option: option, message: "\"\(text)\" must be a number from \(range.lowerBound) to \(range.upperBound) \(unit)")
        }
        return value
    }

    /// `ideal`, `phone` or `poor`.
    package static func gnssProfile(_ text: String) throws(SimulationSpecError) -> GNSSProfile {
        guard let profile = GNSSProfile(rawValue: text.trimmingBlanksAndNewlines().lowercased()) else {
            throw SimulationSpecError(option: "--gnss", message: "\"\(text)\" must be ideal, phone or poor")
        }
        return profile
    }

    /// `yes` / `no` (also `true` / `false`, `1` / `0`).
    package static func yesNo(_ text: String, option: String) throws(SimulationSpecError) -> Bool {
        switch text.trimmingBlanksAndNewlines().lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw SimulationSpecError(option: option, message: "\"\(text)\" must be yes or no")
        }
    }

    /// `random` (uniform ±1 hPa from the seed, a BMP280's absolute accuracy) or a bias in hPa (−10…10).
    package static func barometerBias(_ text: String, seed: UInt64) throws(SimulationSpecError) -> Double {
        if text.trimmingBlanksAndNewlines().lowercased() == "random" { return FlightScenario.randomBarometerBiasHectopascals(seed: seed) }
        guard let value = Double(text.trimmingBlanksAndNewlines()), value.isFinite, (-10...10).contains(value) else {
            throw SimulationSpecError(option: "--baro-bias", message: "\"\(text)\" must be random or a number from -10 to 10 hPa")
        }
        return value
    }
}

extension StringProtocol {
    /// The text without surrounding spaces, tabs and newlines.
    func trimmingBlanksAndNewlines() -> String {
        var sub = Substring(self)
        while let c = sub.first, c == " " || c == "\t" || c == "\n" { sub.removeFirst() }
        while let c = sub.last, c == " " || c == "\t" || c == "\n" { sub.removeLast() }
        return String(sub)
    }
}
