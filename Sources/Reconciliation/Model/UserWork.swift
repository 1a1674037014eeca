/// One user's unit of work: every receipt of the user (the user's truth comes from all of them).
public struct UserWork: Sendable {
    public let userID: String
    public let receipts: [StoredReceipt]
    public let isSandboxTester: Bool
    /// Transaction ids Apple answered for in earlier runs (`recon_transactions`): Apple's "not found" for
    /// one of them proves nothing (CONTRACT §9, "What proves a purchase absent").
    public var knownTransactionIDs: Set<String> = []
    /// Why the run took the user.
    public var reason: DueReason = .olderThan

    public init(
        userID: String, receipts: [StoredReceipt], isSandboxTester: Bool, knownTransactionIDs: Set<String> = [],
        reason: DueReason = .olderThan
    ) {
        self.userID = userID
        self.receipts = receipts
        self.isSandboxTester = isSandboxTester
        self.knownTransactionIDs = knownTransactionIDs
        self.reason = reason
    }
}
