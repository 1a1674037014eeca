import Foundation
import Testing

@testable import Reconciliation

/// When Apple's renewal state speaks for `--as-of`, when a lapse may be billing retry, and so when the
/// App Store Server API's walk asks for the subscription statuses: the one rule the truth and the walk read.
@Suite struct RenewalStateRuleTests {
    typealias W = World

    @Test(
        arguments: [
            // (Apple answered, hours from as-of; speaks for as-of)
            (nil, true),  // an iOS 6 receipt's answer carries no instant: taken as the --as-of's
            (0, true),
            (1, true),
            (-1, true),
            (1.01, false),
            (-1.01, false),
            (240, false),
        ] as [(Double?, Bool)])
    func applesStateSpeaksOnlyNearItsOwnInstant(hours: Double?, speaks: Bool) {
        let answered = hours.map { W.asOf.addingTimeInterval($0 * 3_600) }
        #expect(RenewalStateRule.speaks(answeredAt: answered, for: W.asOf) == speaks)
    }

    @Test(arguments: [
        // (access ended, days from as-of; may be in billing retry)
        (0.0, true),
        (-1, true),
        (-60, true),
        (-60.01, false),
        (0.01, false),  // still running: not a lapse
        (30, false),
    ])
    func billingRetryLastsSixtyDaysAfterTheEnd(ended: Double, retrying: Bool) {
        #expect(RenewalStateRule.mayBeInBillingRetry(endedAt: W.day(ended), asOf: W.asOf) == retrying)
    }

    /// A history's purchases, answered `read` days from as-of.
    static func history(expires: Double, refunded: Double? = nil, read: Double = 0, chain: String = "1000")
        -> [Purchase]
    {
        var purchase = W.subscription("1", chain: chain, bought: expires - 30, expires: expires, refunded: refunded)
        purchase.evidenceDate = W.day(read)
        return [purchase]
    }

    @Test(
        arguments: [
            // (name, purchases, --as-of set, whether the statuses are asked for)
            ("lapsed yesterday, read now", history(expires: -1), true, true),
            ("lapsed yesterday, live night", history(expires: -1), false, true),
            ("still running", history(expires: 5), true, false),
            ("lapsed 61 days ago", history(expires: -61), true, false),
            ("refunded before it lapsed", history(expires: -1, refunded: -10), true, false),
            ("refunded after as-of: not yet", history(expires: -1, refunded: 2), true, true),
            ("read ten days after as-of", history(expires: -1, read: 10), true, false),
            ("read ten days after, live night", history(expires: -1, read: 10), false, true),
            (
                "one chain running, the other lapsed", history(expires: 5) + history(expires: -3, chain: "2000"), true,
                true
            ),
            ("no subscription", [W.purchase("9", product: W.lifetime, bought: -20)], true, false),
        ] as [(String, [Purchase], Bool, Bool)])
    func theStatusesAreAskedForOnlyWhenTheyCanTellGraceFromALapse(
        _ name: String, purchases: [Purchase], asOfSet: Bool, asked: Bool
    ) {
        #expect(RenewalStateRule.needsStatuses(purchases, asOf: asOfSet ? W.asOf : nil, now: W.asOf) == asked)
    }
}
