import EddyH3
import EddyVocabulary
import Foundation
import Testing
@testable import EddyMap

/// A flight-like page: a track eastwards from Zürich, tiles of every severity along it, minutes, truth, one
/// out-of-position interval.
func samplePage(hours: Double = 1, tileCount: Int = 12) -> MapPage {
    let seconds = Int(hours * 3600)
    var track: [MapTrackPoint] = []
    track.reserveCapacity(seconds)
    for s in 0..<seconds {
        let t = 1_790_000_000 + Double(s)
        let altitude = 35_000 + 400 * sin(Double(s) / 900)
        track.append(MapTrackPoint(t: t, latitudeDegrees: 47.4 + Double(s) * 1e-5, longitudeDegrees: 8.5 + Double(s) * 3e-3,
                                   pressureAltitudeFeet: altitude, gnssAltitudeFeet: altitude + 600,
                                   layer: TileID.layer(altitudeFeet: altitude)))
    }
    let decimated = TrackDecimation().apply(track).points
    var tiles: [MapTile] = []
    for k in 0..<tileCount {
        let s = Double(k * seconds / max(tileCount, 1))
        let severity = Severity.allCases[k % Severity.allCases.count]
        if let tile = MapTile(cell: cell(latitude: 47.4 + s * 1e-5, longitude: 8.5 + s * 3e-3), layer: 35, severity: severity,
                              edrPeak: 0.05 + 0.1 * Double(severity.rawValue), edrMedian: 0.04, enterTime: 1_790_000_000 + s,
                              exitTime: 1_790_000_000 + s + 60, detail: k == 0 ? "</script><b>x</b> & \"y\"" : "") {
            tiles.append(tile)
        }
    }
    let minutes = (1...max(1, seconds / 60)).map { m in
        MapMinute(t: 1_790_000_000 + Double(m * 60), edrMedian: 0.05, edrPeak: 0.12, severity: .light)
    }
    return MapPage(kind: .flight, title: "Test <flight>", subtitle: "B738 & co", timesAreEpoch: true, viewer: .medium,
                   track: decimated, tiles: tiles, minutes: minutes,
                   truth: [MapInterval(start: 1_790_000_000, end: 1_790_000_600, value: 0.12)],
                   outOfPosition: [MapInterval(start: 1_790_000_100, end: 1_790_000_130)], decimationNote: "test")
}

func cell(latitude: Double, longitude: Double) -> UInt64 {
    (try? H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: 5).rawValue) ?? 0
}

/// The `<script type="application/json" id="eddy-data">` element's text.
func dataElement(_ html: String) -> String? {
    guard let start = html.range(of: "<script type=\"application/json\" id=\"eddy-data\">"),
          let end = html.range(of: "</script>", range: start.upperBound..<html.endIndex) else { return nil }
    return String(html[start.upperBound..<end.lowerBound])
}

@Suite("MapHTML")
struct MapHTMLTests {
    @Test("the page names no URL and makes no request: no http(s) in src/href, no fetch, XHR, import or WebSocket")
    func noNetwork() throws {
        let html = MapHTML.render(samplePage())
        for pattern in ["src=\"http", "href=\"http", "src='http", "href='http", "url(http", "fetch(", "XMLHttpRequest",
                        "import(", "WebSocket", "EventSource", "sendBeacon", "<link", "<iframe", "<img"] {
            #expect(!html.contains(pattern), "page contains \(pattern)")
        }
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(html.contains("Content-Security-Policy") && html.contains("default-src 'none'"))
        #expect(html.contains("<meta name=\"viewport\""))
    }

    @Test("the data element is valid JSON with every tile, its severity, colour index and six vertices")
    func dataJSON() throws {
        let page = samplePage()
        let html = MapHTML.render(page)
        let text = try #require(dataElement(html))
        #expect(!text.contains("<"), "a '<' in the data could close the script element")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let tiles = try #require(object["tiles"] as? [[String: Any]])
        #expect(tiles.count == page.tiles.count)
        for (json, tile) in zip(tiles, page.tiles) {
            #expect(json["h3"] as? String == tile.h3)
            #expect(json["sev"] as? Int == tile.severity.rawValue)
            #expect((json["v"] as? [Double])?.count == 2 * tile.vertices.count)
        }
        #expect(tiles.first?["info"] as? String == "</script><b>x</b> & \"y\"")
        let palette = try #require(object["palette"] as? [String])
        #expect(palette == MapPalette.hex)
        let track = try #require(object["track"] as? [String: [Any]])
        #expect(track["t"]?.count == page.track.count && track["gnss"]?.count == page.track.count)
        #expect((object["thresholds"] as? [Double]) == [0.1, 0.15, 0.2, 0.3, 0.45])
    }

    @Test("text is escaped: a title or detail cannot inject markup")
    func escaping() {
        let html = MapHTML.render(samplePage())
        #expect(html.contains("<title>Test &lt;flight&gt;</title>"))
        #expect(html.contains("B738 &amp; co"))
        #expect(html.components(separatedBy: "</script>").count - 1 == 5, "exactly the page's five script elements end")
    }

    @Test("the palette has six distinct #rrggbb colours, one per severity, none equal to the map's land or sea")
    func palette() {
        #expect(MapPalette.hex.count == Severity.allCases.count)
        #expect(Set(MapPalette.hex).count == MapPalette.hex.count)
        for hex in MapPalette.hex {
            #expect(hex.count == 7 && hex.hasPrefix("#") && UInt32(hex.dropFirst(), radix: 16) != nil)
            #expect(!["#dbe7f3", "#f2efe6"].contains(hex))
        }
        #expect(MapPalette.color(.severe) == "#862e9c" && MapPalette.color(.none) == "#9ad0a5")
    }

    @Test("a 12-hour flight's page stays under 5 MB")
    func twelveHourSize() {
        let html = MapHTML.render(samplePage(hours: 12, tileCount: 600))
        let bytes = html.utf8.count
        #expect(bytes <= 5_000_000, "12-hour page is \(bytes) bytes")
        #expect(bytes > 100_000, "12-hour page is suspiciously small: \(bytes) bytes")
    }

    @Test("the same page gives the same bytes")
    func deterministic() {
        #expect(MapHTML.render(samplePage()) == MapHTML.render(samplePage()))
    }
}
