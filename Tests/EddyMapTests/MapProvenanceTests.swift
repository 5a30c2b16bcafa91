import EddyH3
import EddyVocabulary
import Foundation
import Testing
@testable import EddyMap

/// Nowcast cells on the map by provenance (docs/maps.md "Nowcast cells"; issue 31): each source has its own outline
/// and hatch, the legend says which is which, and the page's data and rows carry the provenance.
@Suite("Map provenance")
struct MapProvenanceTests {
    /// A fleet page: one measured report's tile and one nowcast cell of each provenance.
    static func page() throws -> MapPage {
        var tiles = [try #require(MapTile(cell: cell(latitude: 47.4, longitude: 8.5), layer: 35, severity: .moderate, edrPeak: 0.25, edrMedian: 0.2))]
        for (k, provenance) in TurbulenceProvenance.allCases.enumerated() {
            tiles.append(try #require(MapTile(cell: cell(latitude: 47.4, longitude: 8.7 + 0.2 * Double(k)), layer: 35, severity: .light,
                                              edrPeak: 0.12, edrMedian: 0.12, detail: "nowcast", provenance: provenance)))
        }
        return MapPage(kind: .fleet, title: "fleet", timesAreEpoch: true, tiles: tiles)
    }

    @Test("every provenance has its own outline and hatch, and a legend entry drawn in that style")
    func stylesAreDistinctAndInTheLegend() throws {
        let styles = MapPalette.provenanceStyles
        #expect(Set(styles.map(\.provenance)) == Set(TurbulenceProvenance.allCases))
        #expect(Set(styles.map { "\($0.dash) \($0.hatchDegrees.map(String.init) ?? "none")" }).count == styles.count, "two sources look alike")
        #expect(Set(styles.map(\.css)).count == styles.count)
        let html = MapHTML.render(try Self.page())
        let legend = try #require(html.range(of: "<p class=\"key legend provenance\" id=\"provenance-legend\">"))
        let legendText = String(html[legend.upperBound...].prefix { $0 != "\n" })
        for style in styles {
            #expect(legendText.contains("data-provenance=\"\(style.provenance.rawValue)\""), "\(style.provenance) swatch")
            #expect(legendText.contains(style.css), "\(style.provenance) swatch in its style")
            #expect(legendText.contains(style.label), "\(style.provenance) label")
        }
        #expect(legendText.contains("data-provenance=\"report\""))
        // A page without nowcast cells has no provenance legend.
        var reportsOnly = try Self.page()
        reportsOnly.tiles = reportsOnly.tiles.filter { $0.provenance == nil }
        #expect(!MapHTML.render(reportsOnly).contains("provenance-legend"))
    }

    @Test("the data carries each tile's provenance and the styles the script draws with")
    func dataCarriesProvenance() throws {
        let page = try Self.page()
        let text = try #require(dataElement(MapHTML.render(page)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let tiles = try #require(object["tiles"] as? [[String: Any]])
        #expect(tiles.map { $0["prov"] as? String } == page.tiles.map { $0.provenance?.rawValue })
        let styles = try #require(object["provenanceStyles"] as? [String: [String: Any]])
        for style in MapPalette.provenanceStyles {
            let json = try #require(styles[style.provenance.rawValue])
            #expect(json["dash"] as? [Int] == style.dash)
            #expect(json["hatch"] as? Int == style.hatchDegrees)
            #expect(json["label"] as? String == style.label)
        }
        // The script draws the hatch and the dashes from those styles, reports over nowcast cells, and marks the rows.
        let script = MapAssets.script
        #expect(script.contains("ctx.setLineDash(ps.dash)") && script.contains("ps.hatch"))
        #expect(script.contains("(a.prov ? 0 : 1) - (b.prov ? 0 : 1)"))
        #expect(script.contains("'data-provenance': tt.prov || 'report'") && script.contains("data-nowcast-tiles"))
    }
}
