import Foundation
import Reconciliation

enum ReportFixtures {
    /// A run with every kind of figure, and a hostile abort reason.
    static func summary(runID: Int64 = 42, exitCode: Int32 = 1) -> RunSummary {
        var summary = RunSummary()
        summary.runID = runID
        summary.status = "completed"
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
        summary.outcomes = ["valid": 2_950, "misrouted": 31, "invalid": 24, "unverified": 12]
        summary.appleStatuses = ["0": 2_981, "21003": 24, "none": 12]
        summary.corrections = ["grant": ["renewed_elsewhere": 7], "revoke": ["refunded": 5, "expired": 9],
                               "extend": ["renewed": 13]]
        summary.flags = ["bundle_mismatch": 3, "sandbox_in_production": 4]
        summary.revokedUsers = 14
        summary.appleRequests = 3_101
        summary.appleRetries = 53
        summary.appleThrottled = 17
        summary.appleHops = 31
        summary.latencyP50Milliseconds = 182
        summary.latencyP95Milliseconds = 611
        return summary
    }
}
