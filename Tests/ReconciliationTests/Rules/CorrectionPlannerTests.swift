import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

/// One situation of one user, and what `recon_corrections` / `recon_flags` must then say.
struct PlannerScenario: Sendable, CustomTestStringConvertible {
    var name: String
    var receipts: [UserReceipt]
    var rows: [EntitlementRow] = []
    var policy: SandboxPolicy = .revoke
    var isSandboxTester = false
    var previouslyRefunded: Set<String> = []
    /// `World.render` of each correction, in order.
    var corrections: [String]
    /// Flag kinds, in order; nil: not checked.
    var flags: [String]? = nil

    var testDescription: String { name }

    /// The decision the pipeline makes for this user: `UserDecision.decide`, then `plan` against the rows.
    func reconcile() -> (truth: UserTruth, corrections: [CorrectionRecord], flags: [PlannedFlag]) {
        let settings = UserDecision.Settings(catalog: World.catalog, sandboxPolicy: policy, asOf: World.asOf)
        let user = UserDecision.decide(
            userID: "u-1", answers: receipts.map { ReceiptAnswer(receipt: $0, attempts: 1, bundleID: nil) },
            isSandboxTester: isSandboxTester, settings: settings)
        let plan = UserDecision.plan(user, state: UserState(entitlements: rows, previouslyRefunded: previouslyRefunded))
        return (user.truth, plan.corrections, plan.flags)
    }
}

private typealias W = World

/// docs/reconciliation-rules.md, "Truth per entitlement" and "Corrections": one row per rule.
private let scenarios: [PlannerScenario] = [
    // grant
    PlannerScenario(
        name: "new monthly subscription the app never granted -> grant purchase_not_granted",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        corrections: ["premium grant purchase_not_granted -> until +25d"]),
    PlannerScenario(
        name: "renewal the app missed, row still active with the old expiry -> extend, reason renewal",
        receipts: [
            W.receipt([
                W.subscription("1000", bought: -35, expires: -5),
                W.subscription("1001", bought: -5, expires: 25),
            ])
        ],
        rows: [W.row(expires: -5)],
        corrections: ["premium extend renewal -> until +25d"]),
    PlannerScenario(
        name: "renewal the app missed after it deactivated the row -> grant, reason renewal",
        receipts: [
            W.receipt([
                W.subscription("1000", bought: -35, expires: -5),
                W.subscription("1001", bought: -5, expires: 25),
            ])
        ],
        rows: [W.row(active: false, expires: -5)],
        corrections: ["premium grant renewal -> until +25d"]),
    PlannerScenario(
        name: "inactive row, purchase older than the row's expiry -> grant purchase_not_granted",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(active: false, expires: 1)],
        corrections: ["premium grant purchase_not_granted -> until +25d"]),
    PlannerScenario(
        name: "refund reversed by Apple -> grant refund_reversed",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(active: false, expires: 25)],
        previouslyRefunded: ["1000"],
        corrections: ["premium grant refund_reversed -> until +25d"]),
    PlannerScenario(
        name: "family shared purchase grants",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25, family: true)])],
        corrections: ["premium grant purchase_not_granted -> until +25d"]),
    PlannerScenario(
        name: "upgrade: the upgraded yearly is ignored, the target monthly carries access",
        receipts: [
            W.receipt([
                W.subscription("1000", product: W.yearly, bought: -30, expires: 335, refunded: -2, upgraded: true),
                W.subscription("1001", bought: -2, expires: 28),
            ])
        ],
        corrections: ["premium grant purchase_not_granted -> until +28d"]),

    // grace period and billing retry
    PlannerScenario(
        name: "grace period -> extend to the grace period's end, reason grace_period",
        receipts: [W.receipt([W.subscription("1000", bought: -32, expires: -2)], renewal: [W.gracePeriod(until: 14)])],
        rows: [W.row(expires: -2)],
        corrections: ["premium extend grace_period -> until +14d"]),
    PlannerScenario(
        name: "grace period, row already inactive -> grant, reason grace_period",
        receipts: [W.receipt([W.subscription("1000", bought: -32, expires: -2)], renewal: [W.gracePeriod(until: 14)])],
        rows: [W.row(active: false, expires: -2)],
        corrections: ["premium grant grace_period -> until +14d"]),
    PlannerScenario(
        name: "grace period of another chain does not count",
        receipts: [
            W.receipt(
                [W.subscription("1000", bought: -32, expires: -2)],
                renewal: [W.gracePeriod(chain: "9999", until: 14)])
        ],
        rows: [W.row(expires: -2)],
        corrections: ["premium revoke expired -> inactive"]),
    PlannerScenario(
        name: "billing retry without grace, expired -> revoke expired",
        receipts: [W.receipt([W.subscription("1000", bought: -32, expires: -2)], renewal: [W.billingRetry()])],
        rows: [W.row(expires: -2)],
        corrections: ["premium revoke expired -> inactive"]),
    PlannerScenario(
        name: "grace period that has ended -> revoke expired",
        receipts: [W.receipt([W.subscription("1000", bought: -32, expires: -2)], renewal: [W.gracePeriod(until: -1)])],
        rows: [W.row(expires: -2)],
        corrections: ["premium revoke expired -> inactive"]),

    // refunds
    PlannerScenario(
        name: "refunded monthly subscription -> revoke with reason refund",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25, refunded: -1)])],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke refund -> inactive"],
        flags: ["receipt 1 refunded"]),
    PlannerScenario(
        name: "refund on one receipt's copy of a transaction counts for the user (older receipt)",
        receipts: [
            W.receipt(1, [W.subscription("1000", bought: -5, expires: 25, refunded: -1)]),
            W.receipt(2, [W.subscription("1000", bought: -5, expires: 25)]),
        ],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke refund -> inactive"]),
    PlannerScenario(
        name: "refund on one receipt's copy of a transaction counts for the user (newer receipt)",
        receipts: [
            W.receipt(1, [W.subscription("1000", bought: -5, expires: 25)]),
            W.receipt(2, [W.subscription("1000", bought: -5, expires: 25, refunded: -1)]),
        ],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke refund -> inactive"]),
    PlannerScenario(
        name: "refunded yearly, monthly still running -> shorten, reason refund",
        receipts: [
            W.receipt([
                W.subscription("1000", bought: -25, expires: 5),
                W.subscription("2000", chain: "2000", product: W.yearly, bought: -3, expires: 362, refunded: -1),
            ])
        ],
        rows: [W.row(expires: 362, product: W.yearly)],
        corrections: ["premium shorten refund -> until +5d"]),
    PlannerScenario(
        name: "non-consumable refunded -> revoke refund",
        receipts: [W.receipt([W.purchase("3000", product: W.lifetime, bought: -100, refunded: -1)])],
        rows: [W.row("lifetime", expires: nil, product: W.lifetime)],
        corrections: ["lifetime revoke refund -> inactive"]),

    // expiries
    PlannerScenario(
        name: "two transactions of the same chain: the latest expiry wins",
        receipts: [
            W.receipt([
                W.subscription("1000", bought: -35, expires: -5),
                W.subscription("1001", bought: -5, expires: 25),
            ])
        ],
        corrections: ["premium grant purchase_not_granted -> until +25d"]),
    PlannerScenario(
        name: "two transactions of the same chain: array order is irrelevant",
        receipts: [
            W.receipt([
                W.subscription("1001", bought: -5, expires: 25),
                W.subscription("1000", bought: -35, expires: -5),
            ])
        ],
        corrections: ["premium grant purchase_not_granted -> until +25d"]),
    PlannerScenario(
        name: "row longer than Apple's expiry, nothing refunded -> shorten expired",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: 40)],
        corrections: ["premium shorten expired -> until +25d"]),
    PlannerScenario(
        name: "row active with NULL expiry vs Apple expiry -> shorten",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: nil)],
        corrections: ["premium shorten expired -> until +25d"]),
    PlannerScenario(
        name: "expiry equal at millisecond precision -> no correction",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [EntitlementRow(entitlement: "premium", active: true, expiresAt: W.day(25).addingTimeInterval(0.000_4))],
        corrections: []),
    PlannerScenario(
        name: "row expiry one millisecond early -> extend",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [EntitlementRow(entitlement: "premium", active: true, expiresAt: W.day(25).addingTimeInterval(-0.001))],
        corrections: ["premium extend renewal -> until +25d"]),
    PlannerScenario(
        name: "subscription expiring exactly at as_of is not active -> revoke expired",
        receipts: [W.receipt([W.subscription("1000", bought: -30, expires: 0)])],
        rows: [W.row(expires: 0)],
        corrections: ["premium revoke expired -> inactive"]),
    PlannerScenario(
        name: "inactive row and nothing active at Apple -> no correction",
        receipts: [W.receipt([W.subscription("1000", bought: -35, expires: -5)])],
        rows: [W.row(active: false, expires: -5)],
        corrections: []),

    // product kinds
    PlannerScenario(
        name: "non-consumable -> grant, never expires",
        receipts: [W.receipt([W.purchase("3000", product: W.lifetime, bought: -100)])],
        corrections: ["lifetime grant purchase_not_granted -> until never"]),
    PlannerScenario(
        name: "non-renewing expires at purchase + duration",
        receipts: [W.receipt([W.purchase("4000", product: W.pass30, bought: -10)])],
        corrections: ["pass grant purchase_not_granted -> until +20d"]),
    PlannerScenario(
        name: "non-renewing past its duration -> revoke expired",
        receipts: [W.receipt([W.purchase("4000", product: W.pass30, bought: -40)])],
        rows: [W.row("pass", expires: -10, product: W.pass30)],
        corrections: ["pass revoke expired -> inactive"]),
    PlannerScenario(
        name: "consumable grants nothing",
        receipts: [W.receipt([W.purchase("5000", product: W.coins, bought: -1)])],
        corrections: [],
        flags: []),
    PlannerScenario(
        name: "unknown product -> flag, no grant",
        receipts: [W.receipt([W.purchase("6000", product: "com.other.app.gold", bought: -1)])],
        corrections: [],
        flags: ["receipt 1 unknown_product"]),
    PlannerScenario(
        name: "several entitlements -> corrections sorted by entitlement",
        receipts: [
            W.receipt([
                W.subscription("1000", bought: -5, expires: 25),
                W.purchase("4000", product: W.pass30, bought: -10),
                W.purchase("3000", product: W.lifetime, bought: -100),
            ])
        ],
        corrections: [
            "lifetime grant purchase_not_granted -> until never",
            "pass grant purchase_not_granted -> until +20d",
            "premium grant purchase_not_granted -> until +25d",
        ]),

    // environments
    PlannerScenario(
        name: "sandbox receipt in production, --sandbox-policy revoke -> revoke wrong_environment",
        receipts: [W.receipt(1, .misrouted, [W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke wrong_environment -> inactive"],
        flags: ["receipt 1 sandbox_in_production"]),
    PlannerScenario(
        name: "sandbox receipt in production, --sandbox-policy flag -> no revoke",
        receipts: [W.receipt(1, .misrouted, [W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: 25)],
        policy: .flag,
        corrections: [],
        flags: ["receipt 1 sandbox_in_production"]),
    PlannerScenario(
        name: "sandbox receipt in production, sandbox tester -> no revoke",
        receipts: [W.receipt(1, .misrouted, [W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: 25)],
        isSandboxTester: true,
        corrections: []),
    PlannerScenario(
        name: "sandbox receipt in production, policy revoke -> never granted",
        receipts: [W.receipt(1, .misrouted, [W.subscription("1000", bought: -5, expires: 25)])],
        corrections: []),

    // invalid receipts
    PlannerScenario(
        name: "bundle mismatch -> revoke, reason bundle_mismatch",
        receipts: [W.receipt(1, .invalid, flag: .bundleMismatch, [W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke bundle_mismatch -> inactive"],
        flags: ["receipt 1 bundle_mismatch"]),
    PlannerScenario(
        name: "21010 on the receipt that carried the subscription -> revoke invalid_receipt",
        receipts: [W.receipt(1, .invalid, [W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke invalid_receipt -> inactive"],
        flags: ["receipt 1 invalid_receipt"]),
    PlannerScenario(
        name: "invalid and misrouted receipts carried the subscription -> revoke invalid_receipt",
        receipts: [
            W.receipt(1, .invalid, [W.subscription("1000", bought: -5, expires: 25)]),
            W.receipt(2, .misrouted, [W.subscription("1000", bought: -5, expires: 25)]),
        ],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke invalid_receipt -> inactive"]),
    PlannerScenario(
        name: "bundle mismatch and another invalid receipt carried the subscription -> revoke bundle_mismatch",
        receipts: [
            W.receipt(1, .invalid, [W.subscription("1000", bought: -5, expires: 25)]),
            W.receipt(2, .invalid, flag: .bundleMismatch, [W.subscription("1000", bought: -5, expires: 25)]),
        ],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke bundle_mismatch -> inactive"]),
    PlannerScenario(
        name: "valid receipt without any purchase for an active row -> revoke no_purchase",
        receipts: [W.receipt([])],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke no_purchase -> inactive"]),
    PlannerScenario(
        name: "invalid receipt and a valid one that carried an expired period -> revoke expired",
        receipts: [
            W.receipt(1, .invalid, [W.subscription("1001", bought: -5, expires: 25)]),
            W.receipt(2, [W.subscription("1000", bought: -35, expires: -5)]),
        ],
        rows: [W.row(expires: 25)],
        corrections: ["premium revoke expired -> inactive"]),

    // guards
    PlannerScenario(
        name: "unverified receipt present -> no revoke, no shorten, but grants and extends still happen",
        receipts: [
            W.receipt(1, .unverified, []),
            W.receipt(
                2,
                [
                    W.subscription("1000", bought: -5, expires: 25),
                    W.purchase("3000", product: W.lifetime, bought: -100),
                    W.purchase("4000", product: W.pass30, bought: -10),
                ]),
        ],
        rows: [
            W.row(expires: 10),
            W.row("pass", expires: 40, product: W.pass30),
        ],
        corrections: [
            "lifetime grant purchase_not_granted -> until never",
            "premium extend renewal -> until +25d",
        ],
        flags: ["receipt 1 unverified"]),
    PlannerScenario(
        name: "unverified receipt present -> an active row without purchase is not revoked",
        receipts: [W.receipt(1, .unverified, []), W.receipt(2, [])],
        rows: [W.row(expires: 25)],
        corrections: []),
    PlannerScenario(
        name: "non-app_store row never touched (Apple knows no purchase)",
        receipts: [W.receipt([])],
        rows: [W.row(expires: 25, product: nil, source: "promo")],
        corrections: []),
    PlannerScenario(
        name: "non-app_store row never touched (Apple says active)",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])],
        rows: [W.row(active: false, expires: nil, product: nil, source: "promo")],
        corrections: []),
]

@Suite("Corrections (CONTRACT §5, docs/reconciliation-rules.md)")
struct CorrectionPlannerTests {
    @Test(arguments: scenarios)
    func correctionsMatchTheRules(_ scenario: PlannerScenario) {
        let result = scenario.reconcile()
        #expect(result.corrections.map(World.render) == scenario.corrections)
        if let flags = scenario.flags {
            let rendered = result.flags.map { "\($0.receiptID.map { "receipt \($0)" } ?? "user") \($0.kind)" }
            #expect(rendered == flags)
        }
    }

    @Test("a second plan over the rows the first one wrote plans nothing (idempotent)", arguments: scenarios)
    func applyingThePlanConverges(_ scenario: PlannerScenario) {
        let first = scenario.reconcile()
        var rows = Dictionary(scenario.rows.map { ($0.entitlement, $0) }, uniquingKeysWith: { $1 })
        // What `apply` writes: the correction's after-state, source `app_store`.
        for c in first.corrections {
            rows[c.entitlement] = EntitlementRow(
                entitlement: c.entitlement, active: c.afterActive, expiresAt: c.afterExpiresAt, productID: c.productID,
                originalTransactionID: c.originalTransactionID)
        }
        var again = scenario
        again.rows = rows.values.sorted { $0.entitlement < $1.entitlement }
        let second = again.reconcile()
        let suppressed = first.truth.hasUnverifiedReceipt
        #expect(second.corrections.isEmpty || suppressed, "second plan: \(second.corrections.map(World.render))")
    }

    @Test("the upgrade target's product and chain are what a grant writes")
    func grantWritesTheWinningTransaction() throws {
        let result = PlannerScenario(
            name: "upgrade",
            receipts: [
                W.receipt([
                    W.subscription("1000", product: W.yearly, bought: -30, expires: 335, refunded: -2, upgraded: true),
                    W.subscription("1001", chain: "1000", bought: -2, expires: 28),
                ])
            ],
            corrections: []
        ).reconcile()
        let grant = try #require(result.corrections.first)
        #expect(grant.entitlement == "premium" && grant.afterActive && grant.afterExpiresAt == W.day(28))
        #expect(grant.productID == W.monthly && grant.originalTransactionID == "1000")
        #expect(grant.beforeActive == nil)
    }

    @Test("a revoke sets active = false and keeps expires_at, product and chain")
    func revokeKeepsExpiry() throws {
        let row = EntitlementRow(
            entitlement: "premium", active: true, expiresAt: W.day(25), productID: W.monthly,
            originalTransactionID: "1000")
        let result = PlannerScenario(
            name: "refund",
            receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25, refunded: -1)])],
            rows: [row],
            corrections: []
        ).reconcile()
        let revoke = try #require(result.corrections.first)
        #expect(revoke.beforeActive == true && revoke.afterActive == false)
        #expect(revoke.beforeExpiresAt == W.day(25) && revoke.afterExpiresAt == W.day(25))
        #expect(revoke.productID == W.monthly && revoke.originalTransactionID == "1000")
    }
}
