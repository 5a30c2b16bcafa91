package import EddyDetection
import EddyNavigation
import EddySensorLog
package import EddySupport
package import EddyVocabulary
import Foundation

/// JSON Lines output of a replay (docs/replay.md): one object per event, then a `summary` object.
///
/// Written with the JSON writer's `JSONObject` so the bytes are fixed: keys in a fixed order, times as the shortest decimal
/// that reads back to the same double (the log's `t` values come out as they went in; whole numbers as `3.0`), EDR
/// rounded to 4 decimals, no locale, no platform-dependent formatting (docs/json.md). Same input, same bytes.
package enum ReplayJSON {
    /// The line (without newline) for one event; tile severity is for the replay's class `viewer`. Altitude events
    /// are written (as `track` lines, at most one per second of `t`) only when `track` is set; nil = no line.
    package static func line(for event: DetectionEvent, viewer: AircraftClass, track: Bool = false) -> String? {
        var o = JSONObject.replayLine()
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
            if let source = r.altitudeSource { o.string("altitude_source", source.rawValue) }
            if let u90 = r.altitudeU90Feet { o.fixed("altitude_u90_ft", u90, decimals: 1) }
            if let uncertain = r.layerUncertain, uncertain { o.bool("layer_uncertain", true) }
        case .altitude(let a):
            guard track else { return nil }
            o.string("type", "track")
            o.number("t", a.t)
            if let lat = a.latitudeDegrees, let lon = a.longitudeDegrees {
                o.number("lat", (lat * 1e7).rounded() / 1e7)
                o.number("lon", (lon * 1e7).rounded() / 1e7)
            }
            o.number("pressure_alt_ft", (a.pressureAltitudeFeet * 10).rounded() / 10)
            o.number("pressure_alt_u90_ft", (a.pressureAltitudeUncertaintyFeet.u90 * 10).rounded() / 10)
            o.integer("layer", a.layer)
            if let p = a.flightLevelProbability { o.number("level_p", (p * 1000).rounded() / 1000) }
            if let msl = a.mslMeters, let u = a.mslUncertaintyMeters {
                o.number("msl_m", (msl * 100).rounded() / 100)
                if let n = a.geoidUndulationMeters { o.number("hae_m", ((msl + n) * 100).rounded() / 100) }
                if let hat = a.heightAboveTerrainMeters { o.number("hat_m", (hat * 100).rounded() / 100) }
                o.number("u68_m", (u.u68 * 100).rounded() / 100)
                o.number("u90_m", (u.u90 * 100).rounded() / 100)
            }
            if let vs = a.verticalSpeedFeetPerMinute { o.number("vs_fpm", vs.rounded()) }
            o.string("altitude_source", a.source.rawValue)
        case .warning(let w):
            o.string("type", "warning")
            o.number("t", w.t)
            switch w.kind {
            case .pressureJump(let hpa, let seconds, let fpm):
                o.string("kind", "pressure_jump")
                o.number("hpa", (hpa * 100).rounded() / 100)
                o.number("seconds", seconds)
                o.number("implied_fpm", fpm.rounded())
            case .positionJump(let meters, let seconds):
                o.string("kind", "position_jump")
                o.number("meters", meters.rounded())
                o.number("seconds", seconds)
            case .invalidInput(let reason):
                o.string("kind", "invalid_input")
                o.string("reason", reason)
            }
        case .notice(let n):
            o.string("type", "notice")
            noticeFields(n, into: &o)
        }
        return o.text
    }

    /// The fields of a notice (event line and summary list).
    static func noticeFields(_ n: MeasurementNotice, into o: inout JSONObject) {
        o.string("phase", n.phase.rawValue)
        o.string("kind", n.kindName)
        o.number("start", n.start)
        if let end = n.end { o.number("end", end) }
        o.integer("count", n.count)
        o.number("seconds_cost", n.secondsCost)
        switch n.kind {
        case .sampleRateBelowMinimum(let rate, let minimum):
            o.number("rate_hz", (rate * 1000).rounded() / 1000)
            o.number("minimum_hz", minimum)
        case .deviceFlat(let mount): o.string("mount", mount.rawValue)
        case .gyroOffset(let b):
            o.raw("offset_deg_s", JSONObject.array([b.x, b.y, b.z].map { String(format: "%.3f", $0) }))
        case .noLocation: break
        case .unitsLookWrong(.accelerationInMetersPerSecondSquared(let m)), .unitsLookWrong(.accelerationInMilliG(let m)):
            o.number("magnitude", (m * 1000).rounded() / 1000)
        case .unitsLookWrong(.timeInMilliseconds(let step)): o.number("step", (step * 1000).rounded() / 1000)
        case .timeGap(let longest): o.number("longest_s", (longest * 1000).rounded() / 1000)
        case .manoeuvre(let n): o.number("load_factor_g", (n * 1000).rounded() / 1000)
        case .groundRoll(let speed, let rotation):
            o.number("speed_kt", (speed * 10).rounded() / 10)
            o.number("rotation_kt", rotation)
        case .groundVibration(let share, let split):
            o.number("low_share", (share * 1000).rounded() / 1000)
            o.number("split_hz", split)
        case .invalidValues(let source): o.string("source", source.rawValue)
        case .lateSamples(let source, let lag):
            o.string("source", source.rawValue)
            o.number("lag_s", (lag * 1000).rounded() / 1000)
        case .timeStampsWrong(let source, let problem):
            o.string("source", source.rawValue)
            switch problem {
            case .beforeYear2010(let guess): o.string("looks_like", guess.rawValue)
            case .aheadOfHostClock(let seconds), .offsetFromLocation(let seconds): o.number("offset_s", (seconds * 1000).rounded() / 1000)
            }
        }
        o.string("reason", n.reason)
    }

    /// The closing `summary` line.
    package static func summaryLine(_ s: ReplaySummary) -> String {
        var o = JSONObject.replayLine()
        o.string("type", "summary")
        o.string("flight", s.flightName)
        if let type = s.typeDesignator ?? s.meta.aircraft.type { o.string("aircraft_type", type) }
        o.string("aircraft_class", s.aircraftClass.rawValue)
        var samples = JSONObject.replayLine()
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
        var severities = JSONObject.replayLine()
        for severity in Severity.allCases {
            severities.integer(severity.name, s.minutes.filter { $0.severity == severity }.count)
        }
        o.raw("minutes_by_severity", severities.text)
        if let peak = s.minutes.map(\.edrPeak).max() { o.edr("edr_peak", peak) }
        var skipped = JSONObject.replayLine()
        for entry in s.skippedLines { skipped.integer(entry.file, entry.count) }
        o.raw("skipped_lines", skipped.text)
        // Only when there is something to say, so replays of flights without notices keep their bytes.
        if s.mount != .cradle { o.string("mount", s.mount.rawValue) }
        if !s.notices.isEmpty {
            o.raw("notices", JSONObject.array(s.notices.map { n in
                var g = JSONObject.replayLine()
                noticeFields(n, into: &g)
                return g.text
            }))
            var cost = JSONObject.replayLine()
            for total in s.noticeTotals { cost.number(total.name, total.secondsCost) }
            o.raw("seconds_not_measured_by_reason", cost.text)
        }
        if !s.segments.isEmpty {
            let segments = s.segments.map { segment -> String in
                var g = JSONObject.replayLine()
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
            o.raw("segments", JSONObject.array(segments))
        }
        return o.text
    }
}

extension JSONObject {
    /// An object of the replay JSON Lines: whole numbers keep their fraction (`3.0`, `0.0`), as these bytes always had.
    package static func replayLine() -> JSONObject { JSONObject(wholeNumbers: .withFraction) }

    /// Adds an EDR rounded to 4 decimals.
    package mutating func edr(_ name: String, _ value: Double) { fixed(name, value, decimals: 4) }
}
