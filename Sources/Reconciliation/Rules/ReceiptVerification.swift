import AppStoreReceipts

/// What verifyReceipt said about one receipt: the parts of `VerificationReport` that decide its
/// outcome, as a plain value so the rules can be tested without a client.
public struct ReceiptVerification: Hashable, Sendable {
    /// The final verdict (never `reroute` or `transient`).
    public var verdict: VerificationVerdict
    /// The last decoded answer; for a `valid` verdict, Apple's truth about the receipt.
    public var response: VerifyReceiptResponse?
    /// The endpoint that gave the last answer.
    public var answeredBy: AppStoreEnvironment?
    /// The last `status` Apple sent, if any answer decoded.
    public var appleStatus: Int?
    /// The client's one-line account of the verification (never receipt data).
    public var detail: String

    public init(
        verdict: VerificationVerdict,
        response: VerifyReceiptResponse? = nil,
        answeredBy: AppStoreEnvironment? = nil,
        appleStatus: Int? = nil,
        detail: String = ""
    ) {
        self.verdict = verdict
        self.response = response
        self.answeredBy = answeredBy
        self.appleStatus = appleStatus ?? response?.rawStatus
        self.detail = detail
    }

    public init(_ report: VerificationReport) {
        self.init(
            verdict: report.verdict,
            response: report.response,
            answeredBy: report.answeredBy,
            appleStatus: report.appleStatus,
            detail: report.detail
        )
    }

    /// The environment Apple says the receipt belongs to: the answer's `environment`, else the
    /// endpoint that answered.
    public var environment: AppStoreEnvironment? { response?.environment ?? answeredBy }
}
