import Foundation
import EddyCore
import EddySensorLog

/// JSON Lines output of a replay (docs/replay.md): one object per event, then a `summary` object.
///
/// Hand-written so the bytes are fixed: keys in a fixed order, times as the shortest decimal that
/// reads back to the same double (the log's `t` values come out as they went in), EDR rounded to
/// 4 decimals, no locale, no platform-dependent formatting. Same input, same bytes.
public enum ReplayJSON {
    /// The line (without newline) for one event; tile severity is for the replay's class `viewer`.
    public static func line(for event: DetectionEvent, viewer: AircraftClass) -> String {
        var o = JSONObject()
        switch event {
        case .position(let p):
            o.string("type", "position")
            o.number("t", p.t)
            o.bool("in_position", p.inPosition)
            o.bool("horizontal", p.horizontal)
            o.bool("in_noise", p.inNoise)
        case .minute(let m):
            o.string("type", "minute")
            o.number("t", m.t)
            o.edr("edr_median", m.edrMedian)
            o.edr("edr_peak", m.edrPeak)
            o.string("severity", m.severity.name)
            o.integer("valid_seconds", m.validSeconds)
        case .tile(let r):
            o.string("type", "tile")
            o.number("t_enter", r.enterTime)
            o.number("t_exit", r.exitTime)
            o.string("h3", r.tile.h3String)
            o.integer("layer", r.tile.layer)
            o.string("severity", r.severity(for: viewer).name)
            o.edr("edr_peak", r.edrPeak)
            o.edr("edr_median", r.edrMedian)
            o.string("id", r.id.uuidString.lowercased())
        }
        return o.text
    }

    /// The closing `summary` line.
    public static func summaryLine(_ s: ReplaySummary) -> String {
        var o = JSONObject()
        o.string("type", "summary")
        o.string("flight", s.flightName)
        if let type = s.meta.aircraft.type { o.string("aircraft_type", type) }
        o.string("aircraft_class", s.aircraftClass.rawValue)
        var samples = JSONObject()
        for kind in SensorFileKind.allCases.reversed() {
            if let count = s.sampleCounts[kind] { samples.integer(String(kind.fileName.dropLast(4)), count) }
        }
        o.raw("samples", samples.text)
        if let first = s.firstTime, let last = s.lastTime {
            o.number("t_first", first)
            o.number("t_last", last)
        }
        o.integer("position_events", s.positions.count)
        o.integer("minutes", s.minutes.count)
        o.integer("tiles", s.tiles.count)
        var severities = JSONObject()
        for severity in Severity.allCases {
            severities.integer(severity.name, s.minutes.filter { $0.severity == severity }.count)
        }
        o.raw("minutes_by_severity", severities.text)
        if let peak = s.minutes.map(\.edrPeak).max() { o.edr("edr_peak", peak) }
        var skipped = JSONObject()
        for entry in s.skippedLines { skipped.integer(entry.file, entry.count) }
        o.raw("skipped_lines", skipped.text)
        if !s.segments.isEmpty {
            let segments = s.segments.map { segment -> String in
                var g = JSONObject()
                g.number("start", segment.start)
                g.number("end", segment.end)
                g.edr("truth_edr", segment.truthEDR)
                g.string("truth_severity", segment.truthSeverity.name)
                g.integer("minutes", segment.minutes)
                if let median = segment.medianEDR { g.edr("edr_median", median) } else { g.null("edr_median") }
                if let peak = segment.peakEDR { g.edr("edr_peak", peak) } else { g.null("edr_peak") }
                if let severity = segment.measuredSeverity { g.string("severity", severity.name) } else { g.null("severity") }
                g.integer("minutes_matching_severity", segment.minutesMatchingSeverity)
                return g.text
            }
            o.raw("segments", "[" + segments.joined(separator: ",") + "]")
        }
        return o.text
    }
}

/// A JSON object written key by key in call order (stable key order, shortest round-trip numbers): the JSON Lines
/// writer of `eddy replay`, with and without `--engine`.
public struct JSONObject: Sendable {
    private(set) var body = ""

    /// Creates an empty object.
    public init() {}

    /// The object's text.
    public var text: String { "{" + body + "}" }

    private mutating func key(_ name: String) {
        if !body.isEmpty { body += "," }
        body += "\"" + name + "\":"
    }

    /// Adds a string.
    public mutating func string(_ name: String, _ value: String) {
        key(name)
        body += JSONText.quoted(value)
    }

    /// Adds a number (shortest decimal that reads back to the same double).
    public mutating func number(_ name: String, _ value: Double) {
        key(name)
        body += Self.number(value)
    }

    /// Adds an EDR rounded to 4 decimals.
    public mutating func edr(_ name: String, _ value: Double) { fixed(name, value, decimals: 4) }

    /// Adds a number rounded to `decimals` decimals.
    public mutating func fixed(_ name: String, _ value: Double, decimals: Int) {
        let scale = pow(10, Double(decimals))
        number(name, (value * scale).rounded() / scale)
    }

    /// Adds an integer.
    public mutating func integer(_ name: String, _ value: Int) {
        key(name)
        body += String(value)
    }

    /// Adds a Boolean.
    public mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        body += value ? "true" : "false"
    }

    /// Adds a null.
    public mutating func null(_ name: String) {
        key(name)
        body += "null"
    }

    /// Adds ready-made JSON (an array or object) as is.
    public mutating func raw(_ name: String, _ json: String) {
        key(name)
        body += json
    }

    /// Shortest round-trip decimal; non-finite numbers (never expected) become null.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == 0 { return "0.0" }
        return value.description
    }
}
