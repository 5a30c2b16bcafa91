import EddyDetection
import EddyVocabulary
import Foundation
import Testing
@testable import EddyReplay

@Suite("Replay JSON: tile events' altitude fields")
struct ReplayAltitudeTests {
    static let report = TileReport(
        id: UUID(uuidString: "00000000-0000-4000-8000-000000000007")!, tile: TileID(h3: 0x85283473fffffff, layer: 35),
        enterTime: 10, exitTime: 70.5, edrPeak: 0.25, edrMedian: 0.1, reporterClass: .medium)

    @Test func withoutTheFieldsTheLineIsUnchanged() {
        let line = ReplayJSON.line(for: .tile(Self.report), viewer: .medium)
        #expect(line == #"{"type":"tile","t_enter":10.0,"t_exit":70.5,"h3":"85283473fffffff","layer":35,"severity":"moderate","edr_peak":0.25,"edr_median":0.1,"id":"00000000-0000-4000-8000-000000000007"}"#)
    }

    @Test func withTheFieldsTheyFollowTheID() throws {
        var report = Self.report
        report.altitudeSource = .gnssFleetOffset
        report.altitudeU90Feet = 412.46
        report.layerUncertain = true
        let line = try #require(ReplayJSON.line(for: .tile(report), viewer: .medium))
        #expect(line.hasSuffix(#""id":"00000000-0000-4000-8000-000000000007","altitude_source":"gnss_fleet","altitude_u90_ft":412.5,"layer_uncertain":true}"#))
        report.altitudeSource = nil
        report.layerUncertain = false
        let onlyU90 = try #require(ReplayJSON.line(for: .tile(report), viewer: .medium))
        #expect(onlyU90.hasSuffix(#""id":"00000000-0000-4000-8000-000000000007","altitude_u90_ft":412.5}"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["altitude_source"] as? String == "gnss_fleet")
    }
}
