/// FNV-1a, 64-bit: the simulator's hash for fingerprints that must come out the same in every process
/// and build (Swift's `Hasher` is seeded per process).
enum FNV1a {
    static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The hash of `bytes`, continuing from `hash` (so a long text may be fed in parts).
    static func hash(_ bytes: some Sequence<UInt8>, continuing hash: UInt64 = offsetBasis) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
