import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// What issue 25's scenarios expect, derived from Apple's answers and rules.md: the kinds of
/// `unverified`, what a permanent one holds, the signed row older than the app's row, two chains, and
/// the refunded amount (the last one checked against the Server API's answers over HTTP).
@Suite struct AppleReadingExpectationTests {
    static let world = TestWorlds.storeKit2
    static let cases = TestWorlds.firstOfEachScenario(world)

    /// The derivation of the unit of `scenario`'s first user, with that user's part.
    static func derive(
        _ scenario: WorldScenario, _ backend: RunAssumptions.Backend, unit change: ((inout WorldUnit) -> Void)? = nil
    ) throws -> (result: ExpectationDeriver.UnitResult, user: WorldUser, unit: WorldUnit) {
        var (unit, user) = try #require(cases[scenario])
        change?(&unit)
        user = unit.users.first { $0.id == user.id }!
        var next: Int64 = 1
        let ids = ExpectationDeriver.receiptIDs(for: unit, startingAt: &next)
        let result = ExpectationDeriver.derive(
            unit: unit, receiptIDs: ids, answerer: AppleAnswerer(world: world),
            assumptions: RunAssumptions(backend: backend))
        return (result, user, unit)
    }

    static func corrections(_ result: ExpectationDeriver.UnitResult, _ user: WorldUser) -> [String] {
        result.corrections.filter { $0.userID == user.id }.map { "\($0.entitlement):\($0.action)" }.sorted()
    }

    @Test func aDeletedAccountIsPermanentUnderTheServerAPIAndHoldsOnlyWhatItsRowNames() throws {
        let (result, user, unit) = try Self.derive(.deletedAccountLifetime, .serverAPI)
        let outcomes = ExpectationDeriver.outcomes(
            of: user, in: unit, answerer: AppleAnswerer(world: Self.world),
            assumptions: RunAssumptions(backend: .serverAPI))
        #expect(outcomes[0] == .unverified(.permanent(products: [WorldCatalog.pro.id])))
        guard case .valid = outcomes[1] else {
            Issue.record("the second account's receipt: \(outcomes[1])")
            return
        }
        let unverified = result.unverified.filter { $0.userID == user.id }
        #expect(unverified.count == 1 && unverified.first?.permanent == true)
        // pro is held; the refund of premium is revoked all the same.
        #expect(Self.corrections(result, user) == ["premium:revoke"])

        // verifyReceipt: 21010 is `invalid`, nothing is unverified, both are revoked.
        let plain = try Self.derive(.deletedAccountLifetime, .verifyReceipt)
        #expect(plain.result.unverified.filter { $0.userID == user.id }.isEmpty)
        #expect(Self.corrections(plain.result, user) == ["premium:revoke", "pro:revoke"])
    }

    @Test(arguments: [RunAssumptions.Backend.verifyReceipt, .serverAPI])
    func appleFailingIsTransientAndHoldsEveryRevoke(backend: RunAssumptions.Backend) throws {
        let (result, user, _) = try Self.derive(.appleInternalError, backend)
        let unverified = result.unverified.filter { $0.userID == user.id }
        #expect(unverified.count == 1 && unverified.first?.permanent == false)
        #expect(Self.corrections(result, user) == ["pro:grant"])
    }

    @Test func aSignedRowOlderThanTheAppsRowGrantsNothingANewerOneDoes() throws {
        let stale = try Self.derive(.storeKit2StaleAfterRevoke, .verifyReceipt)
        #expect(Self.corrections(stale.result, stale.user).isEmpty)
        #expect(stale.result.flags.filter { $0.userID == stale.user.id }.isEmpty)

        // The same row had the app's row been updated before the JWS was signed: the JWS (no revocation
        // in it) is the newer word, so it grants.
        let (unit, user) = try #require(Self.cases[.storeKit2StaleAfterRevoke])
        guard case .signedTransaction(_, _, let signedMs, _) = unit.receipts[user.receipts[0].slot] else {
            Issue.record("no signed row")
            return
        }
        let newer = try Self.derive(.storeKit2StaleAfterRevoke, .verifyReceipt) { unit in
            let position = unit.users.firstIndex { $0.id == user.id }!
            unit.users[position].entitlements[0].updatedMs = signedMs - 1000
        }
        #expect(Self.corrections(newer.result, newer.user) == ["pro:grant"])

        // Under the Server API, Apple's state decides whatever the dates: the refund, flagged.
        let server = try Self.derive(.storeKit2StaleAfterRevoke, .serverAPI)
        #expect(Self.corrections(server.result, server.user).isEmpty)
        #expect(server.result.flags.filter { $0.userID == server.user.id }.map(\.kind) == ["refunded"])
    }

    @Test(arguments: [WorldScenario.twoChainsLapsedAndGrace, .twoChainsActiveAndGrace])
    func twoChainsAreActiveToTheGraceEnd(scenario: WorldScenario) throws {
        let (unit, user) = try #require(Self.cases[scenario])
        let answerer = AppleAnswerer(world: Self.world)
        let answers = user.receipts.compactMap { row -> AppleAnswer? in
            if case .valid(let answer) = ExpectationDeriver.outcome(
                of: row.slot, in: unit, answerer: answerer, assumptions: RunAssumptions())
            {
                return answer
            }
            return nil
        }
        #expect(answers.count == 2)
        let second = unit.accounts[unit.receipts[user.receipts[1].slot].account!]
        let grace = try #require(second.renewals.first?.gracePeriodExpiresMs)
        let truth = ExpectationDeriver.truth(answers, asOf: unit.asOfMs)
        #expect(truth["premium"]?.expiresMs == grace)
        // Each chain alone: the first ends at its own expiry (or lapsed), the second at its grace end.
        let first = ExpectationDeriver.truth([answers[0]], asOf: unit.asOfMs)["premium"]
        #expect(
            first
                == (scenario == .twoChainsLapsedAndGrace
                    ? nil : ExpectationDeriver.Truth(expiresMs: user.entitlements[0].expiresMs)))
        #expect(ExpectationDeriver.truth([answers[1]], asOf: unit.asOfMs)["premium"]?.expiresMs == grace)
    }

    @Test func theProratedRefundCountsItsShare() throws {
        let (result, _, unit) = try Self.derive(.proratedRefund, .serverAPI)
        let (_, user) = try #require(Self.cases[.proratedRefund])
        let account = unit.accounts[unit.receipts[user.receipts[0].slot].account!]
        let refunded = try #require(account.transactions.last { $0.refund != nil })
        let refund = try #require(result.refunds[refunded.transactionID])
        #expect(refund.priceMilliunits == 49_990)
        #expect(refund.percentageMilliunits == refunded.refund?.percentage)
        let amount = ExpectedOutcome.RefundedAmount.figures([refunded.transactionID: refund])
        // 49.99 × p %, exact: 49.99 × 30 % is 14.997.
        let expected = Decimal(49_990) * Decimal(refunded.refund!.percentage!) / Decimal(100_000_000)
        #expect(amount.first.map { Decimal(string: $0.amount) } == expected)
    }

    @Test func amountsPrintAsExactDecimals() {
        func amount(_ e8: Int64) -> String {
            ExpectedOutcome.RefundedAmount(currency: "USD", amountE8: e8, transactions: 1).amount
        }
        #expect(amount(0) == "0")
        #expect(amount(1_000_000_000) == "10")
        #expect(amount(1_999_000_000) == "19.99")
        #expect(amount(1_499_700_000) == "14.997")
        #expect(amount(124_750_000) == "1.2475")
    }

    /// The run's refunded amount, computed a second way: every account a stored row leads to, asked over
    /// HTTP for its history, every signed refund summed (price × percentage ÷ 100, `REFUND_FULL` /
    /// `REFUND_PRORATED` only, production only, each transaction once).
    @Test func theRefundedAmountIsWhatTheServedHistoriesSay() async throws {
        let expected = ExpectationDeriver.derive(world: Self.world, assumptions: RunAssumptions(backend: .serverAPI))
        let figure = try #require(expected.refundedAmount)
        #expect(figure.count == 1 && figure.first?.currency == "USD")
        // Not in a verify-receipt file.
        #expect(ExpectationDeriver.derive(world: Self.world).refundedAmount == nil)

        // The ids a client asks first for each found account: the first purchase of every account a row names.
        var ids: [String] = []
        for (unit, user) in TestWorlds.users(Self.world) {
            for row in user.receipts {
                switch unit.receipts[row.slot] {
                case .app(let account, _), .transaction(let account, _), .signedTransaction(let account, _, _, _):
                    let owner = unit.accounts[account]
                    if owner.environment == .production, owner.bundleID == WorldCatalog.appBundleID,
                        owner.standing == .good,
                        let first = owner.transactions.first(where: {
                            !owner.idsTheServerAPILoses.contains($0.transactionID) && $0.purchaseMs <= unit.asOfMs
                        })
                    {
                        ids.append(first.transactionID)
                    }
                default:
                    continue
                }
            }
        }
        let asked = ids
        let (total, count, upgradesAndFamily) = try await withServerAPISimulator { simulator in
            var seen = Set<String>()
            var total: Int64 = 0
            var other: Int64 = 0
            for id in asked {
                for payload in try AppleReadingEndpointTests.history(simulator, id) {
                    let transaction = payload["transactionId"] as? String ?? ""
                    guard payload["revocationDate"] != nil, seen.insert(transaction).inserted else { continue }
                    let price = AppleReadingEndpointTests.number(payload["price"]) ?? 0
                    switch payload["revocationType"] as? String {
                    case "REFUND_FULL"?: total += price * 100_000
                    case "REFUND_PRORATED"?:
                        total += price * (AppleReadingEndpointTests.number(payload["revocationPercentage"]) ?? 0)
                    default: other += price * 100_000  // upgrades, family revocations
                    }
                }
            }
            return (total, seen.count, other)
        }
        #expect(figure.first?.amountE8 == total)
        #expect(count > figure.first!.transactions, "upgrades and family copies are revoked but not counted")
        #expect(upgradesAndFamily > 0)
    }

    /// The stated kinds of `unverified` match the flags, row by row.
    @Test(arguments: [RunAssumptions.Backend.verifyReceipt, .serverAPI])
    func everyUnverifiedFlagHasItsKind(backend: RunAssumptions.Backend) {
        let expected = ExpectationDeriver.derive(world: Self.world, assumptions: RunAssumptions(backend: backend))
        let flagged = Set(expected.flags.filter { $0.kind == "unverified" }.compactMap(\.receiptID))
        #expect(Set(expected.unverified.map(\.receiptID)) == flagged)
        #expect(expected.unverified.contains { !$0.permanent })
        #expect(expected.unverified.contains(where: \.permanent) == (backend == .serverAPI))
    }

    /// The new scenarios are a few per thousand: a 1,000-user world (the demo's least) stays clear of the
    /// breakers (20 % revoked users, 10 % unverified) under both backends.
    @Test(arguments: [RunAssumptions.Backend.verifyReceipt, .serverAPI])
    func aThousandUserWorldStaysClearOfTheBreakers(backend: RunAssumptions.Backend) {
        let world = SimulatedWorld(users: 1000, seed: 1, asOf: testAsOf, includesStoreKit2Users: true)
        let outcome = ExpectationDeriver.derive(world: world, assumptions: RunAssumptions(backend: backend))
        #expect(outcome.counts.peakRevokeRatio < 0.15, "\(outcome.counts)")
        #expect(outcome.counts.peakUnverifiedRatio < 0.05, "\(outcome.counts)")
    }
}
