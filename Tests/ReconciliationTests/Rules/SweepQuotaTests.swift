import Foundation
import Reconciliation
import Testing

/// The sweep's quota: enough of the users verified longest ago that everyone is verified again within
/// `--sweep-days`, and the overdue users all at once when a backlog built up.
@Suite struct SweepQuotaTests {
    @Test(arguments: [
        // (U, D, overdue, q)
        (300, 5, 0, 60), (301, 5, 0, 61), (299, 5, 60, 60), (300, 5, 120, 120), (300, 5, 300, 300),
        (1_000_000, 30, 0, 33_334), (10, 30, 0, 1), (0, 30, 0, 0), (7, 1, 0, 7), (5, 0, 0, 5), (5, 3, 9, 5),
    ])
    func quotaIsTheLargerOfAnEvenShareAndTheOverdue(users: Int, days: Int, overdue: Int, quota: Int) {
        #expect(SweepQuota(users: users, days: days, overdue: overdue).quota == quota)
    }

    @Test func overdueCountsFromDMinusOneDaysBeforeTheRun() {
        let asOf = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(SweepQuota.overdueBefore(asOf: asOf, days: 30) == asOf.addingTimeInterval(-29 * 86_400))
        // D = 1: everyone verified before the run is due tonight.
        #expect(SweepQuota.overdueBefore(asOf: asOf, days: 1) == asOf)
    }

    /// FIFO at q a night, simulated without a database: nobody waits more than D nights, from an even
    /// spread, after everyone was verified on one night, and after a night without a run.
    @Test(arguments: [1, 2, 5, 7, 30])
    func fifoAtTheQuotaKeepsThePromise(days: Int) {
        let users = 97
        // Nights since each user's last verification; starts with everyone verified on one night.
        var age = [Int](repeating: 0, count: users)
        var order = Array(0..<users)  // oldest first
        for night in 1...(4 * days + 6) {
            for index in age.indices { age[index] += 1 }
            if night == 2 * days + 1 { continue }  // a night without a run
            let overdue = age.count { $0 > days - 1 }
            let quota = SweepQuota(users: users, days: days, overdue: overdue).quota
            let taken = order.prefix(quota)
            for user in taken { age[user] = 0 }
            order = Array(order.dropFirst(quota)) + taken
            #expect(age.max()! <= days - 1, "night \(night): a user was last verified \(age.max()!) nights ago")
        }
    }

    @Test func theBudgetEstimateWarnsWhenTheSweepCannotBeKept() {
        // 10 M subscribers, D = 20: 200 000 notified + 500 000 swept, 8 hours of 90 000.
        let short = SweepBudgetEstimate(users: 700_000, requestsPerUser: 1.25, budget: 8 * 90_000)
        #expect(short.needed == 875_000)
        #expect(short.isShort)
        let kept = SweepBudgetEstimate(users: 533_334, requestsPerUser: 1.25, budget: 720_000)
        #expect(kept.needed == 666_668)
        #expect(!kept.isShort)
        // No earlier run to learn from (or nothing sensible): the default cost per user.
        #expect(SweepBudgetEstimate(users: 10, requestsPerUser: nil, budget: 12).requestsPerUser == 1.3)
        #expect(SweepBudgetEstimate(users: 10, requestsPerUser: .nan, budget: 20).requestsPerUser == 1.3)
        #expect(SweepBudgetEstimate(users: 10, requestsPerUser: 0, budget: 20).requestsPerUser == 1.3)
    }
}
