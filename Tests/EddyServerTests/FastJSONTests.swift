#if Tools
import EddyProtocol
import EddyServerKit
import EddySupport
import EddyVocabulary
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@Suite struct FastJSONNumberTests {
    /// The answer has no `null` for a report's numbers: an observation with a non-finite number is left out (the upload
    /// check never stores one); whole numbers are bare and -0 has no sign, as `JSONEncoder` writes them.
    @Test func nonFiniteObservationsAreLeftOutAndTheRestDecodes() throws {
        func observation(_ n: UInt8, edrPeak: Double, tick: Int) -> Observation {
            let id = UUID(uuid: (n, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n))
            return Observation(report: TileReport(id: id, tile: TileID(h3: 0x85_2a_10_0b_ff_ff_ff_ff, layer: 30), enterTime: 1_800_000_000,
                                                  exitTime: 1_800_000_060, edrPeak: edrPeak, edrMedian: -0.0, reporterClass: .small),
                               reporterId: "r_\(n)", tick: tick)
        }
        let good = [observation(1, edrPeak: 0.25, tick: 1), observation(4, edrPeak: 2, tick: 4)]
        let response = DeltaFetchResponse(dataType: .turbulence, serverTick: 9, full: true, observations: [
            good[0], observation(2, edrPeak: .nan, tick: 2), observation(3, edrPeak: .infinity, tick: 3), good[1],
        ])
        let bytes = Data(buffer: FastJSON.turbulenceResponse(response))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("null") && !text.contains(":-0"))
        #expect(text.contains(#""enterTime":1800000000,"exitTime":1800000060,"edrPeak":2,"edrMedian":0,"#))
        var expected = response
        expected.observations = good
        #expect(try JSONDecoder().decode(DeltaFetchResponse.self, from: bytes) == expected)
        #expect(CanonicalTurbulenceDecoder.decode(bytes) == expected)
        #expect(try JSONSerialization.jsonObject(with: bytes) is [String: Any])
    }
}
#endif
