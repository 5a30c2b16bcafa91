#if Tools
import Eddy
import EddyMap
import EddySensorLog
import EddySupport
import EddyVocabulary
import Foundation
import Synchronization

/// Collects what `eddy replay --engine --html` draws: the location fixes pushed (at most one a second), the engine's
/// altitude contexts, detected tiles and device-position changes. The engine raises no per-minute event, so the EDR
/// chart of an engine page shows each tile crossing's median and peak at its exit time instead of minutes.
final class EngineMapCollector: Sendable {
    private struct State {
        var fixes: [LocationSample] = []
        var contexts: [(t: Double, feet: Double, layer: Int)] = []
        var detections: [DetectedTurbulence] = []
        var positions: [(t: Double, inPosition: Bool)] = []
        var lastTime: Double?
    }
    private let state = Mutex(State())

    /// Keeps a pushed sample's time, and its fix when it is a location a second or more after the last one kept.
    func add(_ sample: SensorSample) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            s.lastTime = sample.t
            guard case .location(let fix) = sample else { return }
            if let last = s.fixes.last, fix.t - last.t < 1 { return }
            s.fixes.append(fix)
        }
    }

    /// Keeps the callbacks the page draws.
    func record(_ timed: TimedCallback) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            switch timed.callback {
            case .didUpdateAltitudeContext(let c): s.contexts.append((timed.t, c.pressureAltitudeFeet, c.layer))
            case .detectedTurbulence(let d): s.detections.append(d)
            case .didChangeDevicePosition(let inPosition, _): s.positions.append((timed.t, inPosition))
            default: break
            }
        }
    }

    /// The page; times are the engine's (Unix seconds when `timesAreEpoch`).
    func page(flightName: String, meta: FlightMeta, aircraft: AircraftType, shift: Double, timesAreEpoch: Bool) -> MapPage {
        let s = state.withLock(visibleToThreadSanitizerAs: self) { $0 }
        var track: [MapTrackPoint] = []
        track.reserveCapacity(s.fixes.count)
        var context = 0
        for fix in s.fixes {
            while context + 1 < s.contexts.count, s.contexts[context + 1].t <= fix.t { context += 1 }
            let gnssFeet = fix.altitudeMeters.map { $0 * MapPages.feetPerMeter }
            let pressure = s.contexts.isEmpty ? (fix.pressureAltitudeFeet ?? gnssFeet ?? 0) : s.contexts[context].feet
            track.append(MapTrackPoint(t: fix.t, latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
                                       pressureAltitudeFeet: pressure, gnssAltitudeFeet: gnssFeet,
                                       layer: TileID.layer(altitudeFeet: pressure)))
        }
        let (kept, step) = TrackDecimation().apply(track)
        let tiles = s.detections.compactMap { d in
            MapTile(cell: d.report.tile.h3, layer: d.report.tile.layer, severity: d.severity, edrPeak: d.report.edrPeak,
                    edrMedian: d.report.edrMedian, enterTime: d.report.enterTime, exitTime: d.report.exitTime, detail: "engine")
        }
        let crossings = s.detections.sorted { $0.report.exitTime < $1.report.exitTime }.map { d in
            MapMinute(t: d.report.exitTime, edrMedian: d.report.edrMedian, edrPeak: d.report.edrPeak, severity: d.severity)
        }
        let truth = (meta.truth?.turbulence ?? []).map { MapInterval(start: $0.start + shift, end: $0.end + shift, value: $0.edr ?? 0) }
        var outOfPosition: [MapInterval] = []
        var since: Double?
        for p in s.positions {
            if !p.inPosition, since == nil { since = p.t }
            if p.inPosition, let start = since { outOfPosition.append(MapInterval(start: start, end: p.t)); since = nil }
        }
        if let start = since, let end = s.lastTime { outOfPosition.append(MapInterval(start: start, end: end)) }
        let subtitle = "\(aircraft.designator), \(aircraft.aircraftClass.rawValue) class · whole engine · \(tiles.count) tiles"
            + " · EDR chart: each tile crossing's median and peak at its exit"
        let note = track.isEmpty ? "" : "Track: \(kept.count) of \(track.count) fixes (one per \(String(format: "%.1f", step)) s, "
            + "plus every layer change and both ends of a gap)."
        return MapPage(kind: .flight, title: "Eddy · \(flightName) (engine)", subtitle: subtitle, timesAreEpoch: timesAreEpoch,
                       viewer: aircraft.aircraftClass, track: kept, tiles: tiles, minutes: crossings, truth: truth,
                       outOfPosition: outOfPosition, decimationNote: note)
    }
}
#endif
