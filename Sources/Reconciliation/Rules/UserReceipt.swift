import AppStoreReceipts

/// One of a user's receipts after this run's verification: the input of `UserTruth.compute` and
/// `FlagRule`.
public struct UserReceipt: Hashable, Sendable {
    /// `receipts.id`.
    public var receiptID: Int64
    public var classification: ReceiptClassification
    /// What the receipt is known to carry. For an answer with receipt data (`valid`,
    /// `misrouted`, a bundle mismatch) Apple's transactions (`VerifyReceiptResponse.allTransactions`).
    /// For other `invalid` or `unverified` receipts the shell may pass what the job last recorded
    /// for the receipt (`recon_transactions`): those never count, but they let a revoke say
    /// `invalid_receipt` instead of `no_purchase`.
    public var transactions: [VerifyReceiptTransaction]
    /// Apple's `pending_renewal_info` (grace periods); used only when the receipt counts.
    public var pendingRenewalInfo: [VerifyReceiptPendingRenewalInfo]
    /// Whether the row holds Apple's signed data rather than a receipt verifyReceipt answered for:
    /// its transactions are evidence as of their `signedDate` only, so an entitlement it carries is
    /// never revoked or shortened except for a refund it proves (`CorrectionPlanner`, guard 4).
    public var isSignedData: Bool
    /// Where `transactions` came from, recorded with each of them (`recon_transactions.source`).
    /// Set by the backend that answered: the rules never look at it.
    public var source: TransactionSource

    public init(
        receiptID: Int64,
        classification: ReceiptClassification,
        transactions: [VerifyReceiptTransaction] = [],
        pendingRenewalInfo: [VerifyReceiptPendingRenewalInfo] = [],
        isSignedData: Bool = false,
        source: TransactionSource = .verifyReceipt
    ) {
        self.receiptID = receiptID
        self.classification = classification
        self.transactions = transactions
        self.pendingRenewalInfo = pendingRenewalInfo
        self.isSignedData = isSignedData
        self.source = source
    }

    /// A receipt with the transactions and renewal info of Apple's answer, if any.
    public init(receiptID: Int64, classification: ReceiptClassification, response: VerifyReceiptResponse?) {
        self.init(
            receiptID: receiptID,
            classification: classification,
            transactions: response?.allTransactions ?? [],
            pendingRenewalInfo: response?.pendingRenewalInfo ?? []
        )
    }

    public var outcome: ReceiptOutcome { classification.outcome }

    /// How this receipt's transactions stand in the user's truth ("Which transactions count").
    public func standing(sandboxPolicy: SandboxPolicy, isSandboxTester: Bool) -> ReceiptStanding {
        switch classification.outcome {
        case .valid: .counted
        case .misrouted: sandboxPolicy == .flag || isSandboxTester ? .counted : .misroutedNotCounted
        case .invalid: classification.isBundleMismatch ? .bundleMismatch : .invalidReceipt
        case .unverified: .unverified
        }
    }
}
