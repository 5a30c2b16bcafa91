import EddyCore

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
    package static func duration(_ text: String, option: String) throws -> Double {
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
    package static func segments(_ text: String) throws -> [TurbulenceSegment] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.isEmpty else { throw SimulationSpecError(option: "--segments", message: "empty (write EDR:duration pairs, e.g. 0:10m,0.2:5m)") }
        return try parts.map { part in
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
    package static func repeated(_ pattern: [TurbulenceSegment], hours: Double) throws -> [TurbulenceSegment] {
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

    /// `start:duration,…` (each a duration) → handling intervals, e.g. `1200:15` or `20m:15s,40m:10s`.
    package static func handling(_ texts: [String]) throws -> [HandlingInterval] {
        try texts.flatMap { $0.split(separator: ",") }.map { part in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2 else {
                throw SimulationSpecError(option: "--handling", message: "\"\(part)\" is not start:duration (e.g. 1200:15 or 20m:15s)")
            }
            let start = try duration(String(fields[0]), option: "--handling")
            let length = try duration(String(fields[1]), option: "--handling")
            guard length > 0 else { throw SimulationSpecError(option: "--handling", message: "duration in \"\(part)\" must be more than 0") }
            return HandlingInterval(start: start, end: start + length)
        }.sorted { $0.start < $1.start }
    }

    /// `start:duration:bank[:rollRate]` → coordinated turns, e.g. `600:120:25` (bank degrees, + = right).
    package static func turns(_ texts: [String]) throws -> [CoordinatedTurn] {
        try texts.flatMap { $0.split(separator: ",") }.map { part in
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
