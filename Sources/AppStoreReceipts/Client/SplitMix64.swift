/// The project's one seeded generator: SplitMix64 (Steele, Lea, Flood 2014), a 64-bit state advanced
/// by a constant and scrambled by a finalizer. The simulator's only source of randomness, the seeded
/// jitter of `BackoffPolicy`, and the tests' reproducible random inputs.
///
/// Why our own generator and our own range functions: the simulator's world must be byte-identical for
/// the same `(users, seed, asOf)` on every machine and toolchain. `SystemRandomNumberGenerator` is not
/// seedable, and the standard library's `Int.random(in:using:)` may change its algorithm between Swift
/// releases (so the simulator never uses it; tests may). Everything here is plain integer arithmetic
/// with a fixed definition.
///
/// A value type: copy it to fork a stream. Independent streams for independent purposes come from
/// `derive(_:_:_:)`, so that user 7's scenario never depends on how many numbers user 6 drew.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// A generator for one purpose, keyed by up to three numbers (e.g. world seed, unit index, slot).
    public static func derive(_ seed: UInt64, _ first: UInt64, _ second: UInt64 = 0, _ third: UInt64 = 0) -> SplitMix64
    {
        var key = mix(seed &+ 0x9E37_79B9_7F4A_7C15)
        key = mix(key ^ (first &* 0xBF58_476D_1CE4_E5B9))
        key = mix(key ^ (second &* 0x94D0_49BB_1331_11EB))
        key = mix(key ^ (third &* 0xD6E8_FEB8_6659_FD93))
        return SplitMix64(seed: key)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// SplitMix64's finalizer: a bijection that spreads every input bit over the output.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound` (bound > 0), by Lemire's multiply-shift with rejection, so no value is favoured.
    public mutating func below(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0, "empty range")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// Uniform in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(below(span))
    }

    /// Uniform in `range`.
    public mutating func int64(in range: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        return span == 0 ? Int64(bitPattern: next()) : range.lowerBound + Int64(below(span))
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count + 8)
        while result.count < count {
            withUnsafeBytes(of: next().littleEndian) { result.append(contentsOf: $0) }
        }
        return Array(result.prefix(count))
    }

    /// An index into `weights` drawn in proportion to them (weights ≥ 0, not all 0).
    public mutating func weightedIndex(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var point = unit() * total
        for (index, weight) in weights.enumerated() {
            if point < weight { return index }
            point -= weight
        }
        return weights.lastIndex { $0 > 0 } ?? 0
    }
}
