import Foundation

/// What the job recorded about one user, read back for `verify-user --explain`: the user's last
/// corrections across runs (newest first) and the flags of the last run that judged the user, each with
/// its evidence. Reads only: no lock, no Apple request, nothing written.
public struct UserHistory: Sendable {
    /// One `recon_corrections` row with the run that wrote it.
    public struct Correction: Sendable {
        public var id: Int64
        public var runID: Int64
        /// `recon_runs.kind` as stored (`nightly`, `user`, `revert`).
        public var runKind: String
        public var createdAt: Date
        public var applied: Bool
        /// Its `evidence` is nil for a row written before evidence was kept.
        public var record: CorrectionRecord
        /// For a `reverted` correction: the run of the correction it undid.
        public var revertedRunID: Int64?
    }

    /// One `recon_flags` row.
    public struct Flag: Sendable {
        public var id: Int64
        /// nil for a per-user flag (`entitlement_without_receipt`).
        public var receiptID: Int64?
        public var kind: FlagKind
        public var detail: String
        public var createdAt: Date
        public var evidence: Evidence?
    }

    public var userID: String
    /// The user's `entitlements` rows now, every source.
    public var entitlements: [EntitlementRow]
    /// How many rows of `receipts` the user has.
    public var receipts: Int
    /// Newest first, at most the limit asked for.
    public var corrections: [Correction]
    /// The last run that judged the user (wrote a result or a flag); nil when none did.
    public var lastRunID: Int64?
    /// That run's flags of the user, receipt flags by receipt id first.
    public var flags: [Flag]

    /// How many corrections `--explain` shows by default.
    public static let defaultLimit = 10

    /// Whether the job and the app know nothing of the user: no receipt, no entitlement, no record.
    public var isUnknown: Bool {
        receipts == 0 && entitlements.isEmpty && corrections.isEmpty && lastRunID == nil
    }
}
