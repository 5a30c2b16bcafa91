import EddyDetection
import EddyVocabulary
import Foundation
import Testing
@testable import EddyReplay

/// The `ground_vibration` notice (docs/detection.md §5 "Ground rolls without location") in the replay's JSON lines.
@Suite struct GroundVibrationNoticeJSONTests {
    @Test func noticeLine() throws {
        let notice = MeasurementNotice(phase: .ended, kind: .groundVibration(lowShare: 0.0234, splitHz: 1), start: 152, end: 479,
                                       count: 327, secondsCost: 327)
        let line = try #require(ReplayJSON.line(for: .notice(notice), viewer: .small))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "ground_vibration")
        #expect((object["low_share"] as? Double).map { abs($0 - 0.023) < 1e-9 } == true, "\(line)")
        #expect((object["split_hz"] as? Double) == 1)
        #expect((object["reason"] as? String)?.contains("2 % of the band's power below 1.0 Hz") == true, "\(line)")
    }
}
