import AppStoreReceipts
import Testing

/// The seeded generator the simulator's worlds, the backoff's seeded jitter and the tests' random
/// inputs all draw from: its output is fixed by definition, so seeded worlds stay byte-identical.
@Suite struct SplitMix64Tests {
    @Test func splitMixMatchesItsReferenceOutput() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var rng = SplitMix64(seed: 0)
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(rng.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func aUnitDrawIsTheTop53BitsOfTheNextWord() {
        var rng = SplitMix64(seed: 0)
        #expect(rng.unit() == Double(0xE220_A839_7B1D_CDAF as UInt64 >> 11) / 9_007_199_254_740_992)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test func boundedDrawsStayInRangeAndCoverIt() {
        var rng = SplitMix64(seed: 99)
        var counts = Array(repeating: 0, count: 7)
        for _ in 0..<70_000 { counts[rng.int(in: 0...6)] += 1 }
        // 10,000 expected per value; 5 sigma is about 450.
        #expect(counts.allSatisfy { abs($0 - 10_000) < 450 }, "\(counts)")
    }
}
