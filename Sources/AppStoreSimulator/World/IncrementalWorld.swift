import AppStoreReceipts

/// The parameters of an incremental world (`simulator seed|serve --changed-fraction F`): every user is
/// a StoreKit 2 user the job verified correctly at `since` (the previous run), and a share `F` of them
/// changed at Apple in `(since, asOf]`; the app's webhook missed the notifications of a share `M` of
/// those. The app's rows hold what it heard (delivered changes applied, missed ones not); a correct
/// incremental run corrects exactly the missed users.
///
/// A user's plan is a pure function of `(seed, user index)`: the same parameters give the same changed
/// and missed users in `seed` and `serve`.
public struct IncrementalWorld: Sendable, Hashable {
    /// The share of users whose state changed at Apple since the previous run.
    public var changedFraction: Double
    /// The previous run's instant (`--changed-since`), milliseconds since 1970.
    public var sinceMs: Int64
    /// The share of changed users whose notifications never reached the app.
    public var missedFraction: Double
    /// The previous runs' spread: each user was last verified `k` whole days before `since`, `k` drawn in
    /// `0..<lastVerifiedNights`.
    public var lastVerifiedNights: Int

    public init(changedFraction: Double, sinceMs: Int64, missedFraction: Double = 0.5, lastVerifiedNights: Int = 30) {
        self.changedFraction = changedFraction
        self.sinceMs = sinceMs
        self.missedFraction = missedFraction
        self.lastVerifiedNights = max(1, lastVerifiedNights)
    }

    /// One Apple-side change in `(since, asOf]`: each leaves the app's row stale when its notification is
    /// missed, and right when delivered.
    public enum Change: String, Sendable, Hashable, CaseIterable {
        /// A monthly subscription renewed (`DID_RENEW`): the missed row ends at the old expiry.
        case renewal
        /// Auto-renew was off and the subscription ran out (`EXPIRED/VOLUNTARY`): the missed row stays active.
        case expiry
        /// A lifetime purchase was refunded (`REFUND`): the missed row stays active.
        case refund
        /// The renewal failed and the grace period began (`DID_FAIL_TO_RENEW/GRACE_PERIOD`): the missed row
        /// ends at the old expiry instead of the grace end.
        case gracePeriod
        /// A new subscriber (`SUBSCRIBED/INITIAL_BUY`) whose JWS row the app stored: a row no run has
        /// verified (the run's `new`). Missed: the app never granted it.
        case newPurchase
    }

    /// What happens to one user.
    public struct UserPlan: Sendable, Hashable {
        public var change: Change?
        public var missed: Bool
        /// Days between the user's last verification and `since`.
        public var verifiedDaysBeforeSince: Int
        /// A quiet user holding pro (no subscription) rather than a monthly subscription.
        public var quietLifetime: Bool
    }

    /// The first users are changed in every kind, missed and delivered, whatever `F` (so any world of a
    /// dozen users covers them); the others draw.
    static let forcedChanges: [(Change, Bool)] = Change.allCases.flatMap { [($0, true), ($0, false)] }

    public func plan(seed: UInt64, userIndex: Int) -> UserPlan {
        var rng = SplitMix64.derive(seed ^ 0x1AC2_E3E1, UInt64(userIndex), 41)
        let days = rng.int(in: 0...(lastVerifiedNights - 1))
        let lifetime = rng.chance(0.2)
        // User 0 stays quiet: the world's unknown-type notification names it.
        let forcedPosition = userIndex - 1
        if changedFraction > 0, forcedPosition >= 0, forcedPosition < Self.forcedChanges.count {
            let (change, missed) = Self.forcedChanges[forcedPosition]
            return UserPlan(change: change, missed: missed, verifiedDaysBeforeSince: days, quietLifetime: false)
        }
        guard userIndex > 0, rng.chance(changedFraction) else {
            return UserPlan(change: nil, missed: false, verifiedDaysBeforeSince: days, quietLifetime: lifetime)
        }
        let change = Change.allCases[Int(rng.below(UInt64(Change.allCases.count)))]
        return UserPlan(
            change: change, missed: rng.chance(missedFraction), verifiedDaysBeforeSince: days, quietLifetime: false)
    }
}
