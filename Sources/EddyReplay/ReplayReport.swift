import EddyDetection
import EddyNavigation
import EddySensorLog
import EddySupport
import EddyVocabulary
import Foundation

/// The human-readable report of a replay (what `eddy replay` prints without `--json`).
package enum ReplayReport {
    /// At most this many minutes / tiles are listed one per line; longer flights get the tables only.
    package static let listLimit = 90

    /// The whole report, lines ending in newlines.
    package static func text(_ s: ReplaySummary) -> String {
        var out: [String] = []
        let typeOverride = s.typeDesignator != nil && s.typeDesignator != s.meta.aircraft.type
            ? " by --type\(s.meta.aircraft.type.map { ", not meta.json's \($0)" } ?? "")" : ""
        let typeText = (s.typeDesignator ?? s.meta.aircraft.type).map { "\($0)\(typeOverride), " } ?? ""
        let override = s.aircraftClass != s.meta.aircraft.aircraftClass ? " (overrides meta.json's \(s.meta.aircraft.aircraftClass.rawValue))" : ""
        out.append("Flight   \(s.flightName)  (\(typeText)\(s.aircraftClass.rawValue) class\(override))")
        if let origin = s.meta.timeOrigin { out.append("Time     t = 0 at \(origin)") } else { out.append("Time     t in Unix epoch seconds") }
        if let first = s.firstTime, let last = s.lastTime {
            out.append("Span     \(clock(first, s)) – \(clock(last, s))  (\(duration(last - first)))")
        }
        let counts = SensorFileKind.allCases.reversed().compactMap { kind -> String? in
            s.sampleCounts[kind].map { "\(grouped($0)) \(kind.fileName.dropLast(4))" }
        }
        out.append("Samples  \(counts.joined(separator: ", "))")
        if !s.skippedLines.isEmpty {
            out.append("Skipped  (lenient) " + s.skippedLines.map { "\($0.count) bad line\($0.count == 1 ? "" : "s") in \($0.file)" }.joined(separator: ", "))
            for entry in s.skippedLines { if let first = entry.first { out.append("         first: \(first.file):\(first.line ?? 0): \(first.message)") } }
        }
        let bySeverity = Severity.allCases.compactMap { severity -> String? in
            let n = s.minutes.filter { $0.severity == severity }.count
            return n > 0 ? "\(n) \(severity.name)" : nil
        }
        out.append("Events   \(s.positions.count) position change\(s.positions.count == 1 ? "" : "s"), \(s.minutes.count) minute\(s.minutes.count == 1 ? "" : "s") measured"
                   + (bySeverity.isEmpty ? "" : " (\(bySeverity.joined(separator: ", ")))") + ", \(s.tiles.count) tile\(s.tiles.count == 1 ? "" : "s")")
        if let peak = s.minutes.max(by: { $0.edrPeak < $1.edrPeak }) {
            out.append("Worst    EDR peak \(edr(peak.edrPeak)) in the minute ending \(clock(peak.t, s)) (\(peak.severity.name))")
        }
        if s.mount != .cradle { out.append("Mount    \(s.mount.rawValue) (flat is the correct orientation; never out of position by manoeuvres)") }
        noticeSection(s, into: &out)

        if !s.segments.isEmpty {
            out.append("")
            out.append("Truth segments (EDR m^(2/3) s^-1; measured = median of minute medians and peak of minute peaks,")
            out.append("over the minutes lying wholly inside the segment; severity for the \(s.aircraftClass.rawValue) class)")
            out.append(pad(["start", "end", "truth", "severity", "minutes", "median", "error", "peak", "measured", "minutes ok"],
                           [9, 9, 7, 15, 8, 7, 7, 7, 15, 10]))
            for g in s.segments {
                out.append(pad([
                    clock(g.start, s), clock(g.end, s), edr(g.truthEDR), g.truthSeverity.name, String(g.minutes),
                    g.medianEDR.map(edr) ?? "–", g.relativeError.map(percent) ?? "", g.peakEDR.map(edr) ?? "–",
                    g.measuredSeverity?.name ?? "–", g.minutes > 0 ? "\(g.minutesMatchingSeverity)/\(g.minutes)" : "",
                ], [9, 9, 7, 15, 8, 7, 7, 7, 15, 10]))
            }
        }
        if let handling = s.meta.truth?.handling, !handling.isEmpty {
            out.append("")
            out.append("Device handling (truth): " + handling.map { "\(clock($0.start, s)) – \(clock($0.end, s))" }.joined(separator: ", "))
        }

        out.append("")
        out.append("Position changes")
        if s.positions.isEmpty { out.append("  (none)") }
        for p in s.positions {
            var state = [p.inPosition ? "in position" : "NOT in position"]
            if p.horizontal { state.append("horizontal (lying flat)") }
            if p.inNoise { state.append("noisy") }
            out.append("  \(clock(p.t, s))  \(state.joined(separator: ", "))")
        }

        out.append("")
        if s.minutes.count <= listLimit {
            out.append("Minutes (t = end of minute)")
            if s.minutes.isEmpty { out.append("  (none: " + noneReason(s, forTiles: false) + ")") }
            else { out.append(pad(["end", "median", "peak", "severity", "valid s"], [11, 7, 7, 15, 7])) }
            for m in s.minutes {
                out.append(pad([clock(m.t, s), edr(m.edrMedian), edr(m.edrPeak), m.severity.name, String(m.validSeconds)], [11, 7, 7, 15, 7]))
            }
        } else {
            out.append("Minutes: \(s.minutes.count) (list with --json)")
        }

        out.append("")
        if s.tiles.count <= listLimit {
            out.append("Tiles (H3 res 5 × 1000 ft layer)")
            if s.tiles.isEmpty { out.append("  (none: " + noneReason(s, forTiles: true) + ")") }
            else { out.append(pad(["h3", "layer", "enter", "exit", "severity", "median", "peak"], [16, 6, 11, 11, 15, 7, 7])) }
            for r in s.tiles {
                out.append(pad([r.tile.h3String, String(r.tile.layer), clock(r.enterTime, s), clock(r.exitTime, s),
                                r.severity(for: s.aircraftClass).name, edr(r.edrMedian), edr(r.edrPeak)], [16, 6, 11, 11, 15, 7, 7]))
            }
        } else {
            out.append("Tiles: \(s.tiles.count) (list with --json)")
        }
        altitudeSection(s, into: &out)
        return out.joined(separator: "\n") + "\n"
    }

    /// The "Why" section: every reason less was measured, with its episodes, count and the seconds it cost.
    static func noticeSection(_ s: ReplaySummary, into out: inout [String]) {
        let totals = s.noticeTotals
        guard !totals.isEmpty else { return }
        out.append("")
        out.append("Why less was measured (seconds not measured while the reason held; reasons can overlap)")
        for total in totals {
            let episodes = total.episodes == 1 ? "" : ", \(total.episodes) episodes"
            let what = total.name == "no_location" ? " s without a tile" : " s not measured"
            out.append("  \(total.name): \(String(format: "%.0f", total.secondsCost))\(what)\(episodes): \(total.first.reason)")
        }
        for n in s.notices.prefix(20) {
            out.append("    \(clock(n.start, s)) – \(clock(n.end ?? n.start, s))  \(n.kindName) ×\(n.count)")
        }
        if s.notices.count > 20 { out.append("    (\(s.notices.count - 20) more episodes with --json)") }
    }

    /// Why no minute (or no tile) was measured: the reasons that held, else the generic explanation.
    static func noneReason(_ s: ReplaySummary, forTiles: Bool) -> String {
        let names = s.noticeTotals.filter { forTiles || $0.name != "no_location" }.map { total -> String in
            "\(total.first.reason) [\(String(format: "%.0f", total.secondsCost)) s]"
        }
        if !names.isEmpty { return names.joined(separator: "; ") }
        return forTiles ? "no crossing with enough valid seconds" : "detection was never active for a full minute"
    }

    /// The altitude section: where the layers came from, the cabin decision, the uncertainty, the warnings.
    static func altitudeSection(_ s: ReplaySummary, into out: inout [String]) {
        let a = s.altitude
        out.append("")
        out.append("Altitude (tile layers are 1,000-ft layers of pressure altitude; docs/altitude.md)")
        guard a.count > 0 else {
            out.append("  (none: no fix carried an altitude and no barometer could stand in)")
            return
        }
        let names: [AltitudeSource: String] = [
            .external: "external pressure altitude (ADS-B / AHRS)", .barometer: "barometer (unpressurised cabin)",
            .gnssFleetOffset: "GNSS + fleet offset", .gnssStandardAtmosphere: "GNSS, standard atmosphere (wide uncertainty)",
        ]
        for source in AltitudeSource.allCases {
            guard let n = a.estimatesBySource[source], n > 0 else { continue }
            out.append("  Source   \(names[source] ?? source.rawValue): \(n) fix\(n == 1 ? "" : "es") (\(percent(n, a.count)))")
        }
        if let decision = a.cabinDecision {
            out.append("  Cabin    \(decision.state.rawValue), decided at \(clock(decision.t, s))")
        } else {
            out.append("  Cabin    not decided (needs a climb or descent of 800 ft, or level flight high enough)")
        }
        out.append("  Levels   \(a.heldEstimates) fix\(a.heldEstimates == 1 ? "" : "es") held at a flight level; "
            + "\(a.uncertainEstimates) with a 90 % uncertainty beyond their layer; largest u90 \(Int(saturating: a.largestU90Feet)) ft")
        let uncertainTiles = s.tiles.filter { $0.layerUncertain == true }.count
        if uncertainTiles > 0 { out.append("  Tiles    \(uncertainTiles) of \(s.tiles.count) tile reports flagged layer-uncertain") }
        if let last = a.last {
            var line = "  Last     \(Int(saturating: last.pressureAltitudeFeet)) ft pressure altitude ± \(Int(saturating: last.pressureAltitudeUncertaintyFeet.u90)) ft (90 %)"
            if let msl = last.mslMeters { line += ", \(Int(saturating: msl)) m MSL" }
            out.append(line)
        }
        if s.warnings.isEmpty { out.append("  Warnings none") }
        for w in s.warnings.prefix(20) {
            switch w.kind {
            case .pressureJump(let hpa, let seconds, let fpm):
                out.append("  Warning  \(clock(w.t, s)) pressure changed \(String(format: "%.2f", hpa)) hPa in \(String(format: "%.1f", seconds)) s (\(Int(saturating: fpm)) ft/min: a door, pressurisation or a sensor fault)")
            case .positionJump(let meters, let seconds):
                out.append("  Warning  \(clock(w.t, s)) position jumped \(Int(saturating: meters)) m in \(String(format: "%.1f", seconds)) s")
            case .invalidInput(let reason):
                out.append("  Warning  \(clock(w.t, s)) \(reason)")
            }
        }
        if s.warnings.count > 20 { out.append("  (\(s.warnings.count - 20) more warnings with --json)") }
    }

    static func percent(_ n: Int, _ total: Int) -> String {
        String(format: "%.1f %%", 100 * Double(n) / Double(max(1, total)))
    }

    /// `t` as h:mm:ss.s since the time origin, or as a UTC clock time for epoch logs.
    static func clock(_ t: Double, _ s: ReplaySummary) -> String {
        guard t.isFinite else { return "?" }
        if s.meta.timeOrigin == nil, t > 100_000_000 {
            let seconds = Int(saturating: t, rounding: .down)
            let day = ((seconds % 86_400) + 86_400) % 86_400
            return String(format: "%02d:%02d:%02dZ", day / 3600, day / 60 % 60, day % 60)
        }
        let tenths = Int(saturating: t * 10)
        let sign = tenths < 0 ? "-" : ""
        let a = abs(tenths)
        return "\(sign)\(a / 36_000):" + two(a / 600 % 60) + ":" + two(a / 10 % 60) + ".\(a % 10)"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func duration(_ seconds: Double) -> String {
        seconds >= 3600 ? String(format: "%.2f h", seconds / 3600) : String(format: "%.1f min", seconds / 60)
    }

    static func edr(_ value: Double) -> String { String(format: "%.3f", value) }

    static func percent(_ value: Double) -> String { String(format: "%+.0f%%", value * 100) }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }

    static func pad(_ cells: [String], _ widths: [Int]) -> String {
        var line = " "
        for (cell, width) in zip(cells, widths) {
            line += " " + cell + String(repeating: " ", count: max(0, width - cell.count))
        }
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
