#if Tools
import Eddy
import EddyAlerts
import EddyDetection
import EddyNavigation
import EddyReplay
import EddyStore
import EddySupport
import EddyVocabulary
import Foundation
import Synchronization

/// Facts for the closing summary of an engine replay.
struct EngineReplaySummary {
    /// The flight directory's name.
    var flightName: String
    /// The aircraft flown.
    var aircraft: AircraftType
    /// Where the aircraft came from: `meta`, `class` (meta's type unknown) or `class-override` (`--class`).
    var aircraftSource: String
    /// Whether a server was used.
    var server: Bool
    /// Samples pushed.
    var samples: Int
    /// First and last sample time, log time base.
    var firstLogTime: Double
    /// Last sample time, log time base.
    var lastLogTime: Double
    /// The engine store's outbox at the end.
    var outbox: OutboxCounts
    /// Lines skipped in lenient mode.
    var skippedLines: Int
}

/// Prints an engine replay's delegate callbacks as they arrive (readable lines or JSON Lines) and counts them for
/// the summary. Callbacks arrive on the replaying thread (`.callerThread` delivery); the lock only satisfies Sendable.
final class EngineTimeline: Sendable {
    /// Delegate method names in the protocol's order (summary key order).
    static let callbackNames = [
        "didUpdateRecordingStatus", "didReceiveNewTurbulenceData", "didChangeDevicePosition", "didReceiveNewNowcast",
        "detectedTurbulence", "didReceiveNewTurbulencePolygons", "didReceiveNewLiveFlightData", "didFailToFetchNewData",
        "didReceiveAlert", "locationManagerDidFail", "serverReachabilityUpdated", "didUpdateLowPowerMode",
        "didUpdateFetchingStatus",
    ]
    /// Callbacks added after the summary format was fixed: counted in the summary only when they occurred, so an
    /// engine replay's output stays what it was wherever they do not occur.
    static let laterCallbackNames = ["didFailToAccessStore", "didUpdateAltitudeContext", "didDetectInconsistency",
                                     "didReceiveMeasurementNotice"]

    private struct State {
        var output = OutputBuffer()
        var counts: [String: Int] = [:]
        var tiles: Set<TileID> = []
        var tilesBySeverity: [Severity: Int] = [:]
        var alertTiles: Set<TileID> = []
    }

    private let json: Bool
    private let shift: Double
    private let firstLogTime: Double
    private let state = Mutex(State())

    /// A timeline; `shift` maps engine time to log time (`log = engine − shift`).
    init(json: Bool, shift: Double, firstLogTime: Double) {
        self.json = json
        self.shift = shift
        self.firstLogTime = firstLogTime
    }

    /// Log time of an engine time: callbacks raised before the first sample (engine time 0) get the first sample's time.
    func logTime(_ t: Double) -> Double {
        max(((t - shift) * 1_000_000).rounded() / 1_000_000, firstLogTime)
    }

    /// Prints and counts one callback.
    func record(_ timed: TimedCallback) {
        let t = logTime(timed.t)
        let line = json ? jsonLine(timed.callback, t: t, unix: timed.t) : textLine(timed.callback, t: t)
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            s.counts[timed.callback.name, default: 0] += 1
            switch timed.callback {
            case .detectedTurbulence(let d):
                s.tiles.insert(d.report.tile)
                s.tilesBySeverity[d.severity, default: 0] += 1
            case .didReceiveAlert(let a):
                s.alertTiles.formUnion(a.items.map(\.tile))
            default: break
            }
            s.output.line(line)
        }
    }

    /// Writes out what is buffered.
    func flush() { state.withLock(visibleToThreadSanitizerAs: self) { $0.output.flush() } }

    /// Prints the summary and flushes.
    func finish(summary: EngineReplaySummary) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            s.output.line(json ? jsonSummary(summary, s) : textSummary(summary, s))
            s.output.flush()
        }
    }

    // MARK: JSON Lines

    private func jsonLine(_ callback: EddyCallback, t: Double, unix: Double) -> String {
        var o = JSONObject.replayLine()
        o.string("type", "delegate")
        o.number("t", t)
        o.number("t_unix", max(unix, firstLogTime + shift))
        o.string("callback", callback.name)
        switch callback {
        case .didUpdateRecordingStatus(let on): o.bool("recording", on)
        case .didReceiveNewTurbulenceData(let area): o.string("area", area.rawValue)
        case .didChangeDevicePosition(let inPosition, let horizontal):
            o.bool("in_position", inPosition)
            o.bool("horizontal", horizontal)
        case .didReceiveNewNowcast, .didReceiveNewTurbulencePolygons, .didReceiveNewLiveFlightData: break
        case .detectedTurbulence(let d):
            o.string("h3", d.report.tile.h3String)
            o.integer("layer", d.report.tile.layer)
            o.string("severity", d.severity.name)
            o.edr("edr_peak", d.report.edrPeak)
            o.edr("edr_median", d.report.edrMedian)
            o.number("t_enter", logTime(d.report.enterTime))
            o.number("t_exit", logTime(d.report.exitTime))
            o.string("id", d.report.id.uuidString.lowercased())
        case .didFailToFetchNewData(let error), .locationManagerDidFail(let error):
            o.string("error", error.description)
        case .didFailToAccessStore(let failure):
            o.string("operation", failure.operation.rawValue)
            if let id = failure.reportId { o.string("id", id.uuidString.lowercased()) }
            o.string("error", failure.description)
        case .didReceiveAlert(let alert):
            if let mode = alert.mode { o.string("mode", mode.rawValue) } else { o.null("mode") }
            o.bool("cleared", alert.isCleared)
            o.raw("items", "[" + alert.items.map { item in
                var i = JSONObject.replayLine()
                i.string("h3", item.tile.h3String)
                i.integer("layer", item.tile.layer)
                i.string("severity", item.severity.name)
                i.fixed("distance_nm", item.distanceNM, decimals: 1)
                i.fixed("bearing_deg", item.bearingDegrees, decimals: 1)
                i.string("origin", item.candidate.origin.rawValue)
                return i.text
            }.joined(separator: ",") + "]")
            o.raw("new_or_worse", JSONObject.array(alert.newOrWorse.map { JSONString.quoted(Self.tileName($0)) }))
            o.raw("clusters", "[" + alert.clusters.map { cluster in
                var c = JSONObject.replayLine()
                c.integer("id", cluster.id)
                c.integer("tiles", cluster.items.count)
                c.string("max_severity", cluster.maxSeverity.name)
                c.fixed("diameter_nm", cluster.diameterNM, decimals: 1)
                return c.text
            }.joined(separator: ",") + "]")
        case .serverReachabilityUpdated(let reachable): o.bool("reachable", reachable)
        case .didUpdateLowPowerMode(let on): o.bool("low_power", on)
        case .didUpdateFetchingStatus(let status, let area, let dataType):
            o.string("status", status.rawValue)
            o.string("area", area.rawValue)
            o.string("data_type", dataType.rawValue)
        case .didUpdateAltitudeContext(let c):
            o.number("pressure_alt_ft", (c.pressureAltitudeFeet * 10).rounded() / 10)
            o.number("pressure_alt_u90_ft", (c.pressureAltitudeU90Feet * 10).rounded() / 10)
            o.integer("layer", c.layer)
            o.string("altitude_source", c.source.rawValue)
            o.string("cabin", c.cabin.rawValue)
            o.string("barometer_calibration", c.barometerCalibration.name)
            o.integer("status", c.status.rawValue)
            o.raw("problems", JSONObject.array(c.problems.map { String($0.rawValue) }))
            // The rest of what `changedEnough` compares, so that a timeline shows why each update was delivered.
            if let held = c.heldFlightLevelFeet { o.number("held_fl_ft", held) } else { o.null("held_fl_ft") }
            o.bool("layer_uncertain", c.layerUncertain)
            if let vs = c.verticalSpeedFeetPerMinute { o.number("vs_fpm", (vs * 10).rounded() / 10) } else { o.null("vs_fpm") }
        case .didDetectInconsistency(let w):
            o.string("warning", Self.warningText(w.kind))
        case .didReceiveMeasurementNotice(let n):
            o.string("phase", n.phase.rawValue)
            o.string("kind", n.kindName)
            o.number("start", logTime(n.start))
            if let end = n.end { o.number("end", logTime(end)) }
            o.integer("count", n.count)
            o.number("seconds_cost", n.secondsCost)
            o.string("reason", n.reason)
        }
        return o.text
    }

    /// A warning in words.
    static func warningText(_ kind: ConsistencyWarning.Kind) -> String {
        switch kind {
        case .pressureJump(let hpa, let seconds, let fpm):
            "pressure changed \(QueryCommand.fixed(hpa, 2)) hPa in \(QueryCommand.fixed(seconds, 1)) s (\(Int(saturating: fpm)) ft/min)"
        case .positionJump(let meters, let seconds):
            "position jumped \(Int(saturating: meters)) m in \(QueryCommand.fixed(seconds, 1)) s"
        case .invalidInput(let reason): reason
        }
    }

    private func jsonSummary(_ summary: EngineReplaySummary, _ s: State) -> String {
        var o = JSONObject.replayLine()
        o.string("type", "summary")
        o.string("flight", summary.flightName)
        o.string("aircraft_type", summary.aircraft.designator)
        o.string("aircraft_class", summary.aircraft.aircraftClass.rawValue)
        o.string("aircraft_source", summary.aircraftSource)
        o.bool("server", summary.server)
        o.integer("samples", summary.samples)
        o.integer("skipped_lines", summary.skippedLines)
        o.number("t_first", summary.firstLogTime)
        o.number("t_last", summary.lastLogTime)
        var counts = JSONObject.replayLine()
        for name in Self.callbackNames { counts.integer(name, s.counts[name] ?? 0) }
        for name in Self.laterCallbackNames { if let count = s.counts[name] { counts.integer(name, count) } }
        o.raw("callbacks", counts.text)
        o.integer("tiles", s.counts["detectedTurbulence"] ?? 0)
        o.integer("distinct_tiles", s.tiles.count)
        var severities = JSONObject.replayLine()
        for severity in Severity.allCases { severities.integer(severity.name, s.tilesBySeverity[severity] ?? 0) }
        o.raw("tiles_by_severity", severities.text)
        o.integer("alerts", s.counts["didReceiveAlert"] ?? 0)
        o.integer("alert_tiles", s.alertTiles.count)
        o.integer("outbox_pending", summary.outbox.pending)
        o.integer("outbox_sent", summary.outbox.sent)
        return o.text
    }

    // MARK: readable timeline

    private func textLine(_ callback: EddyCallback, t: Double) -> String {
        let name = callback.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        let details: String
        switch callback {
        case .didUpdateRecordingStatus(let on): details = on ? "recording" : "not recording"
        case .didReceiveNewTurbulenceData(let area): details = "area \(area.rawValue)"
        case .didChangeDevicePosition(let inPosition, let horizontal):
            details = (inPosition ? "in position" : "moved") + (horizontal ? ", horizontal" : "")
        case .didReceiveNewNowcast, .didReceiveNewTurbulencePolygons, .didReceiveNewLiveFlightData: details = ""
        case .detectedTurbulence(let d):
            details = "\(Self.tileName(d.report.tile))  \(d.severity.name)  EDR peak \(QueryCommand.fixed(d.report.edrPeak, 3))"
                + " median \(QueryCommand.fixed(d.report.edrMedian, 3))  \(Self.clock(logTime(d.report.enterTime)))–\(Self.clock(logTime(d.report.exitTime)))"
        case .didFailToFetchNewData(let error), .locationManagerDidFail(let error): details = error.description
        case .didFailToAccessStore(let failure): details = failure.description
        case .didUpdateAltitudeContext(let c):
            details = "\(Int(saturating: c.pressureAltitudeFeet)) ft ±\(Int(saturating: c.pressureAltitudeU90Feet)) (90 %) layer \(c.layer)"
                + " from \(c.source.rawValue); cabin \(c.cabin.rawValue); barometer \(c.barometerCalibration.name)"
                + (c.problems.isEmpty ? "" : "; codes " + c.problems.map { String($0.rawValue) }.joined(separator: ","))
        case .didDetectInconsistency(let w): details = Self.warningText(w.kind)
        case .didReceiveMeasurementNotice(let n):
            details = "\(n.phase.rawValue) \(Self.clock(logTime(n.start)))" + (n.end.map { "–\(Self.clock(logTime($0)))" } ?? "")
                + ": \(n.reason)" + (n.phase == .ended ? " (\(n.count)×, \(String(format: "%.0f", n.secondsCost)) s not measured)" : "")
        case .didReceiveAlert(let alert):
            if alert.isCleared {
                details = "cleared"
            } else {
                let shown = alert.items.prefix(3).map { item in
                    "\(Self.tileName(item.tile)) \(item.severity.name) \(QueryCommand.fixed(item.distanceNM, 1)) NM \(QueryCommand.fixed(item.bearingDegrees, 0))°"
                }
                let more = alert.items.count > 3 ? ", +\(alert.items.count - 3) more" : ""
                details = "\(alert.mode?.rawValue ?? "-"): \(alert.items.count) tile\(alert.items.count == 1 ? "" : "s")"
                    + " (\(shown.joined(separator: "; "))\(more)); \(alert.newOrWorse.count) new or worse;"
                    + " \(alert.clusters.count) cluster\(alert.clusters.count == 1 ? "" : "s")"
            }
        case .serverReachabilityUpdated(let reachable): details = reachable ? "reachable" : "unreachable"
        case .didUpdateLowPowerMode(let on): details = on ? "low power on" : "low power off"
        case .didUpdateFetchingStatus(let status, let area, let dataType):
            details = "\(status.rawValue)  \(area.rawValue) \(dataType.rawValue)"
        }
        return "\(Self.clock(t))  \(name)\(details)".trimmingCharacters(in: .whitespaces)
    }

    private func textSummary(_ summary: EngineReplaySummary, _ s: State) -> String {
        let counts = (Self.callbackNames + Self.laterCallbackNames).compactMap { name in s.counts[name].map { "\(name) \($0)" } }
        let severities = Severity.allCases.compactMap { severity in s.tilesBySeverity[severity].map { "\(severity.name) \($0)" } }
        let tiles = s.counts["detectedTurbulence"] ?? 0
        return """
            # engine replay of \(summary.flightName): \(summary.aircraft.designator) (\(summary.aircraft.aircraftClass.rawValue), \
            from \(summary.aircraftSource == "meta" ? "meta.json" : summary.aircraftSource == "type-override" ? "--type" : "the class")), \(summary.server ? "with a server" : "offline")
            # \(summary.samples) samples, \(Self.clock(summary.firstLogTime))–\(Self.clock(summary.lastLogTime))\
            \(summary.skippedLines > 0 ? ", \(summary.skippedLines) bad lines skipped" : "")
            # callbacks: \(counts.isEmpty ? "none" : counts.joined(separator: ", "))
            # tiles: \(tiles) reports, \(s.tiles.count) distinct\(severities.isEmpty ? "" : " (\(severities.joined(separator: ", ")))")
            # alerts: \(s.counts["didReceiveAlert"] ?? 0), \(s.alertTiles.count) distinct alerting tiles
            # outbox: \(summary.outbox.pending) pending, \(summary.outbox.sent) sent
            """
    }

    // MARK: formatting

    /// `h3/layer`, e.g. `851f8d27fffffff/35`.
    static func tileName(_ tile: TileID) -> String { "\(tile.h3String)/\(tile.layer)" }

    /// Flight time as `hh:mm:ss` (hours keep counting past 24).
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let whole = Int(saturating: seconds, rounding: .down)
        let sign = whole < 0 ? "-" : ""
        let a = abs(whole)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(sign)\(two(a / 3600)):\(two(a / 60 % 60)):\(two(a % 60))"
    }

}
#endif
