import CivilTime
import Foundation

/// What a run did, in figures: printed at the end of a run (text or `--json`), stored in
/// `recon_runs.summary`, and read back by `report`.
public struct RunSummary: Sendable, Codable, Equatable {
    public var runID: Int64 = 0
    public var kind = RunKind.nightly
    public var status = RunStatus.running
    public var exitCode: ExitCode?
    public var dryRun = false
    public var asOf = Date(timeIntervalSince1970: 0)
    public var shard = "0/1"
    public var startedAt = Date(timeIntervalSince1970: 0)
    public var finishedAt: Date?
    public var durationSeconds = 0.0
    public var abortReason: String?

    public var usersSelected = 0
    public var usersProcessed = 0
    public var receiptsSelected = 0
    public var receiptsProcessed = 0
    /// `recon_results.outcome` → receipts.
    public var outcomes: [ReceiptOutcome: Int] = [:]
    /// Apple's `status` → receipts (the final answer per receipt; `none` when no answer decoded).
    public var appleStatuses: [String: Int] = [:]
    /// action → reason → corrections (applied, or planned in a dry run).
    public var corrections: [CorrectionAction: [CorrectionReason: Int]] = [:]
    /// flag kind → flags.
    public var flags: [FlagKind: Int] = [:]
    public var revokedUsers = 0

    public var appleRequests = 0
    public var appleRetries = 0
    public var appleThrottled = 0
    public var appleHops = 0
    /// Requests per endpoint (`verify_receipt`, `transaction_history`, `subscription_statuses`);
    /// optional: summaries stored before it existed.
    public var appleRequestsByEndpoint: [String: Int]?
    public var latencyP50Milliseconds: Double?
    public var latencyP95Milliseconds: Double?
    /// Seconds the job's threads spent waiting on PostgreSQL, summed over its connections (they
    /// overlap, so this can exceed the run's duration). Optional: summaries stored before it existed.
    public var databaseSeconds: Double?
    /// The refunded amount at customer prices of the refunds this run recorded first, per currency
    /// (`RefundedAmount`): empty when there were none with a price (verifyReceipt data, dry runs, a
    /// run that stopped before any). Every run's summary has it; nil only in a summary stored before
    /// it existed, which `json` still prints as an empty list.
    public var refundedAmount: [RefundedAmount]? = []
    /// The refunds earlier runs recorded (and counted in their `refundedAmount`) whose reversal by
    /// Apple this run recorded, per currency, as they were counted then: summed over runs,
    /// `refundedAmount` minus this is what still stands. Nil only in a summary stored before it
    /// existed, which `json` prints as an empty list.
    public var reversedRefundAmount: [RefundedAmount]? = []
    /// `--backend` (`verify-receipt`, `server-api`) and the receipt-recon version that ran the run; nil
    /// in summaries stored before they were recorded.
    public var backend: String?
    public var version: String?
    /// App Store Server API requests by answer: the HTTP status, and Apple's `errorCode` where it gave
    /// one (`200`, `404/4040010`, `429`; `transport` when no answer came). Nil for verifyReceipt runs.
    public var serverAPIAnswers: [String: Int]?
    /// A night driven by Apple's notification history: what it read (nil otherwise).
    public var notifications: NotificationFigures?
    /// Users verified and written per reason (`notified`, `new`, `sweep`, `older_than`), the users the
    /// night's queue held that it left for the next night, per reason, and the Apple requests the users'
    /// exchanges made; nil unless the night was driven by notifications.
    public var usersByReason: [String: Int]?
    public var usersLeftByReason: [String: Int]?
    public var requestsByReason: [String: Int]?
    /// Of the `unverified` receipts, those asking again will not change (CONTRACT §5: an answer, flagged
    /// and counted apart), and of those, the ones no earlier run had found so; nil in summaries stored
    /// before they were counted.
    public var permanentlyUnverified: Int?
    public var newlyPermanentlyUnverified: Int?
    /// Where the run's time went, phase by phase (`PhaseSeconds`); nil in summaries stored before it was
    /// measured, and for runs that never reached their stages.
    public var phaseSeconds: PhaseSeconds?
    /// The request budget the run drew on (`--max-requests-per-hour`); nil when none was kept.
    public var budget: BudgetFigures?
    /// A revert run's figures (`revert --run ID`); nil for every other kind.
    public var revert: RevertFigures?

    public init() {}

    public var correctionCount: Int { corrections.values.reduce(0) { $0 + $1.values.reduce(0, +) } }
    public var flagCount: Int { flags.values.reduce(0, +) }
    public var unverified: Int { outcomes[.unverified, default: 0] }
    /// Receipts left `unverified` for a cause asking again may change: what exit 1 and the unverified
    /// breaker are about.
    public var transientlyUnverified: Int { max(0, unverified - (permanentlyUnverified ?? 0)) }
}

extension RunSummary {
    /// Replaces every figure the run's rows can tell with what they tell. What only the process knew
    /// (what it selected, its Apple traffic and latency) is left as it is.
    public mutating func adopt(_ written: WrittenFigures) {
        receiptsProcessed = written.receipts
        usersProcessed = written.users
        outcomes = written.outcomes
        appleStatuses = written.appleStatuses
        corrections = written.corrections
        flags = written.flags
        revokedUsers = written.revokedUsers
        refundedAmount = written.refundedAmount
        reversedRefundAmount = written.reversedRefundAmount
    }
}

extension RunSummary {
    /// The human summary printed at the end of `run` and by `report`.
    public var text: String {
        if let revert { return revertText(revert) }
        var lines: [String] = []
        let mode = dryRun ? " (dry run: no entitlement changed)" : ""
        lines.append(
            "Run \(runID) (\(kind), shard \(shard)) \(status)\(mode) in \(String(format: "%.1f", durationSeconds)) s")
        lines.append(
            "  as of \(Instant.formatSeconds(asOf)); started \(Instant.formatSeconds(startedAt))"
        )
        if backend != nil || version != nil {
            lines.append(
                "  backend \(backend ?? "not recorded"), receipt-recon \(version ?? "(version not recorded)")")
        }
        if let abortReason { lines.append("  stopped: \(abortReason)") }
        if receiptsSelected >= receiptsProcessed {
            lines.append(
                "Receipts: \(receiptsProcessed) of \(receiptsSelected) selected, \(usersProcessed) of \(usersSelected) users"
            )
        } else {
            // A run recovered after its process died: its rows tell what it did, not what it selected.
            lines.append(
                "Receipts: \(receiptsProcessed) processed, \(usersProcessed) users (the selection was not recorded)")
        }
        lines.append("  outcomes: " + Self.list(outcomes, inVocabularyOrder: true))
        if unverified > 0, let permanent = permanentlyUnverified {
            let new = newlyPermanentlyUnverified.map { ", \($0) of them new tonight" } ?? ""
            lines.append(
                "  unverified: \(transientlyUnverified) transient (asked again next night), \(permanent) permanent "
                    + "(Apple's answer, flagged; asking again will not change it\(new))")
        }
        // The App Store Server API has no per-receipt status: its answers are listed with its traffic.
        if !usedServerAPI { lines.append("  Apple statuses: " + Self.list(appleStatuses)) }
        let verb = dryRun ? "planned" : "applied"
        lines.append("Corrections \(verb): \(correctionCount)")
        for action in CorrectionAction.allCases {
            guard let reasons = corrections[action], !reasons.isEmpty else { continue }
            lines.append("  \(action): \(reasons.values.reduce(0, +)) (\(Self.list(reasons)))")
        }
        lines.append("Flags: \(flagCount)" + (flags.isEmpty ? "" : " (\(Self.list(flags)))"))
        // Only where some refund had a price: verifyReceipt data has none, and "none" would read as
        // no refunds.
        if let refunded = refundedAmount, !refunded.isEmpty {
            let amounts = refunded.map { "\($0.currency) \($0.amount) (\($0.transactions))" }
            lines.append("Refunded amount (customer prices): " + amounts.joined(separator: ", "))
        }
        if let reversed = reversedRefundAmount, !reversed.isEmpty {
            let amounts = reversed.map { "\($0.currency) \($0.amount) (\($0.transactions))" }
            lines.append(
                "Refunds reversed (customer prices, counted by earlier runs): " + amounts.joined(separator: ", "))
        }
        lines += selectionLines
        lines += trafficLines
        return lines.joined(separator: "\n") + "\n"
    }

    /// `valid 3, invalid 1`, "none" when empty: by name, or in the vocabulary's own order (the
    /// contract's, as outcomes are read: valid, misrouted, invalid, unverified).
    public static func list<Key: ContractVocabulary>(_ counts: [Key: Int], inVocabularyOrder: Bool = false) -> String {
        let keys =
            inVocabularyOrder
            ? Key.allCases.filter { counts[$0] != nil } : counts.keys.sorted { $0.rawValue < $1.rawValue }
        return keys.isEmpty ? "none" : keys.map { "\($0) \(counts[$0]!)" }.joined(separator: ", ")
    }

    /// `a 3, b 1` in the given order first, then the rest by name.
    public static func list(_ counts: [String: Int], order: [String] = []) -> String {
        let keys = order.filter { counts[$0] != nil } + counts.keys.filter { !order.contains($0) }.sorted()
        return keys.isEmpty ? "none" : keys.map { "\($0) \(counts[$0]!)" }.joined(separator: ", ")
    }
}

extension RunSummary {
    /// One JSON object (sorted keys, ISO 8601 dates): `run --json` and `report --json`. Beside the
    /// stored fields, `reason` repeats `abortReason` when the run stopped: every `--json` object that
    /// did not end in success carries `status`, `exitCode` and `reason`. `refundedAmount` and
    /// `reversedRefundAmount` are in every object, an empty list where there is nothing to sum (CONTRACT §9).
    public var json: String { json(adding: nil) }

    /// The same object with `extra`'s keys beside the summary's (`verify-user --json`'s `entitlements`).
    public func json(adding extra: (any Encodable)?) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(Printed(summary: self, extra: extra))).map { String(decoding: $0, as: UTF8.self) }
            ?? "{}"
    }

    /// The summary's own keys plus `reason`; the stored summary (`recon_runs.summary`) keeps its shape.
    private struct Printed: Encodable {
        let summary: RunSummary
        let extra: (any Encodable)?

        enum CodingKeys: String, CodingKey {
            case reason, refundedAmount, reversedRefundAmount
        }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(summary.abortReason, forKey: .reason)
            // A summary stored before the figure existed (its `refundedRevenue`, full prices with
            // upgrades, is not this figure and is not carried over).
            if summary.refundedAmount == nil { try container.encode([RefundedAmount](), forKey: .refundedAmount) }
            if summary.reversedRefundAmount == nil {
                try container.encode([RefundedAmount](), forKey: .reversedRefundAmount)
            }
            try extra?.encode(to: encoder)
        }
    }
}
