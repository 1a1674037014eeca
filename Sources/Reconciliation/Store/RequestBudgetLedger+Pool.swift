import Foundation

/// One endpoint's tokens on hand in one ledger, for the current window: the rule of who may use which,
/// apart from the database.
///
/// Tokens leased below the ask limit serve any request; tokens leased above it (from the reserve)
/// serve only work already asked. So a lease is split by where it fell in the window's sum.
struct EndpointPool: Sendable {
    /// The window the tokens belong to (its start by PostgreSQL's clock); nil before the first lease.
    var window: Date?
    /// When that window ends, by this process's clock.
    var endsAt = Date.distantPast
    var askTokens = 0
    var reserveTokens = 0
    /// The window's sum reached the ask limit / the limit: no lease can add tokens for that purpose.
    var asksSpent = false
    var allSpent = false
    /// A caller is refilling the pool ahead of need.
    var refilling = false

    var granted = 0
    var leased = 0
    var windows: Set<Date> = []
    var spentAt: Date?
    /// The end of the last spent window the run was told it waits out (`RequestBudgetLedger.onWait`).
    var waitToldUntil: Date?

    enum Step: Equatable {
        /// Send it; `refill`: the pool runs low and this caller leases more now.
        case granted(refill: Bool)
        /// The window is spent for this purpose; it ends at `endsAt`.
        case windowSpent(endsAt: Date)
        /// No token on hand and the window may have more: lease, then take again.
        case lease
    }

    /// A token for a request (`asks`: a new question), or what to do instead. `refills`: whether this
    /// caller may be asked to refill a pool running low (not the one that just leased).
    mutating func take(asks: Bool, now: Date, lease size: Int, refills: Bool = true) -> Step {
        roll(now: now)
        if asks, askTokens > 0 {
            askTokens -= 1
        } else if !asks, reserveTokens > 0 {
            reserveTokens -= 1
        } else if !asks, askTokens > 0 {
            askTokens -= 1
        } else {
            return isSpent(asks: asks) ? .windowSpent(endsAt: endsAt) : .lease
        }
        granted += 1
        let left = asks ? askTokens : askTokens + reserveTokens
        guard refills, left <= size / 2, !isSpent(asks: asks), !refilling else { return .granted(refill: false) }
        refilling = true
        return .granted(refill: true)
    }

    /// Whether a request finding the pool as it is now needs a lease.
    mutating func needsLease(asks: Bool, now: Date) -> Bool {
        roll(now: now)
        let onHand = asks ? askTokens : askTokens + reserveTokens
        return onHand == 0 && !isSpent(asks: asks)
    }

    /// Adds `lease`'s tokens; a lease of a later window replaces the pool, one of an earlier window
    /// (the hour turned while it was asked) is dropped.
    mutating func add(_ lease: BudgetLease, endsAt: Date, askLimit: Int, limit: Int) {
        leased += lease.count
        if let window, lease.window < window { return }
        if window != lease.window {
            window = lease.window
            askTokens = 0
            reserveTokens = 0
            windows.insert(lease.window)
        }
        self.endsAt = endsAt
        let belowAskLimit = max(0, min(lease.granted, askLimit) - lease.before)
        askTokens += belowAskLimit
        reserveTokens += lease.count - belowAskLimit
        asksSpent = lease.granted >= askLimit
        allSpent = lease.granted >= limit
    }

    private func isSpent(asks: Bool) -> Bool {
        window != nil && (asks ? asksSpent : allSpent)
    }

    /// Drops the tokens of a window that has ended: they count in their own hour only.
    private mutating func roll(now: Date) {
        guard window != nil, now >= endsAt else { return }
        window = nil
        askTokens = 0
        reserveTokens = 0
        asksSpent = false
        allSpent = false
    }
}
