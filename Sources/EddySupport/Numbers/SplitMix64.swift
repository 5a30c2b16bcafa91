/// SplitMix64 (Steele, Lea & Flood 2014): a tiny 64-bit generator. It stays in the core for the sync scheduler's
/// jitter; the simulator (EddySimulation) seeds its `Xoshiro256StarStar` with it.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    /// Internal state.
    package private(set) var state: UInt64
    /// Creates a generator from a seed.
    package init(seed: UInt64) { state = seed }
    /// Next 64-bit output.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
