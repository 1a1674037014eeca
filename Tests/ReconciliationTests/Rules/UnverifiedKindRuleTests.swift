import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

private typealias W = World

/// Only Apple's signature keeps access (issue 35, CONTRACT §5): what each kind of `unverified` row does to
/// the user's corrections, how a signed row's failed root is classified, and how a stored detail is read
/// back (the run's counts and `verify-user` read kinds from `recon_results.detail`).
struct UnverifiedKindRuleTests {
    static func plan(_ receipts: [UserReceipt], rows: [EntitlementRow]) -> [String] {
        let truth = UserTruth.compute(
            receipts: receipts, catalog: W.catalog, sandboxPolicy: .revoke, isSandboxTester: false, asOf: W.asOf)
        return CorrectionPlanner.plan(truth: truth, rows: rows, userHasUnverifiedReceipt: truth.hasUnverifiedReceipt)
            .map(W.render)
    }

    /// A row claiming another period of `premium`, beside Apple's answer that the customer's period and
    /// lifetime purchase were refunded. By kind: transient holds back every revoke; permanent keeps what
    /// it names (`premium`) and nothing else; untrusted keeps nothing and holds back nothing.
    @Test(arguments: [
        (UnverifiedKind.transient, [String]()),
        (.permanent, ["lifetime revoke refund -> inactive"]),
        (.untrusted, ["lifetime revoke refund -> inactive", "premium revoke refund -> inactive"]),
    ])
    func whatEachKindKeepsAndHoldsBack(_ kind: UnverifiedKind, _ expected: [String]) {
        let claimed = W.subscription("2", chain: "2", bought: -5, expires: 360)
        let unverified = W.receipt(1, .unverified, unverified: kind, [claimed])
        let refunded = W.receipt(
            2,
            [
                W.subscription("1", chain: "1", bought: -20, expires: 345, refunded: -2),
                W.purchase("3", product: W.lifetime, bought: -90, refunded: -2),
            ])
        let rows = [W.row(expires: 360), W.row("lifetime", expires: nil, product: W.lifetime)]
        #expect(Self.plan([unverified, refunded], rows: rows) == expected, "\(kind)")
    }

    /// A row of `lifetime` alone: an untrusted one leaves nothing behind it, so the entitlement goes
    /// (`no_purchase`: nothing Apple signed shows a purchase).
    @Test func anUntrustedRowAloneKeepsNothing() {
        let claimed = W.purchase("3", product: W.lifetime, bought: -5)
        let rows = [W.row("lifetime", expires: nil, product: W.lifetime)]
        #expect(
            Self.plan([W.receipt(1, .unverified, unverified: .untrusted, [claimed])], rows: rows)
                == ["lifetime revoke no_purchase -> inactive"])
        #expect(Self.plan([W.receipt(1, .unverified, unverified: .permanent, [claimed])], rows: rows).isEmpty)
    }

    @Test(arguments: [
        (UnverifiedKind.transient, ReceiptStanding.unverified, false, false),
        (.permanent, .permanentlyUnverified, true, true),
        (.untrusted, .unverified, true, false),
    ])
    func standingAndPermanence(_ kind: UnverifiedKind, _ standing: ReceiptStanding, _ permanent: Bool, _ keeps: Bool) {
        let receipt = W.receipt(1, .unverified, unverified: kind, [])
        #expect(receipt.standing(sandboxPolicy: .revoke, isSandboxTester: false) == standing)
        #expect(kind.isPermanent == permanent && kind.keepsNamedEntitlements == keeps)
    }

    /// The detail stored for each kind reads back as that kind; a detail of no kind is transient (asking
    /// again is the safe reading).
    @Test(arguments: UnverifiedKind.allCases)
    func aStoredDetailReadsBackAsItsKind(_ kind: UnverifiedKind) {
        let classification = ReceiptClassification.unverified(kind, detail: "Apple said so")
        #expect(UnverifiedKind(detail: classification.detail) == kind)
        #expect(classification.unverified == kind)
        #expect(UnverifiedKind.permanentSuffixes.contains { classification.detail.hasSuffix($0) } == kind.isPermanent)
    }

    @Test func aDetailOfNoKindIsTransient() {
        #expect(UnverifiedKind(detail: "Apple did not answer") == .transient)
    }

    /// A chain that fails only at its root is `untrusted`: unlike a signature that fails (`invalid`), it is
    /// not shown altered; unlike Apple's, it proves nothing.
    @Test func aChainEndingAtAnotherRootIsUntrusted() {
        let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: ["com.app"])
        let evidence = SignedEvidence(format: .transaction, bundleID: "com.app", environment: .production)
        var other = SignedDataVerification()
        other.failure = .untrustedRoot("Apple Root CA - G3")
        let untrusted = ReceiptOutcomeRule.classifySigned(other, evidence: evidence, context: context)
        #expect(untrusted.outcome == .unverified && untrusted.outcomeFlag == .unverified)
        #expect(untrusted.unverified == .untrusted)
        #expect(untrusted.detail.contains("does not chain to the configured root"), "\(untrusted.detail)")
        #expect(untrusted.detail.hasSuffix("(\(UnverifiedKind.untrusted.explanation))"))
    }
}
