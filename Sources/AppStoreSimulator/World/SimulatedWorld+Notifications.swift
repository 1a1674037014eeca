import AppStoreReceipts

/// The world's notification history: every unit's notifications (`WorldUnit.notifications`) plus, in
/// unit 0, the forced ones every world has whatever its seed: one `TEST`, one notification of a type the
/// job does not know (`SIMULATED_FUTURE_TYPE`) carrying a transaction, and one purchase no app row
/// stores (`ONE_TIME_CHARGE` of the orphan account, for the job's `notifications_unmatched`).
extension SimulatedWorld {
    /// How far back Apple keeps notifications (research/server-api.md §9): 180 days in production,
    /// 30 in the sandbox.
    public static func historyWindowMs(_ environment: AppStoreEnvironment) -> Int64 {
        Int64(environment == .sandbox ? 30 : 180) * SubscriptionClock.millisecondsPerDay
    }

    /// The share of notifications whose delivery failed in a world seeded without a missed share:
    /// chosen per notification from its signed date and sequence (and the seed).
    public static let deliveryFailureShare = 0.05

    /// The unit holding the forced notifications.
    static let forcedNotificationUnit = 0

    /// Every notification of `unit` that Apple's history still holds at `asOf` (signed within the
    /// longer window of the two environments), ordered by account slot then sequence.
    public func notifications(of unit: WorldUnit) -> [WorldNotification] {
        let from = asOfMs - Self.historyWindowMs(.production)
        var result: [WorldNotification] = []
        for slot in unit.accounts.indices {
            result += unit.notifications(ofAccount: slot, home: environment, from: from) {
                deliveryFailed($0, unit: unit.index)
            }
        }
        if unit.index == Self.forcedNotificationUnit { result += forcedNotifications(unit) }
        return result
    }

    /// Whether the app's webhook never received `notification` (of unit `unit`): in an incremental world,
    /// exactly the changes of missed users since `since`; else a share chosen by the notification.
    func deliveryFailed(_ notification: WorldNotification, unit: Int) -> Bool {
        if let incremental = parameters.incremental {
            // One account per user, opened in user order.
            guard let account = notification.account, notification.signedMs > incremental.sinceMs else { return false }
            return incremental.plan(seed: parameters.seed, userIndex: unit * 2 + account).missed
        }
        var rng = SplitMix64.derive(
            parameters.seed ^ 0xDE11_7E2E, UInt64(notification.signedMs), UInt64(notification.sequence))
        return rng.unit() < Self.deliveryFailureShare
    }

    private func forcedNotifications(_ unit: WorldUnit) -> [WorldNotification] {
        var forced: [WorldNotification] = []
        let base = 90_000  // sequences of the forced notifications, beyond any account's history
        // TEST: Apple's "Request a Test Notification", about no account.
        forced.append(
            WorldNotification(
                type: "TEST", subtype: nil, signedMs: asOfMs - 3_600_000, account: nil, sequence: base,
                uuid: WorldNotification.uuid(seed: parameters.seed, unit: unit.index, account: nil, sequence: base),
                transactionID: nil, originalTransactionID: nil, productID: nil, carriesRenewalInfo: false,
                sendAttempts: WorldUnit.attempts(at: asOfMs - 3_600_000, failed: false, asOf: asOfMs),
                environment: environment))
        // A type of tomorrow, about the newest purchase of the first account of the app's environment.
        if let slot = unit.accounts.indices.first(where: {
            unit.accounts[$0].environment == environment && unit.accounts[$0].bundleID == WorldCatalog.appBundleID
                && !unit.accounts[$0].transactions(purchasedBy: asOfMs).isEmpty
        }), let last = unit.accounts[slot].transactions(purchasedBy: asOfMs).last {
            let at = asOfMs - 2 * 3_600_000
            forced.append(
                WorldNotification(
                    type: WorldNotification.unknownType, subtype: nil, signedMs: at, account: slot, sequence: base + 1,
                    uuid: WorldNotification.uuid(
                        seed: parameters.seed, unit: unit.index, account: slot, sequence: base + 1),
                    transactionID: last.transactionID, originalTransactionID: last.originalTransactionID,
                    productID: last.productID,
                    carriesRenewalInfo: WorldCatalog.product(last.productID)?.kind == .autoRenewable,
                    sendAttempts: WorldUnit.attempts(at: at, failed: false, asOf: asOfMs), environment: environment))
        }
        // The purchase no app row stores.
        let orphan = WorldNotification.orphanAccount
        forced += unit.notifications(ofAccount: orphan, home: environment, from: .min) { _ in false }
        return forced
    }
}
