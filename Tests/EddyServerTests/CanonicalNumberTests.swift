#if Tools
import EddyProtocol
import Foundation
import Testing

/// The canonical report-batch fast path reads numbers as JSONDecoder does (the `request` fuzz target's invariant,
/// docs/reliability.md §7).
@Suite struct CanonicalNumberTests {
    private func body(enterTime: String) -> Data {
        Data(("{\"reports\":[{\"id\":\"3F1B5C7E-2D3A-4B5C-8D9E-0F1A2B3C4D5E\",\"tile\":{\"h3\":333557,\"layer\":35},"
            + "\"enterTime\":\(enterTime),\"exitTime\":1527611440,\"edrPeak\":0.21,\"edrMedian\":22222222222222222,"
            + "\"reporterClass\":\"medium\"}]}").utf8)
    }

    /// Fuzz finding (request target): `7E-3805` underflows to 0; JSONDecoder refuses it ("not representable") and the
    /// fast path read it as 0, so the same body was accepted or refused depending on its layout. Now both refuse.
    @Test(arguments: ["7E-3805", "1e-400", "-2e-324", "0.5e-330"])
    func underflowIsRefusedLikeJSONDecoder(_ number: String) {
        let data = body(enterTime: number)
        #expect((try? JSONDecoder().decode(ReportBatch.self, from: data)) == nil)
        #expect(CanonicalReportBatch.decode(data) == nil)
    }

    /// A zero written with an exponent is left to JSONDecoder (which refuses `-0.0e5` but accepts `0e-400`).
    @Test(arguments: ["0e-400", "-0.0E+5", "0.0e5"])
    func zeroWithExponentIsLeftToJSONDecoder(_ number: String) {
        #expect(CanonicalReportBatch.decode(body(enterTime: number)) == nil)
    }

    /// Zeros, tiny and huge numbers that are representable: both accept, with equal values.
    @Test(arguments: ["0", "-0", "-0.0", "4.9e-324", "7E-38", "1e308", "1763805600"])
    func representableNumbersAgree(_ number: String) throws {
        let data = body(enterTime: number)
        let slow = try JSONDecoder().decode(ReportBatch.self, from: data)
        let fast = try #require(CanonicalReportBatch.decode(data))
        #expect(fast == slow)
    }
}
#endif
