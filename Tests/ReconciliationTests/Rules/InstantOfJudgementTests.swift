import AppStoreReceipts
import CivilTime
import Foundation
import Testing

@testable import Reconciliation

private typealias W = World

/// docs/reconciliation-rules.md, "The instant of judgement" (CONTRACT §9, "As of"): one instant per
/// user, at which purchases, revocations and upgrades either happened or did not.
@Suite("Instant of judgement (CONTRACT §9, As of)")
struct InstantOfJudgementTests {
    /// A monthly period (bought 10 days before `as_of`, ending 20 days after) the customer upgraded away
    /// from to the yearly plan of the same chain, dated as each source dates it.
    struct Upgrade: CustomTestStringConvertible, Sendable {
        let name: String
        /// Days from `as_of` of `revocationDate` / `cancellation_date` on the monthly period; nil: none.
        let revocation: Double?
        /// Days from `as_of` the yearly period began; nil: the answer does not hold it.
        let yearlyBought: Double?
        let active: Bool
        /// The product carrying the access, and its end in days from `as_of`.
        let product: String?
        let expires: Double?
        var testDescription: String { name }
    }

    static let upgrades: [Upgrade] = [
        Upgrade(
            name: "upgraded two days after as-of (dated by revocationDate): the monthly period still grants",
            revocation: 2, yearlyBought: 2, active: true, product: W.monthly, expires: 20),
        Upgrade(
            name: "upgraded two days before as-of: the yearly period grants", revocation: -2, yearlyBought: -2,
            active: true, product: W.yearly, expires: 363),
        Upgrade(
            name: "no date on the upgraded period, the yearly began after as-of: the monthly grants",
            revocation: nil, yearlyBought: 2, active: true, product: W.monthly, expires: 20),
        Upgrade(
            name: "no date on the upgraded period, the yearly began before as-of: the yearly grants",
            revocation: nil, yearlyBought: -2, active: true, product: W.yearly, expires: 363),
        Upgrade(
            name: "upgraded after as-of, the answer lacks the yearly period: the monthly grants", revocation: 2,
            yearlyBought: nil, active: true, product: W.monthly, expires: 20),
        Upgrade(
            name: "undated upgrade, nothing dates it: Apple's word counts at any instant", revocation: nil,
            yearlyBought: nil, active: false, product: nil, expires: nil),
    ]

    @Test(arguments: upgrades)
    func anUpgradeAfterTheInstantHasNotHappened(_ row: Upgrade) throws {
        var purchases = [
            W.subscription("1001", bought: -10, expires: 20, refunded: row.revocation, upgraded: true)
        ]
        if let bought = row.yearlyBought {
            purchases.append(W.subscription("1002", product: W.yearly, bought: bought, expires: bought + 365))
        }
        let truth = try #require(
            UserTruth.compute(
                receipts: [W.receipt(purchases)], catalog: W.catalog, sandboxPolicy: .revoke, isSandboxTester: false,
                asOf: W.asOf)["premium"])
        #expect(truth.isActive == row.active)
        #expect(truth.isActive ? truth.productID == row.product : true)
        #expect(truth.expiry == row.expires.map { Expiry(W.day($0)) })
        // An upgrade, dated or not, is never a refund.
        #expect(truth.refundedTransactions.isEmpty && !truth.newestTransactionIsRefunded)
    }

    @Test("the replacing period is the first other product of the chain inside the upgraded period")
    func theReplacementStartsInsideTheUpgradedPeriod() {
        let upgraded = W.subscription("1001", bought: -10, expires: 20, upgraded: true)
        let purchases = [
            upgraded,
            W.subscription("1000", bought: -40, expires: -10),  // the period before: same product
            W.subscription("1003", product: W.yearly, bought: 25, expires: 390),  // after its end
            W.subscription("2001", chain: "2000", product: W.yearly, bought: 1, expires: 366),  // another chain
            W.subscription("1002", product: W.yearly, bought: 3, expires: 368),
            W.subscription("1004", product: W.yearly, bought: 5, expires: 370),
        ]
        #expect(UpgradeInstant.of(purchases) == [W.day(3), nil, nil, nil, nil, nil])
    }

    /// Rows and what the instant of judgement is for them; `asOf` nil: a live night.
    struct Instant: CustomTestStringConvertible, Sendable {
        let name: String
        let asOf: Date?
        let receipts: [UserReceipt]
        let expected: Date
        var testDescription: String { name }
    }

    static let decidedAt = W.day(1)

    static func answered(_ id: Int64, at days: Double, outcome: ReceiptOutcome = .valid, signedRow: Bool = false)
        -> UserReceipt
    {
        var purchase = W.subscription("\(id)", chain: "\(id)", bought: -10, expires: 20)
        purchase.evidenceDate = W.day(days)
        var receipt = W.receipt(id, outcome, [purchase])
        if signedRow { receipt.source = .signedRow }
        return receipt
    }

    static let instants: [Instant] = [
        Instant(
            name: "--as-of decides for every user", asOf: W.asOf, receipts: [answered(1, at: 0.5)],
            expected: W.asOf),
        Instant(
            name: "live: the newest instant Apple's answers about the user speak for", asOf: nil,
            receipts: [answered(1, at: 0.25), answered(2, at: 0.5)], expected: W.day(0.5)),
        Instant(
            name: "live: a renewal info signed later than the history counts",
            asOf: nil,
            receipts: [
                W.receipt(
                    [W.subscription("1", bought: -10, expires: -1)],
                    renewal: [W.gracePeriod(until: 5, read: 0.75)])
            ], expected: W.day(0.75)),
        Instant(
            name: "live: a signed row's signedDate is the device's, not tonight's answer", asOf: nil,
            receipts: [answered(1, at: 0.25), answered(2, at: 0.9, signedRow: true)], expected: W.day(0.25)),
        Instant(
            name: "live: an unverified row's claim is not Apple's answer", asOf: nil,
            receipts: [answered(1, at: 0.25), answered(2, at: 0.9, outcome: .unverified)], expected: W.day(0.25)),
        Instant(
            name: "live: no answer carries an instant: when the job decides", asOf: nil,
            receipts: [answered(1, at: 0.9, signedRow: true)], expected: decidedAt),
    ]

    @Test(arguments: instants)
    func theInstantOfJudgement(_ row: Instant) {
        #expect(JudgementInstant.of(row.receipts, asOf: row.asOf, decidedAt: Self.decidedAt) == row.expected)
    }

    @Test("a live night's user answered hours after the night began: Apple's renewal state speaks")
    func aLateUserOfALiveNightIsJudgedWhenAnswered() throws {
        // Lapsed a day before the answer; Apple's state, read with the history two hours into the night,
        // says billing retry without grace.
        var lapsed = W.subscription("1", bought: -30, expires: 1)
        lapsed.evidenceDate = W.day(2)
        let receipt = W.receipt(
            [lapsed], renewal: [SubscriptionRenewal(originalTransactionID: "1000", evidenceDate: W.day(2))])
        let instant = JudgementInstant.of([receipt], asOf: nil, decidedAt: W.asOf)
        let truth = try #require(
            UserTruth.compute(
                receipts: [receipt], catalog: W.catalog, sandboxPolicy: .revoke, isSandboxTester: false, asOf: instant
            )["premium"])
        #expect(!truth.isActive && !truth.lapseUnconfirmed)
        // Judged at the night's start instead, Apple's answer would not speak for it: unconfirmed.
        let atStart = try #require(
            UserTruth.compute(
                receipts: [receipt], catalog: W.catalog, sandboxPolicy: .revoke, isSandboxTester: false, asOf: W.asOf
            )["premium"])
        #expect(atStart.isActive)
    }

    /// (`--as-of` in days from now, the history's end in days from now): never past the present.
    @Test(arguments: [(-2.0, -2.0), (0, 0), (0.5, 0), (400, 0)])
    func theNotificationHistoryNeverEndsPastThePresent(asOf: Double, end: Double) {
        #expect(
            NotificationIntake.end(asOf: W.day(asOf), now: W.asOf)
                == W.day(end).addingTimeInterval(-NotificationIntake.settle))
    }
}
