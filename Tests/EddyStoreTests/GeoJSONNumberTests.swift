import EddySupport
import EddyVocabulary
import Foundation
import Testing
@testable import EddyStore

@Suite struct GeoJSONNumberTests {
    func item(edrPeak: Double, edrMedian: Double, exitTime: Double) -> TurbulenceItem {
        TurbulenceItem(
            report: TileReport(id: testUUID(7), tile: TileID(h3: cell(39.86, -104.67), layer: 35), enterTime: exitTime - 60,
                               exitTime: exitTime, edrPeak: edrPeak, edrMedian: edrMedian, reporterClass: .medium),
            severity: .light, origin: .server, reporterID: nil, source: nil, reportCount: 1)
    }

    /// Whole numbers bare, -0 without sign, non-finite as null (EddyJSON's policy; before, these were the same here).
    @Test func numbersFollowTheJSONPolicyAndStayValidJSON() throws {
        let text = try GeoJSON.featureCollection([
            item(edrPeak: -0.0, edrMedian: 0.125, exitTime: 1_800_000_000),
            item(edrPeak: .nan, edrMedian: .infinity, exitTime: 1_800_000_000.5),
        ])
        #expect(text.contains(#""edr_peak":0,"edr_median":0.125,"layer":35,"time":1800000000,"#))
        #expect(text.contains(#""edr_peak":null,"edr_median":null,"layer":35,"time":1800000000.5,"#))
        #expect(!text.contains("-0,") && !text.contains("-0]"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let ring = try #require(((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first)
        for position in ring {
            for coordinate in position { #expect((coordinate * 1e6).rounded() / 1e6 == coordinate) }   // 6 decimals at most
        }
    }
}
