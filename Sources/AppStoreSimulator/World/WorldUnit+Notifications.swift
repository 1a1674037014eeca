import AppStoreReceipts

/// The App Store Server Notifications V2 of a unit: every change Apple told (or tried to tell) the app
/// about, derived from the accounts' transactions and renewal infos alone.
///
/// Per account, in time order: a purchase (`SUBSCRIBED/INITIAL_BUY` starting a chain, `ONE_TIME_CHARGE`
/// for anything else), each renewal (`DID_RENEW`), an upgrade (`DID_CHANGE_RENEWAL_PREF/UPGRADE`), a refund
/// (`REFUND`, `REVOKE` for a Family Sharing copy) and its reversal (`REFUND_REVERSED`), auto-renew turned
/// off (`DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED`), a failed renewal (`DID_FAIL_TO_RENEW`, subtype
/// `GRACE_PERIOD` with a grace period) and the grace period's end (`GRACE_PERIOD_EXPIRED`), a chain's end
/// (`EXPIRED/VOLUNTARY` or `/BILLING_RETRY`). Sequence numbers count the account's whole history, so a
/// notification's UUID does not depend on the window asked.
extension WorldUnit {
    /// One change before it becomes a notification.
    private struct Change {
        var type: String
        var subtype: String?
        var at: Int64
        var transaction: WorldTransaction
    }

    /// The notifications of account `slot` signed in `[from, asOf]`, in sequence order; `failed` decides
    /// which ones the app's webhook never received.
    func notifications(
        ofAccount slot: Int, home: AppStoreEnvironment, from: Int64, failed: (WorldNotification) -> Bool
    ) -> [WorldNotification] {
        let owner = notificationAccount(slot, home: home)
        guard owner.bundleID == WorldCatalog.appBundleID else { return [] }
        if case .deleted(let at) = owner.standing, at <= asOfMs { return [] }
        let changes = Self.changes(of: owner, asOf: asOfMs)
        var result: [WorldNotification] = []
        for (sequence, change) in changes.enumerated() where change.at >= from {
            var notification = WorldNotification(
                type: change.type, subtype: change.subtype, signedMs: change.at, account: slot, sequence: sequence,
                uuid: WorldNotification.uuid(seed: seed, unit: index, account: slot, sequence: sequence),
                transactionID: change.transaction.transactionID,
                originalTransactionID: change.transaction.originalTransactionID,
                productID: change.transaction.productID,
                carriesRenewalInfo: WorldCatalog.product(change.transaction.productID)?.kind == .autoRenewable,
                sendAttempts: [], environment: owner.environment)
            notification.sendAttempts = Self.attempts(at: change.at, failed: failed(notification), asOf: asOfMs)
            result.append(notification)
        }
        return result
    }

    /// Delivery attempts: one success, or Apple's retries (1 to 72 hours later) that all failed, as far
    /// as they happened by `asOf`.
    static func attempts(at signedMs: Int64, failed: Bool, asOf: Int64) -> [WorldNotification.SendAttempt] {
        guard failed else { return [WorldNotification.SendAttempt(attemptMs: signedMs, result: "SUCCESS")] }
        let results = WorldNotification.failureResults
        var attempts: [WorldNotification.SendAttempt] = []
        for (step, hours) in WorldNotification.retryHours.enumerated() {
            let at = signedMs + hours * 3_600_000
            guard step == 0 || at <= asOf else { break }
            let pick = Int(SplitMix64.mix(UInt64(bitPattern: signedMs) &+ UInt64(step)) % UInt64(results.count))
            attempts.append(WorldNotification.SendAttempt(attemptMs: at, result: results[pick]))
        }
        return attempts
    }

    /// Account `slot`, or the world's orphan account (a purchase no app row stores) for
    /// `WorldNotification.orphanAccount` (of the world's environment `home`).
    func notificationAccount(_ slot: Int, home: AppStoreEnvironment) -> WorldAccount {
        slot == WorldNotification.orphanAccount ? orphanAccount(environment: home) : accounts[slot]
    }

    /// An Apple account of the app that bought pro three hours before `asOf` on a device whose app never
    /// sent the purchase anywhere: its notification names a transaction no row holds. Its ids encode
    /// slot `orphanAccount` of this unit, which no unit has, so every Server API route answers 4040010.
    func orphanAccount(environment home: AppStoreEnvironment) -> WorldAccount {
        let local =
            UInt64(index) * WorldUnitBuilder.accountsPerUnit * WorldUnitBuilder.transactionsPerAccount
            + UInt64(WorldNotification.orphanAccount) * WorldUnitBuilder.transactionsPerAccount
        let id = String(WorldUnitBuilder.transactionIDBase + local)
        let purchase = asOfMs - 3 * 3_600_000
        let transaction = WorldTransaction(
            productID: WorldCatalog.pro.id, transactionID: id, originalTransactionID: id, purchaseMs: purchase,
            originalPurchaseMs: purchase, expiresMs: nil, refund: nil, upgradedAt: nil, isTrialPeriod: false,
            isInIntroOfferPeriod: false, webOrderLineItemID: nil, ownership: .purchased, quantity: 1)
        return WorldAccount(
            slot: WorldNotification.orphanAccount, environment: home, bundleID: WorldCatalog.appBundleID,
            appItemID: home == .sandbox ? 0 : WorldCatalog.appItemID, downloadID: nil,
            versionExternalIdentifier: 0, appDownloadMs: purchase - 60_000, originalApplicationVersion: "1",
            applicationVersion: "1", transactions: [transaction], renewals: [], standing: .good,
            deviceSeed: UInt64(index))
    }

    /// Every change of `owner` up to `asOf`, in time order (ties in the order found).
    private static func changes(of owner: WorldAccount, asOf: Int64) -> [Change] {
        var changes: [Change] = []
        let purchased = owner.transactions(purchasedBy: asOf)
        for transaction in purchased {
            let kind = WorldCatalog.product(transaction.productID)?.kind ?? .nonConsumable
            if kind != .autoRenewable {
                changes.append(Change(type: "ONE_TIME_CHARGE", at: transaction.purchaseMs, transaction: transaction))
            } else if transaction.transactionID == transaction.originalTransactionID {
                changes.append(
                    Change(
                        type: "SUBSCRIBED", subtype: "INITIAL_BUY", at: transaction.purchaseMs,
                        transaction: transaction))
            } else {
                changes.append(Change(type: "DID_RENEW", at: transaction.purchaseMs, transaction: transaction))
            }
            if let upgradedAt = transaction.upgradedAt, upgradedAt <= asOf {
                changes.append(
                    Change(
                        type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", at: upgradedAt, transaction: transaction))
            }
            if let refund = transaction.refund, refund.at <= asOf {
                let type = transaction.ownership == .familyShared ? "REVOKE" : "REFUND"
                changes.append(Change(type: type, at: refund.at, transaction: transaction))
                if let reversed = refund.reversedAt, reversed <= asOf {
                    changes.append(Change(type: "REFUND_REVERSED", at: reversed, transaction: transaction))
                }
            }
        }
        for renewal in owner.renewals {
            let chain = purchased.filter { $0.originalTransactionID == renewal.originalTransactionID }
            guard let last = chain.last, let expires = last.expiresMs else { continue }
            if !renewal.autoRenewStatus {
                // The customer turned it off some time during the last period.
                let at = min(asOf - 1_000, last.purchaseMs + (expires - last.purchaseMs) / 2)
                changes.append(
                    Change(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: at, transaction: last)
                )
            }
            guard expires <= asOf, last.upgradedAt == nil, !last.view(at: asOf).isRevoked else { continue }
            if renewal.isInBillingRetryPeriod == true {
                let grace = renewal.gracePeriodExpiresMs
                changes.append(
                    Change(
                        type: "DID_FAIL_TO_RENEW", subtype: grace == nil ? nil : "GRACE_PERIOD", at: expires,
                        transaction: last))
                if let grace, grace <= asOf {
                    changes.append(Change(type: "GRACE_PERIOD_EXPIRED", at: grace, transaction: last))
                }
            } else {
                let subtype = renewal.expirationIntent == 2 ? "BILLING_RETRY" : "VOLUNTARY"
                changes.append(Change(type: "EXPIRED", subtype: subtype, at: expires, transaction: last))
            }
        }
        // Stable: equal instants keep the order found (a purchase before its refund at the same ms).
        return changes.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}
