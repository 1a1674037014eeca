import Foundation
import Reconciliation
import Testing

/// The readings of CONTRACT §5 and §9 that decide whether a paying customer keeps access: every chain's
/// grace period, the instant evidence speaks for, Family Sharing told from refunds, what a permanent
/// `unverified` keeps, and signed rows against the app's own last word.
@Suite struct VerdictRuleTests {
    typealias W = World

    /// The user's corrections, as `recon_corrections` would read.
    static func plan(_ receipts: [UserReceipt], rows: [EntitlementRow]) -> [String] {
        let truth = UserTruth.compute(
            receipts: receipts, catalog: W.catalog, sandboxPolicy: .revoke, isSandboxTester: false, asOf: W.asOf)
        return CorrectionPlanner.plan(truth: truth, rows: rows, userHasUnverifiedReceipt: truth.hasUnverifiedReceipt)
            .map(W.render)
    }

    /// A subscription period as Apple answered about it `read` days from `as_of`.
    static func period(
        _ id: String, chain: String, bought: Double, expires: Double, read: Double = 0, refunded: Double? = nil
    ) -> Purchase {
        var purchase = W.subscription(id, chain: chain, bought: bought, expires: expires, refunded: refunded)
        purchase.evidenceDate = W.day(read)
        return purchase
    }

    @Test(arguments: [
        // (chain A's end, chain B's grace end, what the run does to a row ending at +1d)
        (-40.0, 10.0, ["premium extend grace_period -> until +10d"]),
        (5, 12, ["premium extend grace_period -> until +12d"]),
        (20, 12, ["premium extend renewal -> until +20d"]),
    ])
    func anyChainInItsGracePeriodEntitles(chainA: Double, graceB: Double, expected: [String]) {
        let receipt = W.receipt(
            [
                Self.period("1", chain: "100", bought: chainA - 30, expires: chainA),
                Self.period("2", chain: "200", bought: -33, expires: -3),
            ],
            renewal: [W.gracePeriod(chain: "200", until: graceB)])
        #expect(Self.plan([receipt], rows: [W.row(expires: 1)]) == expected)
    }

    /// Apple's renewal state is its state when it answered: for an `--as-of` ten days earlier it says
    /// nothing, so a subscription that lapsed within the billing-retry window is neither in grace nor
    /// revoked; one that lapsed longer ago is revoked.
    @Test func renewalStateSpeaksOnlyForItsOwnInstant() {
        let lapsed = Self.period("1", chain: "100", bought: -35, expires: -5, read: 10)
        let grace = W.gracePeriod(chain: "100", until: 20, read: 10)
        #expect(Self.plan([W.receipt([lapsed], renewal: [grace])], rows: [W.row(expires: 1)]).isEmpty)
        let longAgo = Self.period("1", chain: "100", bought: -100, expires: -70, read: 10)
        #expect(
            Self.plan([W.receipt([longAgo])], rows: [W.row(expires: 1)]) == ["premium revoke expired -> inactive"])
        // Read at as-of, the same lapse without grace is a revoke.
        let now = Self.period("1", chain: "100", bought: -35, expires: -5)
        #expect(Self.plan([W.receipt([now])], rows: [W.row(expires: 1)]) == ["premium revoke expired -> inactive"])
    }

    @Test func purchasesAndRevocationsAfterAsOfHaveNotHappened() {
        let future = W.purchase("9", product: W.lifetime, bought: 2)
        #expect(Self.plan([W.receipt([future])], rows: []).isEmpty)
        let refundedLater = W.purchase("9", product: W.lifetime, bought: -20, refunded: 3)
        #expect(
            Self.plan([W.receipt([refundedLater])], rows: [W.row("lifetime", expires: nil, product: W.lifetime)])
                .isEmpty)
        let refunded = W.purchase("9", product: W.lifetime, bought: -20, refunded: -3)
        #expect(
            Self.plan([W.receipt([refunded])], rows: [W.row("lifetime", expires: nil, product: W.lifetime)])
                == ["lifetime revoke refund -> inactive"])
    }

    @Test func familySharingRevocationsAreNotRefunds() {
        let copy = W.subscription("1", bought: -10, expires: 20, refunded: -1, family: true)
        let receipt = W.receipt([copy])
        #expect(Self.plan([receipt], rows: [W.row(expires: 20)]) == ["premium revoke family_revoke -> inactive"])
        let flags = FlagRule.receiptFlags(receipt, catalog: W.catalog, asOf: W.asOf).map(\.kind)
        #expect(flags == [.familyRevoked])
        let typed = W.subscription("1", bought: -10, expires: 20, refunded: -1, revocationType: "FAMILY_REVOKE")
        #expect(
            Self.plan([W.receipt([typed])], rows: [W.row(expires: 20)]) == ["premium revoke family_revoke -> inactive"])
        #expect(copy.refundPercentage == nil && typed.refundPercentage == nil)
    }

    @Test func theRefundedShareFollowsApple() {
        let prorated = W.subscription(
            "1", bought: -10, expires: 20, refunded: -1, revocationType: "REFUND_PRORATED", percentage: 25_000)
        #expect(prorated.refundPercentage?.description == "25")
        let full = W.subscription("1", bought: -10, expires: 20, refunded: -1, revocationType: "REFUND_FULL")
        #expect(full.refundPercentage?.description == "100")
        let cancellation = W.subscription("1", bought: -10, expires: 20, refunded: -1)
        #expect(cancellation.refundPercentage?.description == "100")
        let upgrade = W.subscription("1", bought: -10, expires: 20, refunded: -1, upgraded: true)
        #expect(upgrade.refundPercentage == nil && !upgrade.isRefunded(asOf: W.asOf))
    }

    /// A permanent `unverified` (an account Apple no longer finds) keeps the entitlements its row names and
    /// holds back nothing else; a transient one holds back every revoke of the user.
    @Test func permanentUnverifiedKeepsWhatItNamesOnly() {
        let lifetime = W.purchase("7", product: W.lifetime, bought: -400)
        let gone = W.receipt(1, .unverified, unverified: .permanent, [lifetime])
        let refunded = W.receipt(2, [W.subscription("8", bought: -10, expires: 20, refunded: -1)])
        let rows = [W.row("lifetime", expires: nil, product: W.lifetime), W.row(expires: 20)]
        #expect(Self.plan([gone, refunded], rows: rows) == ["premium revoke refund -> inactive"])
        let unavailable = W.receipt(1, .unverified, unverified: .transient, [lifetime])
        #expect(Self.plan([unavailable, refunded], rows: rows).isEmpty)
    }

    /// CONTRACT §9, "Signed rows": a signed row grants or extends only over an entitlement row the app
    /// last wrote before the data was signed.
    @Test(arguments: [
        // (row written, days from as-of; signed; expected)
        (-5.0, -3.0, ["premium grant purchase_not_granted -> until +25d"]),
        (-2, -3, []),
    ])
    func signedRowsNeverOverruleTheAppsLaterWord(written: Double, signed: Double, expected: [String]) {
        var purchase = W.subscription("1", bought: -5, expires: 25)
        purchase.evidenceDate = W.day(signed)
        purchase.source = .signedRow
        var receipt = W.receipt([purchase])
        receipt.source = .signedRow
        var row = W.row(active: false, expires: 25)
        row.updatedAt = W.day(written)
        #expect(Self.plan([receipt], rows: [row]) == expected)
    }
}
