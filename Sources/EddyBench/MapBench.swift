import EddyH3
import EddyMap
import EddyVocabulary
import Foundation

/// Picture benchmarks (docs/maps.md): the page of a synthetic 12-hour flight (1 Hz track across 10 000 km, a tile
/// every minute in all six severities, 720 minutes): its size and the CPU time to build it. The browser's render
/// time (`html_render_s`) is measured by scripts/map_browser_check.py in headless Chromium, not here.
enum MapBenchmarks {
    static func page() -> MapPage {
        let seconds = 12 * 3600
        var track: [MapTrackPoint] = []
        track.reserveCapacity(seconds)
        for s in 0..<seconds {
            let altitude = 35_000 + 300 * sin(Double(s) / 700)
            track.append(MapTrackPoint(
                t: 1_790_000_000 + Double(s), latitudeDegrees: 40 + 10 * sin(Double(s) / 20_000),
                longitudeDegrees: -100 + Double(s) * 0.0028, pressureAltitudeFeet: altitude, gnssAltitudeFeet: altitude + 700,
                layer: TileID.layer(altitudeFeet: altitude)))
        }
        let (kept, _) = TrackDecimation().apply(track)
        var tiles: [MapTile] = []
        var minutes: [MapMinute] = []
        for m in 0..<720 {
            let point = track[m * 60]
            let severity = Severity.allCases[m % Severity.allCases.count]
            if let latitude = point.latitudeDegrees, let longitude = point.longitudeDegrees,
               let cell = try? H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: 5),
               let tile = MapTile(cell: cell.rawValue, layer: point.layer, severity: severity, edrPeak: 0.1 * Double(severity.rawValue),
                                  edrMedian: 0.05, enterTime: point.t, exitTime: point.t + 60, detail: "altitude barometer") {
                tiles.append(tile)
            }
            minutes.append(MapMinute(t: point.t + 60, edrMedian: 0.05, edrPeak: 0.1 * Double(severity.rawValue), severity: severity))
        }
        return MapPage(kind: .flight, title: "bench", subtitle: "12 h", timesAreEpoch: true, track: kept, tiles: tiles,
                       minutes: minutes, truth: [MapInterval(start: 1_790_000_000, end: 1_790_043_200, value: 0.1)])
    }

    /// Runs the group and prints its figures.
    static func run() {
        let page = page()
        var best = Double.infinity
        var bytes = 0
        for _ in 0..<5 {
            let cpu0 = BenchSupport.threadCPUSeconds()
            bytes = MapHTML.render(page).utf8.count
            best = min(best, BenchSupport.threadCPUSeconds() - cpu0)
        }
        print("html_page_mb: \(String(format: "%.3f", Double(bytes) / 1_000_000))")
        print("html_track_points: \(page.track.count)")
        print("html_generate_s: \(String(format: "%.4f", best))")
    }
}
