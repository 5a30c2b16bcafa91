import EddySupport
import EddyVocabulary

/// Renders a `MapPage` as one self-contained HTML document: data, basemap, CSS and JavaScript inline; no URL, no
/// network (docs/maps.md). Pure: the same page gives the same bytes.
package enum MapHTML {
    /// The page's Content-Security-Policy: its own inline script and style, nothing else; the browser refuses any
    /// request the page might try (so "no network" is enforced, not only promised).
    package static let contentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

    /// The document, UTF-8 text.
    package static func render(_ page: MapPage) -> String {
        var html = ""
        html.reserveCapacity(Basemap.ringsEncoded.utf8.count + Basemap.bordersEncoded.utf8.count + 64 * page.track.count
                             + 200 * page.tiles.count + 60 * page.minutes.count + 40_000)
        html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + contentSecurityPolicy + "\">\n"
        html += "<title>" + escape(page.title) + "</title>\n<style>" + MapAssets.css + "</style>\n"
        html += "<script>" + MapAssets.errorCapture + "</script>\n</head><body>\n"
        html += "<header><h1>" + escape(page.title) + "</h1><p class=\"sub\">" + escape(page.subtitle) + "</p></header>\n"
        html += "<pre id=\"eddy-errors\" hidden></pre>\n"
        html += "<noscript><p>This page draws its map with JavaScript; please enable it.</p></noscript>\n"
        if page.kind == .fleet {
            html += "<div class=\"filter\"><label>Altitude <select id=\"alt-min\"></select></label> "
            html += "<label>to <select id=\"alt-max\"></select></label></div>\n"
        }
        html += "<div class=\"mapbox\"><canvas id=\"map\"></canvas><div id=\"tip\"></div><div class=\"zoom\">"
        html += "<button id=\"zoom-in\" title=\"Zoom in\">+</button><button id=\"zoom-out\" title=\"Zoom out\">&#8722;</button>"
        html += "<button id=\"zoom-fit\" title=\"Fit\">&#9635;</button></div></div>\n"
        html += legend(page)
        if page.kind == .flight {
            html += "<h2>Altitude profile</h2><canvas id=\"profile\" class=\"chart\"></canvas>\n"
            html += "<p class=\"key\"><span class=\"ln\" style=\"background:#14213d\"></span>pressure altitude"
            if page.track.contains(where: { $0.gnssAltitudeFeet != nil }) {
                html += " <span class=\"ln dash\"></span>GNSS altitude (MSL)"
            }
            html += " <span class=\"band\"></span>1000-ft layers · tiles drawn at their layer and crossing time</p>\n"
            html += "<h2>EDR over time (m<sup>2/3</sup> s<sup>-1</sup>)</h2><canvas id=\"edr\" class=\"chart\"></canvas>\n"
            html += "<p class=\"key\"><span class=\"ln\" style=\"background:#1c3d5a\"></span>minute median "
            html += "<span class=\"pk\"></span>minute peak (severity colour)"
            if !page.truth.isEmpty { html += " <span class=\"ln\" style=\"background:#2b8a3e;height:3px\"></span>truth" }
            html += " <span class=\"oop\"></span>device out of position · thin coloured lines: severity thresholds ("
            html += escape(page.viewer.rawValue) + " class)</p>\n"
        }
        html += "<details open><summary>Tiles (\(page.tiles.count))</summary><div class=\"tablebox\"><table><thead><tr>"
        html += "<th></th><th>H3</th><th>layer</th><th>severity</th><th>EDR peak</th><th>median</th><th>time</th><th></th>"
        html += "</tr></thead><tbody id=\"tile-rows\"></tbody></table></div></details>\n"
        html += "<footer><p>" + escape(Basemap.attribution) + ". Tiles: H3 resolution 5 hexagons × 1000-ft layers; "
        html += "severity for the " + escape(page.viewer.rawValue) + " class."
        if !page.decimationNote.isEmpty { html += " " + escape(page.decimationNote) }
        html += "</p><p id=\"eddy-status\" data-state=\"loading\" data-errors=\"0\"></p></footer>\n"
        html += "<script type=\"application/json\" id=\"eddy-data\">" + dataJSON(page) + "</script>\n"
        html += "<script type=\"text/plain\" id=\"eddy-basemap-rings\">" + Basemap.ringsEncoded + "</script>\n"
        html += "<script type=\"text/plain\" id=\"eddy-basemap-borders\">" + Basemap.bordersEncoded + "</script>\n"
        html += "<script>" + MapAssets.script + "</script>\n</body></html>\n"
        return html
    }

    /// The legend: one swatch per severity, in the palette's colours.
    static func legend(_ page: MapPage) -> String {
        var html = "<p class=\"key legend\">"
        for severity in Severity.allCases {
            html += "<span class=\"sw\" style=\"background:" + MapPalette.color(severity) + "\"></span>"
            html += escape(MapPalette.labels[severity.rawValue]) + " "
        }
        if page.kind == .flight { html += "<span class=\"ln\" style=\"background:#14213d\"></span>track" }
        html += "</p>\n"
        if page.tiles.contains(where: { $0.provenance != nil }) {
            html += "<p class=\"key legend provenance\" id=\"provenance-legend\">Tiles: <span class=\"sw\" data-provenance=\"report\" "
            html += "style=\"background:#bbb\"></span>reported (last hours) · nowcast of this hour by its dominant source: "
            for style in MapPalette.provenanceStyles {
                html += "<span class=\"sw\" data-provenance=\"" + style.provenance.rawValue + "\" style=\"background-color:#bbb;"
                html += style.css + ";box-sizing:border-box\"></span>" + escape(style.label) + " "
            }
            html += "</p>\n"
        }
        return html
    }

    /// The page's data as JSON, safe inside a `<script>` element (every `<` written as `\u003c`).
    package static func dataJSON(_ page: MapPage) -> String {
        var o = JSONObject()
        o.string("kind", page.kind.rawValue)
        o.bool("epoch", page.timesAreEpoch)
        o.raw("palette", JSONObject.array(MapPalette.hex.map(JSONString.quoted)))
        o.raw("labels", JSONObject.array(MapPalette.labels.map(JSONString.quoted)))
        let factor = SeverityScale.thresholdFactor(for: page.viewer)
        o.raw("thresholds", JSONObject.array(SeverityScale.mediumClassThresholds.map { number($0 * factor, 4) }))
        let gapSeconds = max(30, 3 * medianStep(page.track))
        o.raw("trackGapSeconds", number(gapSeconds, 1))
        o.bool("hasGnss", page.track.contains { $0.gnssAltitudeFeet != nil })
        var track = JSONObject()
        track.raw("t", JSONObject.array(page.track.map { number($0.t, 1) }))
        track.raw("lat", JSONObject.array(page.track.map { optional($0.latitudeDegrees, 5) }))
        track.raw("lon", JSONObject.array(page.track.map { optional($0.longitudeDegrees, 5) }))
        track.raw("alt", JSONObject.array(page.track.map { number($0.pressureAltitudeFeet, 0) }))
        track.raw("gnss", JSONObject.array(page.track.map { optional($0.gnssAltitudeFeet, 0) }))
        o.raw("track", track.text)
        o.raw("tiles", JSONObject.array(page.tiles.map(tileJSON)))
        var styles = JSONObject()
        for style in MapPalette.provenanceStyles {
            var entry = JSONObject()
            entry.raw("dash", JSONObject.array(style.dash.map(String.init)))
            entry.raw("hatch", style.hatchDegrees.map(String.init) ?? "null")
            entry.string("label", style.label)
            styles.raw(style.provenance.rawValue, entry.text)
        }
        o.raw("provenanceStyles", styles.text)
        var minutes = JSONObject()
        minutes.raw("t", JSONObject.array(page.minutes.map { number($0.t, 1) }))
        minutes.raw("median", JSONObject.array(page.minutes.map { number($0.edrMedian, 4) }))
        minutes.raw("peak", JSONObject.array(page.minutes.map { number($0.edrPeak, 4) }))
        minutes.raw("sev", JSONObject.array(page.minutes.map { String($0.severity.rawValue) }))
        o.raw("minutes", minutes.text)
        o.raw("truth", JSONObject.array(page.truth.map { "[" + number($0.start, 1) + "," + number($0.end, 1) + "," + number($0.value, 4) + "]" }))
        o.raw("oop", JSONObject.array(page.outOfPosition.map { "[" + number($0.start, 1) + "," + number($0.end, 1) + "]" }))
        return scriptSafe(o.text)
    }

    static func tileJSON(_ tile: MapTile) -> String {
        var o = JSONObject()
        o.string("h3", tile.h3)
        o.integer("layer", tile.layer)
        o.integer("sev", tile.severity.rawValue)
        o.string("sevName", tile.severity.name)
        o.raw("peak", number(tile.edrPeak, 4))
        o.raw("median", number(tile.edrMedian, 4))
        o.raw("t0", optional(tile.enterTime, 1))
        o.raw("t1", optional(tile.exitTime, 1))
        var vertices: [String] = []
        vertices.reserveCapacity(tile.vertices.count * 2)
        for vertex in tile.vertices {
            vertices.append(number(vertex.latitude, 5))
            vertices.append(number(vertex.longitude, 5))
        }
        o.raw("v", JSONObject.array(vertices))
        if !tile.detail.isEmpty { o.string("info", tile.detail) }
        if let provenance = tile.provenance { o.string("prov", provenance.rawValue) }
        return o.text
    }

    /// Median time between consecutive track points (0 for fewer than two).
    static func medianStep(_ track: [MapTrackPoint]) -> Double {
        guard track.count > 1 else { return 0 }
        var steps: [Double] = []
        steps.reserveCapacity(track.count - 1)
        for index in 1..<track.count { steps.append(track[index].t - track[index - 1].t) }
        steps.sort()
        return steps[steps.count / 2]
    }

    static func number(_ value: Double, _ decimals: Int) -> String { JSONNumber.fixed(value, decimals: decimals) }

    static func optional(_ value: Double?, _ decimals: Int) -> String {
        guard let value, value.isFinite else { return "null" }
        return JSONNumber.fixed(value, decimals: decimals)
    }

    /// `<` as `\u003c` (only inside JSON strings, where it is equivalent), so no `</script>` can close the element.
    static func scriptSafe(_ json: String) -> String {
        guard json.utf8.contains(UInt8(ascii: "<")) else { return json }
        var out = ""
        out.reserveCapacity(json.utf8.count + 16)
        for character in json.unicodeScalars {
            if character == "<" { out += "\\u003c" } else { out.unicodeScalars.append(character) }
        }
        return out
    }

    /// Text escaped for HTML element content and attribute values.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
