#if Tools
import EddyDetection
import EddyMap
import EddyNavigation
import EddyReplay
import EddySensorLog
import EddyStore
import EddySupport
import EddyVocabulary
import Foundation

/// Builds the pictures' `MapPage`s from a replay or a store query, and writes them (the CLI edge of EddyMap).
enum MapPages {
    /// Feet per metre.
    static let feetPerMeter = 1 / 0.3048

    /// Collects the track of a replay as it streams (every altitude estimate; decimated at the end).
    struct TrackCollector {
        var points: [MapTrackPoint] = []

        /// Keeps an altitude event's position and altitudes; other events are ignored.
        mutating func add(_ event: DetectionEvent) {
            guard case .altitude(let a) = event else { return }
            points.append(MapTrackPoint(
                t: a.t, latitudeDegrees: a.latitudeDegrees, longitudeDegrees: a.longitudeDegrees,
                pressureAltitudeFeet: a.pressureAltitudeFeet, gnssAltitudeFeet: a.mslMeters.map { $0 * feetPerMeter },
                layer: a.layer))
        }
    }

    /// The page of a replayed flight: times shifted to Unix seconds by `time_origin` when the flight has one.
    static func flightPage(summary s: ReplaySummary, track: [MapTrackPoint]) -> MapPage {
        let origin = s.meta.timeOriginEpochSeconds
        let shift = origin ?? 0
        let decimation = TrackDecimation()
        let (kept, step) = decimation.apply(track)
        let shifted = kept.map { point -> MapTrackPoint in
            var p = point
            p.t += shift
            return p
        }
        let tiles = s.tiles.compactMap { r -> MapTile? in
            var detail: [String] = []
            if let source = r.altitudeSource { detail.append("altitude \(source.rawValue)") }
            if let u90 = r.altitudeU90Feet { detail.append("±\(Int(saturating: u90)) ft (90 %)") }
            if r.layerUncertain == true { detail.append("layer uncertain") }
            return MapTile(cell: r.tile.h3, layer: r.tile.layer, severity: r.severity(for: s.aircraftClass), edrPeak: r.edrPeak,
                           edrMedian: r.edrMedian, enterTime: r.enterTime + shift, exitTime: r.exitTime + shift,
                           detail: detail.joined(separator: ", "))
        }
        let minutes = s.minutes.map { MapMinute(t: $0.t + shift, edrMedian: $0.edrMedian, edrPeak: $0.edrPeak, severity: $0.severity) }
        let truth = s.meta.truth == nil ? [] : s.segments.map { MapInterval(start: $0.start + shift, end: $0.end + shift, value: $0.truthEDR) }
        var outOfPosition: [MapInterval] = []
        var since: Double?
        for p in s.positions {
            if !p.inPosition, since == nil { since = p.t }
            if p.inPosition, let start = since { outOfPosition.append(MapInterval(start: start + shift, end: p.t + shift)); since = nil }
        }
        if let start = since, let last = s.lastTime { outOfPosition.append(MapInterval(start: start + shift, end: last + shift)) }
        var subtitle = "\(s.meta.aircraft.type.map { "\($0), " } ?? "")\(s.aircraftClass.rawValue) class"
        if let first = s.firstTime, let last = s.lastTime {
            subtitle += " · \(durationText(last - first))"
            if origin != nil { subtitle += " from \(utc(first + shift))" }
        }
        subtitle += " · \(s.tiles.count) tiles, \(s.minutes.count) minutes measured"
        let note = track.isEmpty ? "" : "Track: \(kept.count) of \(track.count) points (one per \(String(format: "%.1f", step)) s, "
            + "plus every layer change and both ends of a gap)."
        return MapPage(kind: .flight, title: "Eddy · \(s.flightName)", subtitle: subtitle, timesAreEpoch: origin != nil,
                       viewer: s.aircraftClass, track: shifted, tiles: tiles, minutes: minutes, truth: truth,
                       outOfPosition: outOfPosition, decimationNote: note)
    }

    /// The page of a store query's tiles (reports or nowcast cells already turned into tiles).
    static func fleetPage(title: String, subtitle: String, viewer: AircraftClass, items: [TurbulenceItem]) -> MapPage {
        let tiles = items.compactMap { item -> MapTile? in
            let r = item.report
            var detail = ["\(item.origin.rawValue)"]
            if item.reportCount > 1 { detail.append("\(item.reportCount) reports") }
            if let source = r.altitudeSource { detail.append("altitude \(source.rawValue)") }
            return MapTile(cell: r.tile.h3, layer: r.tile.layer, severity: item.severity, edrPeak: r.edrPeak, edrMedian: r.edrMedian,
                           enterTime: r.enterTime, exitTime: r.exitTime, detail: detail.joined(separator: ", "))
        }
        return MapPage(kind: .fleet, title: title, subtitle: subtitle, timesAreEpoch: true, viewer: viewer, tiles: tiles)
    }

    /// Writes `page` to `path` (replaced atomically); says so on stderr.
    static func write(_ page: MapPage, to path: String, command: String) throws(CLIFailure) {
        let html = MapHTML.render(page)
        do { try Data(html.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw CLIFailure("--html \(path): cannot write the page: \(error.localizedDescription); check that the folder exists and is writable")
        }
        let megabytes = Double(html.utf8.count) / 1_000_000
        FileHandle.standardError.write(Data(
            "eddy \(command): wrote \(path) (\(page.tiles.count) tiles, \(page.track.count) track points, \(String(format: "%.2f", megabytes)) MB)\n".utf8))
    }

    static func durationText(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "?" }
        let whole = Int(seconds.rounded())
        return "\(whole / 3600) h \(String(format: "%02d", (whole / 60) % 60)) min"
    }

    static func utc(_ epoch: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: epoch))
    }
}
#endif
