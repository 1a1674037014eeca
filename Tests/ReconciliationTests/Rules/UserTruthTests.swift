import AppStoreReceipts
import CivilTime
import Foundation
import Reconciliation
import Testing

private typealias W = World

/// docs/reconciliation-rules.md, "Which transactions count" and "Truth per entitlement", for the
/// readings the correction table does not show directly.
@Suite("User truth (CONTRACT §5)")
struct UserTruthTests {
    static func truth(
        _ receipts: [UserReceipt], catalog: ProductCatalog = W.catalog, policy: SandboxPolicy = .revoke,
        tester: Bool = false
    ) -> UserTruth {
        UserTruth.compute(
            receipts: receipts, catalog: catalog, sandboxPolicy: policy, isSandboxTester: tester, asOf: W.asOf)
    }

    @Test("a lifetime unlock and a subscription naming one entitlement: never expires wins")
    func mixedKinds() throws {
        let catalog = ProductCatalog(
            Array(W.catalog.productsByID.values) + [
                Product(productID: "com.app.premium.forever", kind: .nonConsumable, entitlement: "premium")
            ])
        let truth = try #require(
            Self.truth(
                [
                    W.receipt([
                        W.subscription("1000", bought: -5, expires: 25),
                        W.purchase("3000", product: "com.app.premium.forever", bought: -100),
                    ])
                ], catalog: catalog)["premium"])
        #expect(truth.isActive && truth.expiry == .never && truth.productID == "com.app.premium.forever")
    }

    @Test("a non-renewing product without duration grants nothing")
    func nonRenewingWithoutDuration() throws {
        let catalog = ProductCatalog([Product(productID: W.pass30, kind: .nonRenewing, entitlement: "pass")])
        let truth = try #require(
            Self.truth([W.receipt([W.purchase("4000", product: W.pass30, bought: -1)])], catalog: catalog)["pass"])
        #expect(!truth.isActive && truth.expiry == nil)
    }

    @Test("non-renewing access of a month bought on January 31 ends on the last day of February")
    func nonRenewingMonthClampsToMonthEnd() throws {
        let catalog = ProductCatalog([
            Product(
                productID: "com.app.pass.month", kind: .nonRenewing, entitlement: "pass",
                duration: CalendarDuration(months: 1))
        ])
        var purchase = W.purchase("4000", product: "com.app.pass.month", bought: 0)
        purchase.purchaseDate = Date(timeIntervalSince1970: 1_706_695_200)  // 2024-01-31T10:00:00Z
        let truth = try #require(Self.truth([W.receipt([purchase])], catalog: catalog)["pass"])
        #expect(truth.expiry == Expiry(Date(timeIntervalSince1970: 1_709_200_800)))  // 2024-02-29T10:00:00Z
    }

    @Test("a subscription period without expires_date grants nothing")
    func subscriptionWithoutExpiry() throws {
        var period = W.subscription("1000", bought: -1, expires: 29)
        period.expiresDate = nil
        let truth = try #require(Self.truth([W.receipt([period])])["premium"])
        #expect(!truth.isActive)
    }

    @Test(
        "misrouted receipts count under --sandbox-policy flag and for sandbox testers only",
        arguments: [(SandboxPolicy.revoke, false, false), (.flag, false, true), (.revoke, true, true)])
    func misroutedCounts(_ policy: SandboxPolicy, _ tester: Bool, _ active: Bool) throws {
        let receipt = W.receipt(1, .misrouted, [W.subscription("1000", bought: -5, expires: 25)])
        let truth = try #require(Self.truth([receipt], policy: policy, tester: tester)["premium"])
        #expect(truth.isActive == active)
        #expect(truth.carriers == [active ? .counted : .misroutedNotCounted])
    }

    @Test("unverified and invalid receipts contribute nothing")
    func nonCountingOutcomes() throws {
        let period = W.subscription("1000", bought: -5, expires: 25)
        let truth = Self.truth([W.receipt(1, .unverified, [period]), W.receipt(2, .invalid, [period])])
        #expect(truth["premium"]?.isActive == false)
        #expect(truth.hasUnverifiedReceipt)
    }

    @Test("the same transaction on two receipts takes the newest receipt's fields, gaps filled from the other")
    func duplicateTransactionsMerge() throws {
        var older = W.subscription("1000", bought: -5, expires: 20)
        older.revocation = nil
        var newer = W.subscription("1000", bought: -5, expires: 25)
        newer.originalTransactionID = nil
        let truth = try #require(Self.truth([W.receipt(9, [newer]), W.receipt(3, [older])])["premium"])
        #expect(truth.expiresAt == W.day(25))
        #expect(truth.originalTransactionID == "1000")
    }
}
