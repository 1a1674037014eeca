import Foundation
import Reconciliation

enum ReportFixtures {
    /// A run with every kind of figure, and a hostile abort reason.
    static func summary(runID: Int64 = 42, exitCode: ExitCode = .someUnverified) -> RunSummary {
        var summary = RunSummary()
        summary.runID = runID
        summary.status = .completed
        summary.exitCode = exitCode
        summary.shard = "0/1"
        summary.startedAt = Date(timeIntervalSince1970: 1_767_240_000)
        summary.finishedAt = Date(timeIntervalSince1970: 1_767_240_754.5)
        summary.asOf = summary.startedAt
        summary.durationSeconds = 754.5
        summary.usersSelected = 1_200
        summary.usersProcessed = 1_200
        summary.receiptsSelected = 3_017
        summary.receiptsProcessed = 3_017
        summary.outcomes = [.valid: 2_950, .misrouted: 31, .invalid: 24, .unverified: 12]
        summary.appleStatuses = ["0": 2_981, "21003": 24, "none": 12]
        summary.corrections = [
            .grant: [.purchaseNotGranted: 7], .revoke: [.refund: 5, .expired: 9],
            .extend: [.renewal: 13],
        ]
        summary.flags = [.bundleMismatch: 3, .sandboxInProduction: 4]
        summary.revokedUsers = 14
        summary.appleRequests = 3_101
        summary.appleRetries = 53
        summary.appleThrottled = 17
        summary.appleHops = 31
        summary.latencyP50Milliseconds = 182
        summary.latencyP95Milliseconds = 611
        summary.refundedAmount = [
            RefundedAmount(currency: "EUR", amount: CurrencyAmount(milliunits: 4_990), transactions: 1),
            RefundedAmount(currency: "USD", amount: CurrencyAmount(milliunits: 19_980), transactions: 2),
        ]
        return summary
    }
}
