import Testing
@testable import EddySupport

@Suite struct SplitMix64Tests {
    /// SplitMix64 reference values for seed 0 (Vigna's splitmix64.c).
    @Test func splitMixReference() {
        var s = SplitMix64(seed: 0)
        #expect(s.next() == 0xE220_A839_7B1D_CDAF)
        #expect(s.next() == 0x6E78_9E6A_A1B9_65F4)
    }
}
