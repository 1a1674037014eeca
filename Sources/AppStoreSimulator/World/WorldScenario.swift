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
    // Apple's answers read faithfully (issue 25): each case is one reading the job must get right.
    /// An app receipt naming two purchases of one Apple account (pro, then a season pass; both rows
    /// active). The Server API answers 4040010 for the pro purchase's id although it knows it; the
    /// history fetched for the season pass lists it, so the id is found: `valid`, nothing to correct.
    /// verifyReceipt answers the receipt as usual: the same.
    case knownIDNotFound
    /// Two Apple accounts: a deleted one that bought pro (row active), and a new one whose monthly
    /// subscription was refunded after the app stored its receipt (row active). Server API: 4040001
    /// for every id of the deleted account in both environments, a permanent `unverified` (flag
    /// `unverified`) that holds pro (no revoke) and nothing else: premium is revoked (reason `refund`,
    /// flag `refunded`). verifyReceipt: 21010, `invalid` (flag and revoke reason `invalid_receipt`) as
    /// for `deletedAccount`, so pro is revoked there too.
    case deletedAccountLifetime
    /// A yearly premium period refunded in part (`REFUND_PRORATED`, `revocationPercentage` 10000 to
    /// 90000) after the app stored its receipt; row active. Revoke (reason `refund`), flag `refunded`;
    /// the refunded amount counts price × percentage ÷ 100 (verifyReceipt knows no percentage).
    case proratedRefund
    /// Two Apple accounts with a monthly premium chain each: one the customer let lapse a few days ago
    /// (the later expiry; the row holds it, still active), one whose renewal failed before that and is in
    /// its billing grace period (status 4). Active until the grace end: extend (reason `grace_period`).
    case twoChainsLapsedAndGrace
    /// The same, but the first chain is active (it ends before the other's grace period does; the row
    /// holds its expiry): extend to the grace end (reason `grace_period`).
    case twoChainsActiveAndGrace
    /// An iOS 6 transaction receipt someone made (`WorldReceipt.craftedTransaction`): its id is twenty
    /// digits no App Store issues; the app granted yearly premium on it. verifyReceipt: 21003; Server
    /// API: 4000006 for the id. `invalid` (flag and revoke reason `invalid_receipt`) under both.
    case craftedTransactionID
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
    /// A pro purchase signed for the white-label clone (`bundleId` not in `APPLE_BUNDLE_IDS`); row
    /// active. `invalid` with flag `bundle_mismatch` and revoke (reason `bundle_mismatch`) under both
    /// backends, without a request: the simulator's API key is not the clone's, so a Server API request
    /// with its `bid` would be answered 401 and show.
    case storeKit2OtherBundle
    /// A pro purchase whose JWS was signed at purchase; Apple refunded it later and the app, told by its
    /// own notification, revoked the row (inactive, `updated_at` after the refund, so after the JWS's
    /// `signedDate`). verifyReceipt backend: the JWS is older than the app's last word, no grant, nothing.
    /// Server API backend: Apple's history shows the refund: nothing to correct, flag `refunded`.
    case storeKit2StaleAfterRevoke
    // Issue 35, point 3: the fresher evidence wins.
    /// A pro purchase refunded and the refund reversed by Apple days later; the app stored its receipt
    /// and, beside it, the JWS signed while the refund stood (it carries `revocationDate`), and restored
    /// the row (active). Apple's answer now has no revocation and outranks the older JWS: nothing to
    /// correct, nothing flagged, on both backends.
    case storeKit2StaleRefundReversed
    // Issue 35, point 1: only Apple's signature keeps access.
    /// An app receipt of a pro purchase, its PKCS#7 signed by Apple; the Server API has lost the purchase's
    /// id (4040010 in both environments, no history lists it). Row active. verifyReceipt answers the receipt:
    /// nothing to correct. Server API: Apple's signature proves the purchase, a permanent `unverified` (flag
    /// `unverified`) that keeps pro: nothing to correct.
    case appleSignedIDLost
    /// The same for a StoreKit 2 row: the JWS of a pro purchase, verified to the configured roots, whose id
    /// the Server API has lost. verifyReceipt backend: valid as of its `signedDate`, nothing to correct.
    /// Server API: a permanent `unverified` that keeps pro.
    case storeKit2AppleSignedIDLost
    // One instant per judgement (issue 35, point 2).
    /// A monthly subscriber the night reaches hours after its `--as-of`; the customer upgraded to the
    /// yearly plan in between, and Apple's answers say so. At `--as-of` the upgrade had not happened:
    /// the monthly period grants to its expiry, the row's. Nothing to correct, on both backends.
    case upgradedDuringNight

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
        // A few per thousand together: rare cases, as in life.
        case .knownIDNotFound: 0.1
        case .deletedAccountLifetime: 0.1
        case .proratedRefund: 0.1
        case .twoChainsLapsedAndGrace: 0.1
        case .twoChainsActiveAndGrace: 0.1
        case .craftedTransactionID: 0.1
        // About 3.7 % of users in a world with StoreKit 2 users.
        case .storeKit2Active: 1.5
        case .storeKit2NotGranted: 0.3
        case .storeKit2ExpiredSince: 0.5
        case .storeKit2RowLonger: 0.3
        case .storeKit2Refunded: 0.1
        case .storeKit2Tampered: 0.1
        case .storeKit2OtherEnvironment: 0.1
        case .storeKit2Lifetime: 0.6
        case .storeKit2OtherBundle: 0.1
        case .storeKit2StaleAfterRevoke: 0.1
        case .storeKit2StaleRefundReversed: 0.1
        case .appleSignedIDLost, .storeKit2AppleSignedIDLost: 0.1
        case .upgradedDuringNight: 0.1
        case .sharedTransactionOwner, .sharedTransactionRestored: 0
        }
    }

    /// Probability that a unit without forced scenarios is a shared pair (two app accounts, one Apple ID).
    public static let sharedPairProbability = 0.01

    /// Rows in `receipts` for one user of this scenario.
    public var receiptCount: Int {
        switch self {
        case .entitlementWithoutReceipt, .otherSourceOnly, .noReceiptInactiveRow: 0
        case .severalReceipts, .severalReceiptsMissingGrant, .duplicateReceipts, .appleInternalError,
            .deletedAccountLifetime, .twoChainsLapsedAndGrace, .twoChainsActiveAndGrace, .storeKit2StaleRefundReversed:
            2
        default: 1
        }
    }

    /// What a correct production run with the default assumptions and `--backend B` does for this user.
    ///
    /// Receipt scenarios: the same for both backends (CONTRACT §9), except where Apple's two services
    /// say different things about one fact and rules.md reads them differently: a deleted Apple account
    /// is 21010 at verifyReceipt (`invalid`, CONTRACT §4) but 4040001 at the Server API (a permanent
    /// `unverified` that holds the entitlements its row names): `deletedAccount` and
    /// `deletedAccountLifetime`. StoreKit 2 scenarios under the Server API: Apple's state at `asOf`
    /// decides, not the JWS's: `storeKit2RowLonger` is shortened to the current period's expiry, a
    /// tampered JWS is looked up by its `transactionId` (found: the lapsed subscription is revoked,
    /// reason `expired`, and nothing is flagged), and the stale row's refund is flagged.
    public func intended(backend: RunAssumptions.Backend) -> (corrections: [String], flags: [String]) {
        guard backend == .serverAPI else { return intended }
        switch self {
        case .storeKit2RowLonger: return (["premium:shorten"], [])
        case .storeKit2Tampered: return (["premium:revoke"], [])
        case .storeKit2StaleAfterRevoke: return ([], ["refunded"])
        case .deletedAccount: return ([], ["unverified"])
        case .deletedAccountLifetime: return (["premium:revoke"], ["refunded", "unverified"])
        case .appleSignedIDLost, .storeKit2AppleSignedIDLost: return ([], ["unverified"])
        default: return intended
        }
    }

    /// What a correct production run with the default assumptions (verify-receipt) does for this user:
    /// `entitlement:action` corrections and flag kinds (one per flagged receipt).
    public var intended: (corrections: [String], flags: [String]) {
        switch self {
        case .subscriptionActive, .subscriptionYearly, .subscriptionTrial, .subscriptionAutoRenewOff,
            .subscriptionDowngradePending, .subscriptionExpiredInactiveRow, .proActive, .seasonPassActive,
            .seasonPassExpiredInactiveRow, .coinsOnly, .severalReceipts, .emptyReceiptNoRow, .ios6InSync,
            .otherSourceOnly, .noReceiptInactiveRow, .otherSourceBesideReceipts, .storeKit2Active,
            .storeKit2ExpiredSince, .storeKit2RowLonger, .knownIDNotFound, .storeKit2StaleAfterRevoke,
            .storeKit2StaleRefundReversed,
            .appleSignedIDLost, .storeKit2AppleSignedIDLost, .upgradedDuringNight:
            return ([], [])
        case .missedRenewal, .gracePeriod, .upgradedToYearly, .ios6MissedRenewal, .twoChainsLapsedAndGrace,
            .twoChainsActiveAndGrace:
            return (["premium:extend"], [])
        case .missedRenewalInactiveRow, .gracePeriodInactiveRow, .refundReversed, .familyShared,
            .purchaseNotGranted, .severalReceiptsMissingGrant, .storeKit2NotGranted:
            return (["premium:grant"], [])
        case .expiredStillActive, .billingRetryWithoutGrace, .gracePeriodOver, .emptyReceiptWithRow, .ios6Expired:
            return (["premium:revoke"], [])
        case .gracePeriodRowTooLong, .subscriptionRowTooLong:
            return (["premium:shorten"], [])
        case .refundedSubscription, .proratedRefund:
            return (["premium:revoke"], ["refunded"])
        case .familySharingRevoked:
            // FAMILY_REVOKE on a FAMILY_SHARED copy: reason family_revoke, never a refund.
            return (["premium:revoke"], ["family_revoked"])
        case .deletedAccountLifetime:
            return (["premium:revoke", "pro:revoke"], ["invalid_receipt", "refunded"])
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
        case .storeKit2OtherBundle:
            return (["pro:revoke"], ["bundle_mismatch"])
        case .tamperedReceipt, .garbageReceipt, .emptyReceiptData:
            return (["pro:revoke"], ["invalid_receipt"])
        case .deletedAccount, .xcodeReceipt, .notBase64ReceiptData, .storeKit2Tampered, .craftedTransactionID:
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
