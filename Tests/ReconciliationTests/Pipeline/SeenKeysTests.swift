import Testing

@testable import Reconciliation

/// First occurrences are what the unit builder keeps (one transaction row per id): `SeenKeys` must say
/// "new" exactly once per key, before and after it switches from its list to its set.
@Suite struct SeenKeysTests {
    @Test("each key is new exactly once, across the switch from list to set", arguments: [1, 16, 17, 200])
    func newExactlyOnce(distinct: Int) {
        var seen = SeenKeys<String>()
        // Every key three times over: with more than 16 distinct keys, the repeats meet the set.
        let keys = (0..<3).flatMap { _ in (0..<distinct).map { "100000000000\($0 * 7)" } }
        let newOnes = keys.filter { seen.insert($0) }
        #expect(newOnes == (0..<distinct).map { "100000000000\($0 * 7)" })
    }

    @Test("struct keys compare every field")
    func structKeys() {
        struct Key: Hashable {
            let receipt: Int64
            let original: String
        }
        var seen = SeenKeys<Key>()
        let answers = [
            seen.insert(Key(receipt: 1, original: "a")),
            seen.insert(Key(receipt: 2, original: "a")),
            seen.insert(Key(receipt: 1, original: "b")),
            seen.insert(Key(receipt: 1, original: "a")),
        ]
        #expect(answers == [true, true, true, false])
    }
}
