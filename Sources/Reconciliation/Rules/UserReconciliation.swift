import Foundation

/// One user's reconciliation in one call, for the shell: truth, corrections and flags
/// (DESIGN: "the unit of work is one user"). Pure: the shell gathers the inputs inside the
/// user's transaction and writes the result.
public enum UserReconciliation {
    /// What the run knows that is the same for every user.
    public struct Settings: Hashable, Sendable {
        public var catalog: ProductCatalog
        public var sandboxPolicy: SandboxPolicy
        public var asOf: Date

        public init(catalog: ProductCatalog, sandboxPolicy: SandboxPolicy, asOf: Date) {
            self.catalog = catalog
            self.sandboxPolicy = sandboxPolicy
            self.asOf = asOf
        }
    }

    /// What the shell reads for one user.
    public struct Input: Hashable, Sendable {
        /// This run's results for the user's receipts.
        public var receipts: [UserReceipt]
        /// The user's `entitlements` rows, all sources.
        public var rows: [EntitlementRow]
        /// Whether the user has any row in `receipts` (not only ones verified in this run).
        public var userHasReceipts: Bool
        /// Whether the user is in `sandbox_testers`.
        public var isSandboxTester: Bool
        /// Transactions `recon_transactions` last saw with `cancelled_at`.
        public var previouslyRefundedTransactionIDs: Set<String>
        /// `original_transaction_id`s seen on other users' receipts.
        public var originalTransactionIDsOfOtherUsers: Set<String>

        public init(
            receipts: [UserReceipt],
            rows: [EntitlementRow],
            userHasReceipts: Bool? = nil,
            isSandboxTester: Bool = false,
            previouslyRefundedTransactionIDs: Set<String> = [],
            originalTransactionIDsOfOtherUsers: Set<String> = []
        ) {
            self.receipts = receipts
            self.rows = rows
            self.userHasReceipts = userHasReceipts ?? !receipts.isEmpty
            self.isSandboxTester = isSandboxTester
            self.previouslyRefundedTransactionIDs = previouslyRefundedTransactionIDs
            self.originalTransactionIDsOfOtherUsers = originalTransactionIDsOfOtherUsers
        }
    }

    public struct Result: Hashable, Sendable {
        public var truth: UserTruth
        /// Sorted by entitlement.
        public var corrections: [PlannedCorrection]
        /// Receipt flags by receipt id and kind, then per-user flags.
        public var flags: [PlannedFlag]
        /// The user's receipts in this run, and how many ended `unverified` (for the breakers).
        public var receiptCount: Int
        public var unverifiedReceiptCount: Int

        public var hasRevoke: Bool { corrections.contains { $0.action == .revoke } }
    }

    public static func reconcile(_ input: Input, settings: Settings) -> Result {
        let truth = UserTruth.compute(
            receipts: input.receipts,
            catalog: settings.catalog,
            sandboxPolicy: settings.sandboxPolicy,
            isSandboxTester: input.isSandboxTester,
            asOf: settings.asOf)
        let plan = CorrectionPlanner.plan(
            truth: truth,
            rows: input.rows,
            userHasReceipts: input.userHasReceipts,
            userHasUnverifiedReceipt: truth.hasUnverifiedReceipt,
            previouslyRefundedTransactionIDs: input.previouslyRefundedTransactionIDs)
        let flags = FlagRule.receiptFlags(
            input.receipts,
            catalog: settings.catalog,
            originalTransactionIDsOfOtherUsers: input.originalTransactionIDsOfOtherUsers)
        return Result(
            truth: truth,
            corrections: plan.corrections,
            flags: flags + plan.userFlags,
            receiptCount: input.receipts.count,
            unverifiedReceiptCount: input.receipts.count(where: { $0.outcome == .unverified }))
    }
}
