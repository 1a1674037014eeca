/// What Apple says about one user's rows.
public struct AppleUserAnswer: Sendable {
    /// One per row that was judged, in the user's row order. A stopped run leaves later rows out.
    public var receipts: [ReceiptAnswer]
    /// Apple says the job's configuration is wrong (21004, 21000, 401 after a fresh token): the run
    /// must stop before any correction (exit 78). The answers are then not used.
    public var configurationAbort: ConfigurationAbort?

    public init(receipts: [ReceiptAnswer], configurationAbort: ConfigurationAbort? = nil) {
        self.receipts = receipts
        self.configurationAbort = configurationAbort
    }
}
