import AppStoreReceipts

/// Apple's verifyReceipt logic over the world: the answer an endpoint gives for a receipt, computed
/// from the world as it is at `asOf` (renewals, refunds and upgrades the receipt never saw included).
///
/// Pure: no I/O, no clock (`request_date` is the world's `asOf`, the instant this App Store lives at),
/// no randomness. Faults are injected elsewhere (`FaultInjector`).
public struct AppleAnswerer: Sendable {
    public let world: SimulatedWorld
    /// When set, receipts with auto-renewables need `password` equal to it (else 21004).
    public let sharedSecret: String?

    public init(world: SimulatedWorld, sharedSecret: String? = nil) {
        self.world = world
        self.sharedSecret = sharedSecret
    }

    /// The answer of `endpoint` for a receipt of `identity`. `includeLatestReceipt: false` leaves out
    /// `latest_receipt`, the one costly part (a whole receipt to encode), for callers that only read values.
    ///
    /// Checks in the order Apple's server can make them: is it a receipt (21002), did this store sign it
    /// (21003), is it this endpoint's (21007 / 21008), is the secret right (21004), can the account be
    /// served (21010, 21199), and only then the receipt's contents (0, or 21006 for an expired iOS 6
    /// subscription).
    public func answer(
        _ identity: ReceiptIdentity,
        unit: (Int) -> WorldUnit,
        endpoint: AppStoreEnvironment,
        password: String?,
        excludeOldTransactions: Bool,
        includeLatestReceipt: Bool = true
    ) -> AppleAnswer {
        let asOf = world.asOfMs
        switch identity {
        case .malformed:
            return .bare(21002)
        case .unauthenticated:
            return .bare(21003)
        case .app(let unitIndex, let accountSlot, let created):
            let owner = unit(unitIndex).accounts[accountSlot]
            let asOf = owner.answeredAt(worldAsOf: world.asOfMs)
            if let refusal = refusal(
                for: owner, endpoint: endpoint, password: password, subscribed: owner.hasAutoRenewables(by: asOf))
            {
                return refusal
            }
            var answer = AppleAnswer(status: 0, environment: owner.environment)
            answer.receipt = AppleAnswer.AppReceipt(
                receiptType: owner.environment == .sandbox ? "ProductionSandbox" : "Production",
                appItemID: owner.appItemID, bundleID: owner.bundleID, applicationVersion: owner.applicationVersion,
                downloadID: owner.downloadID, versionExternalIdentifier: owner.versionExternalIdentifier,
                creationMs: created, requestMs: asOf, originalPurchaseMs: owner.appDownloadMs,
                originalApplicationVersion: owner.originalApplicationVersion,
                inApp: owner.transactions(purchasedBy: created).map { $0.view(at: asOf) })
            if owner.hasAutoRenewables(by: asOf) {
                // Every transaction but consumables; with exclude-old-transactions, the newest per chain.
                var latest = owner.transactions(purchasedBy: asOf)
                    .filter { WorldCatalog.product($0.productID)?.kind != .consumable }
                if excludeOldTransactions { latest = Self.newestPerOriginalTransaction(latest) }
                answer.latestReceiptInfo = latest.map { $0.view(at: asOf) }
                if includeLatestReceipt {
                    answer.latestReceipt = unit(unitIndex).latestReceiptData(account: accountSlot)
                }
                answer.pendingRenewalInfo = owner.renewals
            }
            return answer

        case .transaction(let unitIndex, let accountSlot, let id):
            let owner = unit(unitIndex).accounts[accountSlot]
            let asOf = owner.answeredAt(worldAsOf: world.asOfMs)
            let transaction = owner.transaction(withID: id)!
            let isSubscription = WorldCatalog.product(transaction.productID)?.kind == .autoRenewable
            if let refusal = refusal(for: owner, endpoint: endpoint, password: password, subscribed: isSubscription) {
                // iOS 6 answers carry no `environment`.
                return AppleAnswer(status: refusal.status, isRetryable: refusal.isRetryable)
            }
            var answer = AppleAnswer(status: 0)
            answer.transactionReceipt = AppleAnswer.TransactionReceipt(
                bundleID: owner.bundleID, applicationVersion: owner.applicationVersion, appItemID: owner.appItemID,
                versionExternalIdentifier: owner.versionExternalIdentifier,
                uniqueIdentifier: owner.deviceIdentifier, uniqueVendorIdentifier: owner.vendorIdentifier,
                transaction: transaction.view(at: asOf))
            guard isSubscription else { return answer }
            let chain = owner.transactions(purchasedBy: asOf).filter {
                $0.originalTransactionID == transaction.originalTransactionID
            }
            let newest =
                chain.max { ($0.purchaseMs, $0.transactionID) < ($1.purchaseMs, $1.transactionID) } ?? transaction
            answer.pendingRenewalInfo = owner.renewals.filter {
                $0.originalTransactionID == transaction.originalTransactionID
            }
            if (newest.expiresMs ?? .max) <= asOf {
                answer.status = 21006
                answer.latestExpiredReceiptInfo = newest.view(at: asOf)
            } else {
                answer.latestReceiptInfo = [newest.view(at: asOf)]
                if includeLatestReceipt {
                    answer.latestReceipt = unit(unitIndex).latestTransactionReceiptData(
                        account: accountSlot, transactionID: newest.transactionID)
                }
            }
            return answer
        }
    }

    /// The answers that come before a receipt's contents: wrong endpoint, wrong secret, an account
    /// Apple cannot serve.
    private func refusal(
        for owner: WorldAccount,
        endpoint: AppStoreEnvironment,
        password: String?,
        subscribed: Bool
    ) -> AppleAnswer? {
        if owner.environment != endpoint {
            return .bare(owner.environment == .sandbox ? 21007 : 21008)
        }
        if let sharedSecret, subscribed, password != sharedSecret {
            return .bare(21004, environment: endpoint)
        }
        switch owner.standing {
        case .good:
            return nil
        case .deleted(let at) where at <= world.asOfMs:
            return .bare(21010, environment: endpoint, isRetryable: false)
        case .deleted:
            return nil
        case .internalError:
            return .bare(21199, environment: endpoint, isRetryable: false)
        }
    }

    /// The newest transaction (latest purchase) of each original transaction id, in purchase order.
    static func newestPerOriginalTransaction(_ transactions: [WorldTransaction]) -> [WorldTransaction] {
        var newest: [String: WorldTransaction] = [:]
        for transaction in transactions {
            if let current = newest[transaction.originalTransactionID],
                (current.purchaseMs, current.transactionID) >= (transaction.purchaseMs, transaction.transactionID)
            {
                continue
            }
            newest[transaction.originalTransactionID] = transaction
        }
        // Keep the input's (purchase) order rather than the dictionary's.
        return transactions.filter { newest[$0.originalTransactionID]?.transactionID == $0.transactionID }
    }
}
