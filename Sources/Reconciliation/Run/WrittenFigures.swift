import Foundation

/// What a run's own rows say it did: its `recon_results`, `recon_corrections` and `recon_flags`,
/// counted (`RunFinalizer.writtenFigures`).
///
/// These are the truth about a run that did not finish normally. Its counters in memory may be ahead
/// of what committed (a batch counted, then lost with the connection) or behind it (a COMMIT that
/// succeeded on the server while the client lost the answer), and a process killed with SIGKILL never
/// writes them at all.
public struct WrittenFigures: Sendable, Equatable {
    /// Users with a result or a correction.
    public var users = 0
    public var outcomes: [ReceiptOutcome: Int] = [:]
    /// `recon_results` rows: one per receipt, each with its outcome.
    public var receipts: Int { outcomes.values.reduce(0, +) }
    /// `recon_results.apple_status` → receipts, `none` where Apple gave no status.
    public var appleStatuses: [String: Int] = [:]
    public var corrections: [CorrectionAction: [CorrectionReason: Int]] = [:]
    public var flags: [FlagKind: Int] = [:]
    /// `unverified` results whose cause asking again will not change, and of those the ones no earlier
    /// run had found so.
    public var permanentlyUnverified = 0
    public var newlyPermanentlyUnverified = 0
    /// Users with at least one `revoke`.
    public var revokedUsers = 0
    /// Refunds this run recorded first, per currency, at customer prices (`RefundedAmount`).
    public var refundedAmount: [RefundedAmount] = []
    /// Refunds an earlier run recorded whose reversal this run recorded, per currency, as they were
    /// counted then (`RefundedAmount`).
    public var reversedRefundAmount: [RefundedAmount] = []
    /// When the run last wrote a row; nil when it wrote none.
    public var lastWrittenAt: Date?

    public init() {}
}
