import AppStoreReceipts

/// Decides, for the `n`th verifyReceipt request, whether it fails and how late it is answered.
///
/// A pure function of `(faultSeed, n)`: each request draws from its own `SplitMix64` stream, so the
/// decisions do not depend on which thread asked first, only on the arrival number.
public struct FaultInjector: Sendable {
    public struct Decision: Sendable, Hashable {
        public var fault: FaultKind?
        /// Latency plus jitter for this request.
        public var delay: Duration
    }

    public let options: SimulatorOptions
    /// `(kind, weight)` in `FaultKind.allCases` order: a dictionary's order is not stable.
    private let mix: [(kind: FaultKind, weight: Double)]

    public init(options: SimulatorOptions) {
        self.options = options
        mix = FaultKind.allCases.compactMap { kind in
            guard let weight = options.faultMix[kind], weight > 0 else { return nil }
            return (kind, weight)
        }
    }

    public func decide(requestNumber: Int) -> Decision {
        var rng = SplitMix64.derive(options.faultSeed, UInt64(truncatingIfNeeded: requestNumber), 0xFA17)
        var fault: FaultKind?
        if options.faultRate > 0, !mix.isEmpty, rng.unit() < options.faultRate {
            fault = mix[rng.weightedIndex(mix.map(\.weight))].kind
        }
        var delay = options.latency
        if options.jitter > .zero {
            let jitterNanoseconds = Self.nanoseconds(options.jitter)
            delay += .nanoseconds(Int64(rng.below(UInt64(jitterNanoseconds) + 1)))
        }
        return Decision(fault: fault, delay: delay)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
