/// What Apple says about one stored row: the rules' input (`UserReceipt`: outcome, transactions,
/// renewal facts) and what `recon_results` records beside it.
public struct ReceiptAnswer: Sendable {
    public var receipt: UserReceipt
    /// Requests made for this row (0 when it was judged locally or answered from the run's cache).
    public var attempts: Int
    /// The bundle id Apple's answer or the row itself names, when known.
    public var bundleID: String?

    public init(receipt: UserReceipt, attempts: Int, bundleID: String?) {
        self.receipt = receipt
        self.attempts = attempts
        self.bundleID = bundleID
    }
}
