import AppStoreReceipts

/// Builds one `WorldUnit`: opens accounts, records purchases and renewals, issues receipts.
///
/// Transaction ids encode where they live, `2` + unit (10 digits) + account (1) + sequence (5), so
/// they are unique across the world without any shared counter and lead straight back to their unit
/// (`WorldReceiptLocator`). Every generated instant is whole seconds away from `asOf`.
struct WorldUnitBuilder {
    static let transactionIDBase: UInt64 = 2_000_000_000_000_000
    static let webOrderBase: UInt64 = 3_000_000_000_000_000
    static let accountsPerUnit: UInt64 = 10
    static let transactionsPerAccount: UInt64 = 100_000

    let seed: UInt64
    let asOf: Int64
    /// The environment the app's database serves; accounts live there unless a scenario says otherwise.
    let home: AppStoreEnvironment
    let unitIndex: Int
    var accounts: [WorldAccount] = []
    var receipts: [WorldReceipt] = []
    var users: [WorldUser] = []
    private var sequences: [UInt64] = []

    init(seed: UInt64, asOf: Int64, home: AppStoreEnvironment, unitIndex: Int) {
        self.seed = seed
        self.asOf = asOf
        self.home = home
        self.unitIndex = unitIndex
    }

    /// Transactions sorted by purchase date, then id (stable, so the unit is deterministic).
    func build() -> WorldUnit {
        var accounts = accounts
        for index in accounts.indices {
            accounts[index].transactions.sort {
                ($0.purchaseMs, $0.transactionID) < ($1.purchaseMs, $1.transactionID)
            }
        }
        return WorldUnit(
            index: unitIndex, asOfMs: asOf, seed: seed, accounts: accounts, receipts: receipts, users: users)
    }

    // MARK: Accounts and purchases

    /// Opens an Apple account that downloaded the app at `downloadedAt`.
    mutating func openAccount(
        _ rng: inout SplitMix64,
        environment: AppStoreEnvironment,
        bundleID: String = WorldCatalog.appBundleID,
        downloadedAt: Int64,
        standing: WorldAccount.Standing = .good
    ) -> Int {
        let slot = accounts.count
        precondition(UInt64(slot) < Self.accountsPerUnit, "too many accounts in one unit")
        let sandbox = environment == .sandbox
        let itemID = bundleID == WorldCatalog.appBundleID ? WorldCatalog.appItemID : WorldCatalog.cloneItemID
        let build = rng.int(in: 40...90)
        let original = rng.int(in: 10...build)
        accounts.append(
            WorldAccount(
                slot: slot,
                environment: environment,
                bundleID: bundleID,
                appItemID: sandbox ? 0 : itemID,
                downloadID: sandbox ? 0 : Int64(rng.int64(in: 10_000_000_000...99_999_999_999)),
                versionExternalIdentifier: sandbox ? 0 : Int64(rng.int(in: 800_000_000...899_999_999)),
                appDownloadMs: downloadedAt,
                originalApplicationVersion: sandbox ? "1.0" : String(original),
                applicationVersion: String(build),
                transactions: [],
                renewals: [],
                standing: standing,
                deviceSeed: rng.next()))
        sequences.append(0)
        return slot
    }

    private mutating func nextIdentifiers(_ account: Int) -> (transactionID: String, webOrder: String) {
        let sequence = sequences[account]
        precondition(sequence < Self.transactionsPerAccount, "too many transactions in one account")
        sequences[account] += 1
        let local =
            UInt64(unitIndex) * Self.accountsPerUnit * Self.transactionsPerAccount
            + UInt64(account) * Self.transactionsPerAccount + sequence
        return (String(Self.transactionIDBase + local), String(Self.webOrderBase + local))
    }

    /// Records a one-off purchase (consumable, non-consumable, non-renewing) and returns its id.
    @discardableResult
    mutating func buy(
        _ account: Int,
        _ product: WorldProduct,
        at instant: Int64,
        ownership: WorldTransaction.Ownership = .purchased,
        quantity: Int = 1
    ) -> String {
        let ids = nextIdentifiers(account)
        accounts[account].transactions.append(
            WorldTransaction(
                productID: product.id, transactionID: ids.transactionID, originalTransactionID: ids.transactionID,
                purchaseMs: instant, originalPurchaseMs: instant, expiresMs: nil, refund: nil, upgradedAt: nil,
                isTrialPeriod: false, isInIntroOfferPeriod: false, webOrderLineItemID: nil, ownership: ownership,
                quantity: quantity))
        return ids.transactionID
    }

    /// An auto-renewable chain: its original transaction id and its periods in order.
    struct Chain {
        var account: Int
        var originalTransactionID: String
        var transactionIDs: [String]
        var purchases: [Int64]
        var expiries: [Int64]

        var lastPurchase: Int64 { purchases[purchases.count - 1] }
        var lastExpiry: Int64 { expiries[expiries.count - 1] }
    }

    /// Records `periods` consecutive periods of `product` from `start` (each renewal at the previous
    /// expiry) and a pending renewal that will renew into the same product.
    mutating func subscribe(
        _ account: Int,
        _ product: WorldProduct,
        start: Int64,
        periods: Int,
        trialFirst: Bool = false,
        ownership: WorldTransaction.Ownership = .purchased
    ) -> Chain {
        precondition(periods >= 1 && product.kind == .autoRenewable)
        let length = SubscriptionClock.length(product.period!, in: accounts[account].environment)
        var chain = Chain(account: account, originalTransactionID: "", transactionIDs: [], purchases: [], expiries: [])
        for period in 0..<periods {
            let ids = nextIdentifiers(account)
            if period == 0 { chain.originalTransactionID = ids.transactionID }
            let purchase = start + Int64(period) * length
            accounts[account].transactions.append(
                WorldTransaction(
                    productID: product.id, transactionID: ids.transactionID,
                    originalTransactionID: chain.originalTransactionID, purchaseMs: purchase, originalPurchaseMs: start,
                    expiresMs: purchase + length, refund: nil, upgradedAt: nil,
                    isTrialPeriod: trialFirst && period == 0, isInIntroOfferPeriod: false,
                    webOrderLineItemID: ids.webOrder, ownership: ownership, quantity: 1))
            chain.transactionIDs.append(ids.transactionID)
            chain.purchases.append(purchase)
            chain.expiries.append(purchase + length)
        }
        accounts[account].renewals.append(
            WorldAccount.RenewalInfo(
                originalTransactionID: chain.originalTransactionID, productID: product.id,
                autoRenewProductID: product.id,
                autoRenewStatus: true, expirationIntent: nil, isInBillingRetryPeriod: nil, gracePeriodExpiresMs: nil))
        return chain
    }

    /// Appends a period of `product` to `chain` at `instant` (an upgrade or crossgrade inside the group).
    mutating func continueChain(_ chain: inout Chain, with product: WorldProduct, at instant: Int64) {
        let account = chain.account
        let length = SubscriptionClock.length(product.period!, in: accounts[account].environment)
        let ids = nextIdentifiers(account)
        let original = accounts[account].transactions.first { $0.transactionID == chain.originalTransactionID }!
        accounts[account].transactions.append(
            WorldTransaction(
                productID: product.id, transactionID: ids.transactionID,
                originalTransactionID: chain.originalTransactionID,
                purchaseMs: instant, originalPurchaseMs: original.purchaseMs, expiresMs: instant + length, refund: nil,
                upgradedAt: nil, isTrialPeriod: false, isInIntroOfferPeriod: false, webOrderLineItemID: ids.webOrder,
                ownership: original.ownership, quantity: 1))
        chain.transactionIDs.append(ids.transactionID)
        chain.purchases.append(instant)
        chain.expiries.append(instant + length)
        updateRenewal(chain) {
            $0.productID = product.id
            $0.autoRenewProductID = product.id
        }
    }

    mutating func updateTransaction(_ account: Int, _ id: String, _ change: (inout WorldTransaction) -> Void) {
        let index = accounts[account].transactions.firstIndex { $0.transactionID == id }!
        change(&accounts[account].transactions[index])
    }

    mutating func updateRenewal(_ chain: Chain, _ change: (inout WorldAccount.RenewalInfo) -> Void) {
        let index = accounts[chain.account].renewals.firstIndex {
            $0.originalTransactionID == chain.originalTransactionID
        }!
        change(&accounts[chain.account].renewals[index])
    }

    /// The customer turned auto-renew off and the subscription ran out (`expiration_intent` 1 once expired).
    mutating func cancelAutoRenew(_ chain: Chain) {
        let expired = chain.lastExpiry <= asOf
        updateRenewal(chain) {
            $0.autoRenewStatus = false
            $0.expirationIntent = expired ? 1 : nil
            $0.isInBillingRetryPeriod = expired ? false : nil
        }
    }

    /// Renewal failed at the chain's last expiry: Apple retries billing, with or without a grace period.
    mutating func failBilling(_ chain: Chain, grace: Bool) {
        let graceEnd = chain.lastExpiry + SubscriptionClock.gracePeriod(in: accounts[chain.account].environment)
        updateRenewal(chain) {
            $0.expirationIntent = 2
            $0.isInBillingRetryPeriod = true
            $0.gracePeriodExpiresMs = grace ? graceEnd : nil
        }
    }

    /// Issues a receipt and returns its slot.
    mutating func issue(_ receipt: WorldReceipt) -> Int {
        receipts.append(receipt)
        return receipts.count - 1
    }

    // MARK: Time

    /// A fraction of `length`, rounded to whole seconds.
    func fraction(_ rng: inout SplitMix64, _ range: ClosedRange<Double>, of length: Int64) -> Int64 {
        let value = range.lowerBound + rng.unit() * (range.upperBound - range.lowerBound)
        return Int64((Double(length) * value / 1000).rounded()) * 1000
    }

    /// Between `range` days, in whole seconds.
    func days(_ rng: inout SplitMix64, _ range: ClosedRange<Double>) -> Int64 {
        fraction(&rng, range, of: SubscriptionClock.millisecondsPerDay)
    }

    /// A short while after `instant` (an app sending its receipt right after a purchase), never after `asOf`.
    func shortlyAfter(_ rng: inout SplitMix64, _ instant: Int64, in environment: AppStoreEnvironment) -> Int64 {
        let seconds: ClosedRange<Int64> = environment == .sandbox ? 1...10 : 5...600
        return min(asOf, instant + rng.int64(in: seconds) * 1000)
    }
}
