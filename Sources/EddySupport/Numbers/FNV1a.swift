/// FNV-1a 64-bit hash (Fowler–Noll–Vo; http://www.isthe.com/chongo/tech/comp/fnv/): a stable, seedless hash
/// for deriving report-id salts that must be the same run after run (Swift's `Hasher` is seeded per process).
package enum FNV1a {
    /// The 64-bit FNV-1a hash of `parts` joined by the unit separator U+001F.
    package static func hash64(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
