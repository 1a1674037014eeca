import Foundation

/// The circuit breakers of CONTRACT §7, as a value the run feeds as it goes: a bad Apple night or a
/// mapping mistake must not take access away from paying users, whatever the night's size.
///
/// Three judges, each fed where its figures are first known:
/// - **unverified**: receipts left transiently `unverified` (permanent ones are answers: they do not
///   count), fed when a user's receipts are classified, before anything of the user is written;
/// - **unknown products**: receipts whose purchases name a product `products` does not hold (a mapping
///   that misses products would take their entitlements away as `no_purchase`), fed beside them;
/// - **revoke**: users whose plan revokes, fed when each user's plan is made inside a writer's
///   transaction (the plan depends on the rows as they are then).
///
/// A judge speaks once its window is full (`window` receipts) or the night has no more users
/// (`judgeWholeNight`): a night smaller than the window is judged on all of its users. The pipeline
/// writes no revoke or shorten before the revoke judge has spoken (`UserWriting`). Ratios strictly
/// exceed their limit; below a small floor of counted receipts or users a ratio does not apply (one
/// refund among four users is a quarter of a small night, and no sign of a bad one).
public struct CircuitBreaker: Hashable, Sendable {
    /// Receipts after which a judge speaks on a night that goes on; a smaller night is judged whole.
    public static let window = 100
    /// Users revoked below which the revoke ratio does not apply: at most this many minus one users of
    /// a small night lose access unjudged (each one proved by Apple and undone by `revert`), while a
    /// mapping mistake on any app with more paying users than that is stopped.
    public static let revokeFloor = 5
    /// Transiently unverified receipts below which the unverified ratio does not apply, unless they are
    /// nearly all of the night (`nearlyAll`).
    public static let unverifiedFloor = 5
    /// A night whose answers were this share or more transient failures is Apple unreachable or
    /// refusing, at any size.
    public static let nearlyAll = 0.9
    /// Receipts naming a product `products` lacks, as a share of the night's receipts, beyond which the
    /// mapping is wrong (78), and the floor below which the share does not apply.
    public static let unknownProductShare = 0.05
    public static let unknownProductFloor = 3

    /// Which judge tripped, and what its trip means for the process (CONTRACT §3, §7).
    public enum Judge: String, Hashable, Sendable {
        case unverified, revoke, unknownProducts
    }

    /// A tripped judge: the run stops, writes nothing more that takes access away, and exits 69 (78 for
    /// unknown products: the configuration, not Apple, is wrong).
    public struct Trip: Hashable, Sendable {
        public let judge: Judge
        public let reason: String
    }

    public let maxUnverifiedRatio: Double
    public let maxRevokeRatio: Double
    /// Receipts after which a judge speaks (`window`, smaller in tests).
    public let minimumReceipts: Int

    public private(set) var classifiedReceipts = 0
    /// Receipts left transiently `unverified`.
    public private(set) var unverifiedReceipts = 0
    /// Why the first transiently unverified receipt was left so (its detail): what the operator reads
    /// first when the judge trips.
    public private(set) var firstUnverifiedCause: String?
    public private(set) var unknownProductReceipts = 0
    public private(set) var unknownProducts: Set<String> = []
    public private(set) var plannedUsers = 0
    public private(set) var plannedReceipts = 0
    /// Users whose plan has at least one `revoke` (applied or, in a dry run, planned).
    public private(set) var revokedUsers = 0
    /// The night has no more users to classify: the classification judges speak on what there is.
    public private(set) var isWholeNight = false
    /// Every user of the night was planned: the revoke judge speaks on what there is.
    public private(set) var isWholeNightPlanned = false

    public init(maxUnverifiedRatio: Double, maxRevokeRatio: Double, minimumReceipts: Int = Self.window) {
        self.maxUnverifiedRatio = maxUnverifiedRatio
        self.maxRevokeRatio = maxRevokeRatio
        self.minimumReceipts = minimumReceipts
    }

    /// Whether the revoke judge has spoken on the users fed so far: its window is full, or the night is
    /// whole. Until then a user whose plan takes access away is held, not written.
    public var revokeJudgeSpeaks: Bool { isWholeNightPlanned || plannedReceipts >= minimumReceipts }

    /// Counts one user's classified receipts.
    /// - Parameters:
    ///   - unverified: receipts left transiently `unverified`.
    ///   - unknownProducts: the product ids `products` lacks, one entry per receipt naming any (the
    ///     receipt's unknown ids joined), empty when every product is known.
    ///   - cause: the detail of one of the user's transiently unverified receipts, if any.
    /// - Returns: the trip, when the unverified or the unknown-products judge trips.
    public mutating func classified(
        receipts: Int, unverified: Int, unknownProducts: [[String]] = [], cause: String? = nil
    ) -> Trip? {
        if firstUnverifiedCause == nil, unverified > 0 { firstUnverifiedCause = cause }
        classifiedReceipts += receipts
        unverifiedReceipts += unverified
        unknownProductReceipts += unknownProducts.count
        for ids in unknownProducts { self.unknownProducts.formUnion(ids) }
        guard isWholeNight || classifiedReceipts >= minimumReceipts else { return nil }
        return unknownProductsTrip() ?? unverifiedTrip()
    }

    /// Counts one user whose plan was made.
    /// - Returns: the trip, when the revoke judge trips.
    public mutating func planned(receipts: Int, revoked: Bool) -> Trip? {
        plannedUsers += 1
        plannedReceipts += receipts
        if revoked { revokedUsers += 1 }
        return revokeJudgeSpeaks ? revokeTrip() : nil
    }

    /// Takes back a user fed to `planned` whose transaction did not commit (the database dropped the
    /// connection): the batch is planned again and feeds it again.
    public mutating func withdrawn(receipts: Int, revoked: Bool) {
        plannedUsers -= 1
        plannedReceipts -= receipts
        if revoked { revokedUsers -= 1 }
    }

    /// The night has no more users to classify: the classification judges speak on all of it.
    public mutating func classifiedWholeNight() -> Trip? {
        isWholeNight = true
        guard classifiedReceipts > 0 else { return nil }
        return unknownProductsTrip() ?? unverifiedTrip()
    }

    /// Every user of the night was planned: the revoke judge speaks on all of them.
    public mutating func plannedWholeNight() -> Trip? {
        isWholeNightPlanned = true
        return plannedUsers > 0 ? revokeTrip() : nil
    }

    private func unverifiedTrip() -> Trip? {
        guard unverifiedReceipts > 0 else { return nil }
        let ratio = Double(unverifiedReceipts) / Double(classifiedReceipts)
        // Nearly all: Apple unreachable or refusing, whatever the floor and however small the night (unless
        // the limit itself allows nearly all: the operator turned the judge off).
        let nearlyAll = ratio >= Self.nearlyAll && ratio > maxUnverifiedRatio
        // Division, not multiplication of the limit: a ratio and a limit that are equal as decimals (15/150
        // and 0.10) are equal as doubles too, so "exceeds" stays strict.
        guard nearlyAll || (ratio > maxUnverifiedRatio && unverifiedReceipts >= Self.unverifiedFloor) else {
            return nil
        }
        // The reason is worded only for a trip: this judge runs for every user of the night.
        let (shown, limit) = Self.format(ratio, maxUnverifiedRatio)
        let counted = "\(unverifiedReceipts) of \(classifiedReceipts) receipts transiently unverified (\(shown))"
        let first = firstUnverifiedCause.map { " (the first: \($0))" } ?? ""
        let rerun = "\(first); rerunning does the same until Apple answers: check Apple's status and the job's log"
        return Trip(
            judge: .unverified,
            reason: "circuit breaker: \(nearlyAll ? "Apple unreachable or refusing: " : "")\(counted) exceeds "
                + "--max-unverified-ratio \(limit)\(rerun)")
    }

    private func revokeTrip() -> Trip? {
        let ratio = Double(revokedUsers) / Double(plannedUsers)
        guard ratio > maxRevokeRatio, revokedUsers >= Self.revokeFloor else { return nil }
        let (shown, limit) = Self.format(ratio, maxRevokeRatio)
        return Trip(
            judge: .revoke,
            reason:
                "circuit breaker: \(revokedUsers) of \(plannedUsers) users would be revoked (\(shown)) exceeds "
                + "--max-revoke-ratio \(limit); nothing was taken away. Rerunning does the same unless the cause is "
                + "fixed: check the products mapping (kind, entitlement), the bundle ids and the environment, or raise "
                + "--max-revoke-ratio for a night you know is right")
    }

    private func unknownProductsTrip() -> Trip? {
        guard unknownProductReceipts >= Self.unknownProductFloor else { return nil }
        let share = Double(unknownProductReceipts) / Double(classifiedReceipts)
        guard share > Self.unknownProductShare else { return nil }
        let (shown, limit) = Self.format(share, Self.unknownProductShare)
        let sorted = unknownProducts.sorted()
        let named =
            sorted.prefix(10).joined(separator: ", ") + (sorted.count > 10 ? " and \(sorted.count - 10) more" : "")
        return Trip(
            judge: .unknownProducts,
            reason:
                "products does not hold the products of \(unknownProductReceipts) of \(classifiedReceipts) receipts "
                + "(\(shown), more than \(limit)): \(named); nothing was written. Add them to products (kind "
                + "consumable with no entitlement if they unlock nothing; docs/integration.md, mapping), then rerun")
    }

    /// Two decimals, or as many more (up to 6) as it takes for a ratio that exceeds its limit
    /// not to print as the same number ("0.10 exceeds 0.10").
    static func format(_ ratio: Double, _ limit: Double) -> (String, String) {
        var digits = 2
        while digits < 6, String(format: "%.\(digits)f", ratio) == String(format: "%.\(digits)f", limit) {
            digits += 1
        }
        return (String(format: "%.\(digits)f", ratio), String(format: "%.\(digits)f", limit))
    }
}
