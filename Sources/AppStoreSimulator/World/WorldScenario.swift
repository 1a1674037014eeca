/// The kinds of user the world is made of: each is one situation of reconciliation.md §2 (or the
/// absence of one), with the receipts and entitlement rows it leaves in the app's database.
///
/// `intended` states what a correct `run` does for such a user in a production world with the expected
/// file's default assumptions (CONTRACT §5, docs/reconciliation-rules.md). It is documentation checked
/// by the tests against `ExpectationDeriver`, which derives the expectation from Apple's answers and
/// the rules alone and never reads these lists.
public enum WorldScenario: String, Sendable, Hashable, CaseIterable {
    // In sync: nothing to correct.
    case subscriptionActive
    case subscriptionYearly
    case subscriptionTrial
    case subscriptionAutoRenewOff
    case subscriptionDowngradePending
    case subscriptionExpiredInactiveRow
    case proActive
    case seasonPassActive
    case seasonPassExpiredInactiveRow
    case coinsOnly
    case severalReceipts
    case emptyReceiptNoRow
    case ios6InSync
    // Drift of the database from the App Store.
    case missedRenewal
    case missedRenewalInactiveRow
    case expiredStillActive
    case gracePeriod
    case gracePeriodInactiveRow
    case gracePeriodRowTooLong
    case billingRetryWithoutGrace
    case gracePeriodOver
    case refundedSubscription
    case refundReversed
    case upgradedToYearly
    case familyShared
    case familySharingRevoked
    case purchaseNotGranted
    case subscriptionRowTooLong
    case proNotGranted
    case proRefunded
    case proRefundReversed
    case proRowWithExpiry
    case seasonPassExpiredStillActive
    case seasonPassRowTooLong
    case seasonPassRefunded
    case seasonPassNotGranted
    case coinsRefunded
    case unknownProduct
    case otherEnvironmentReceipt
    case otherEnvironmentTester
    case otherEnvironmentNoRow
    case otherBundle
    case tamperedReceipt
    case deletedAccount
    case xcodeReceipt
    case garbageReceipt
    case emptyReceiptData
    case notBase64ReceiptData
    case emptyReceiptWithRow
    case appleInternalError
    case ios6MissedRenewal
    case ios6Expired
    case severalReceiptsMissingGrant
    case duplicateReceipts
    case entitlementWithoutReceipt
    case otherSourceOnly
    case noReceiptInactiveRow
    case otherSourceBesideReceipts
    /// The first app account of an Apple ID whose purchases were restored on a second app account.
    case sharedTransactionOwner
    /// The second app account of that Apple ID (always generated together with the owner).
    case sharedTransactionRestored
    // StoreKit 2 users: their row holds a signed transaction (JWS), judged locally as evidence as of its
    // `signedDate` (CONTRACT §9). Only in worlds seeded with a signing chain (`--pki-dir`).
    /// A current subscription period, signed a few days ago; the row matches it.
    case storeKit2Active
    /// The same, but the app never granted it: grant (`purchase_not_granted`) to the JWS's `expiresDate`.
    case storeKit2NotGranted
    /// An old period, long expired; the app saw the renewals (StoreKit 2 updates) and kept the row
    /// active, but stored only the first JWS. The JWS cannot know of the renewals: no revoke.
    case storeKit2ExpiredSince
    /// A current period whose row runs later than the JWS's expiry: nothing the JWS proves shortens it.
    case storeKit2RowLonger
    /// A pro purchase whose JWS was signed after its refund and carries `revocationDate`: the one revoke
    /// a JWS causes by itself (reason `refund`, flag `refunded`).
    case storeKit2Refunded
    /// A lapsed subscription's JWS whose payload was edited after signing (a year added to `expiresDate`)
    /// and believed by the app: the signature fails, `invalid` (flag and revoke reason `invalid_receipt`).
    case storeKit2Tampered
    /// A pro purchase signed in the other environment (a TestFlight purchase in production): `misrouted`,
    /// revoked under the default sandbox policy (reason `wrong_environment`).
    case storeKit2OtherEnvironment
    /// A pro purchase (non-consumable: never expires) the app never granted.
    case storeKit2Lifetime

    /// Whether the user's rows are StoreKit 2 signed transactions rather than receipts.
    public var isStoreKit2: Bool { rawValue.hasPrefix("storeKit2") }

    /// The scenarios a single user is drawn from in a world of receipts only (the shared pair is drawn per
    /// unit): the world of every seed before StoreKit 2 users existed, unchanged.
    public static let singleUserScenarios: [WorldScenario] = allCases.filter {
        $0 != .sharedTransactionOwner && $0 != .sharedTransactionRestored && !$0.isStoreKit2
    }

    /// Every scenario of a world without StoreKit 2 users.
    public static let receiptScenarios: [WorldScenario] = allCases.filter { !$0.isStoreKit2 }

    /// The single-user scenarios of a world with StoreKit 2 users: the receipt ones, then the StoreKit 2 ones.
    public static let singleUserScenariosWithStoreKit2: [WorldScenario] =
        singleUserScenarios + allCases.filter(\.isStoreKit2)

    /// The single-user scenarios of a world with or without StoreKit 2 users.
    public static func singleUserScenarios(storeKit2: Bool) -> [WorldScenario] {
        storeKit2 ? singleUserScenariosWithStoreKit2 : singleUserScenarios
    }

    /// Share of randomly drawn users, in percent of `singleUserScenarios`' total. Revoking scenarios
    /// stay well under CONTRACT §7's 20 % revoke breaker, unverified ones under its 10 %.
    public var weight: Double {
        switch self {
        case .subscriptionActive: 30
        case .subscriptionYearly: 8
        case .subscriptionTrial: 3
        case .subscriptionAutoRenewOff: 4
        case .subscriptionDowngradePending: 1
        case .subscriptionExpiredInactiveRow: 6
        case .proActive: 8
        case .seasonPassActive: 3
        case .seasonPassExpiredInactiveRow: 1
        case .coinsOnly: 5
        case .severalReceipts: 3
        case .emptyReceiptNoRow: 1
        case .ios6InSync: 0.5
        case .missedRenewal: 4
        case .missedRenewalInactiveRow: 2
        case .expiredStillActive: 2.5
        case .gracePeriod: 1
        case .gracePeriodInactiveRow: 0.5
        case .gracePeriodRowTooLong: 0.3
        case .billingRetryWithoutGrace: 0.7
        case .gracePeriodOver: 0.3
        case .refundedSubscription: 0.7
        case .refundReversed: 0.3
        case .upgradedToYearly: 1
        case .familyShared: 1.5
        case .familySharingRevoked: 0.2
        case .purchaseNotGranted: 1
        case .subscriptionRowTooLong: 0.3
        case .proNotGranted: 0.8
        case .proRefunded: 0.3
        case .proRefundReversed: 0.1
        case .proRowWithExpiry: 0.2
        case .seasonPassExpiredStillActive: 0.4
        case .seasonPassRowTooLong: 0.3
        case .seasonPassRefunded: 0.1
        case .seasonPassNotGranted: 0.2
        case .coinsRefunded: 0.3
        case .unknownProduct: 0.3
        case .otherEnvironmentReceipt: 0.3
        case .otherEnvironmentTester: 0.1
        case .otherEnvironmentNoRow: 0.2
        case .otherBundle: 0.2
        case .tamperedReceipt: 0.2
        case .deletedAccount: 0.3
        case .xcodeReceipt: 0.1
        case .garbageReceipt: 0.1
        case .emptyReceiptData: 0.1
        case .notBase64ReceiptData: 0.1
        case .emptyReceiptWithRow: 0.1
        case .appleInternalError: 0.1
        case .ios6MissedRenewal: 0.5
        case .ios6Expired: 0.5
        case .severalReceiptsMissingGrant: 0.5
        case .duplicateReceipts: 0.5
        case .entitlementWithoutReceipt: 0.3
        case .otherSourceOnly: 0.3
        case .noReceiptInactiveRow: 0.2
        case .otherSourceBesideReceipts: 0.3
        // About 3.5 % of users in a world with StoreKit 2 users.
        case .storeKit2Active: 1.5
        case .storeKit2NotGranted: 0.3
        case .storeKit2ExpiredSince: 0.5
        case .storeKit2RowLonger: 0.3
        case .storeKit2Refunded: 0.1
        case .storeKit2Tampered: 0.1
        case .storeKit2OtherEnvironment: 0.1
        case .storeKit2Lifetime: 0.6
        case .sharedTransactionOwner, .sharedTransactionRestored: 0
        }
    }

    /// Probability that a unit without forced scenarios is a shared pair (two app accounts, one Apple ID).
    public static let sharedPairProbability = 0.01

    /// Rows in `receipts` for one user of this scenario.
    public var receiptCount: Int {
        switch self {
        case .entitlementWithoutReceipt, .otherSourceOnly, .noReceiptInactiveRow: 0
        case .severalReceipts, .severalReceiptsMissingGrant, .duplicateReceipts, .appleInternalError: 2
        default: 1
        }
    }

    /// What a correct production run with the default assumptions and `--backend B` does for this user.
    /// Receipt scenarios: the same for both backends (CONTRACT §9). StoreKit 2 scenarios under the Server
    /// API: Apple's state at `asOf` decides, not the JWS's, which changes one case: `storeKit2RowLonger`
    /// is shortened to the current period's expiry (the others end the same: `storeKit2ExpiredSince`'s
    /// row runs to the latest renewal, the refund and the other environment are Apple's facts too, and a
    /// tampered JWS is invalid whatever the backend).
    public func intended(backend: RunAssumptions.Backend) -> (corrections: [String], flags: [String]) {
        if backend == .serverAPI, self == .storeKit2RowLonger { return (["premium:shorten"], []) }
        return intended
    }

    /// What a correct production run with the default assumptions (verify-receipt) does for this user:
    /// `entitlement:action` corrections and flag kinds (one per flagged receipt).
    public var intended: (corrections: [String], flags: [String]) {
        switch self {
        case .subscriptionActive, .subscriptionYearly, .subscriptionTrial, .subscriptionAutoRenewOff,
            .subscriptionDowngradePending, .subscriptionExpiredInactiveRow, .proActive, .seasonPassActive,
            .seasonPassExpiredInactiveRow, .coinsOnly, .severalReceipts, .emptyReceiptNoRow, .ios6InSync,
            .otherSourceOnly, .noReceiptInactiveRow, .otherSourceBesideReceipts, .storeKit2Active,
            .storeKit2ExpiredSince, .storeKit2RowLonger:
            return ([], [])
        case .missedRenewal, .gracePeriod, .upgradedToYearly, .ios6MissedRenewal:
            return (["premium:extend"], [])
        case .missedRenewalInactiveRow, .gracePeriodInactiveRow, .refundReversed, .familyShared,
            .purchaseNotGranted, .severalReceiptsMissingGrant, .storeKit2NotGranted:
            return (["premium:grant"], [])
        case .expiredStillActive, .billingRetryWithoutGrace, .gracePeriodOver, .emptyReceiptWithRow, .ios6Expired:
            return (["premium:revoke"], [])
        case .gracePeriodRowTooLong, .subscriptionRowTooLong:
            return (["premium:shorten"], [])
        case .refundedSubscription, .familySharingRevoked:
            return (["premium:revoke"], ["refunded"])
        case .proNotGranted, .proRefundReversed, .storeKit2Lifetime:
            return (["pro:grant"], [])
        case .proRefunded, .storeKit2Refunded:
            return (["pro:revoke"], ["refunded"])
        case .proRowWithExpiry:
            return (["pro:extend"], [])
        case .seasonPassExpiredStillActive:
            return (["season_pass:revoke"], [])
        case .seasonPassRowTooLong:
            return (["season_pass:shorten"], [])
        case .seasonPassRefunded:
            return (["season_pass:revoke"], ["refunded"])
        case .seasonPassNotGranted:
            return (["season_pass:grant"], [])
        case .coinsRefunded:
            return ([], ["refunded"])
        case .duplicateReceipts:
            return ([], ["refunded", "refunded"])
        case .unknownProduct:
            return ([], ["unknown_product"])
        case .otherEnvironmentReceipt, .storeKit2OtherEnvironment:
            return (["pro:revoke"], ["sandbox_in_production"])
        case .otherEnvironmentTester:
            return (["pro:grant"], ["sandbox_in_production"])
        case .otherEnvironmentNoRow:
            return ([], ["sandbox_in_production"])
        case .otherBundle:
            return (["premium:revoke"], ["bundle_mismatch"])
        case .tamperedReceipt, .garbageReceipt, .emptyReceiptData:
            return (["pro:revoke"], ["invalid_receipt"])
        case .deletedAccount, .xcodeReceipt, .notBase64ReceiptData, .storeKit2Tampered:
            return (["premium:revoke"], ["invalid_receipt"])
        case .appleInternalError:
            return (["pro:grant"], ["unverified"])
        case .entitlementWithoutReceipt:
            return ([], ["entitlement_without_receipt"])
        case .sharedTransactionOwner:
            return ([], ["shared_transaction"])
        case .sharedTransactionRestored:
            return (["premium:grant"], ["shared_transaction"])
        }
    }
}
