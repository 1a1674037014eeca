import Foundation

/// Everything one verification did: the final verdict, Apple's answer, and how many requests it took.
public struct VerificationReport: Sendable {
    /// The final verdict (never `reroute` or `transient`).
    public var verdict: VerificationVerdict = .unverified(.unknownStatus(-1))
    /// The last decoded 2xx answer; for a `valid` verdict, Apple's truth about the receipt.
    public var response: VerifyReceiptResponse?
    /// The endpoint that gave the last answer.
    public var answeredBy: AppStoreEnvironment?
    /// The last `status` Apple sent, if any answer decoded.
    public var appleStatus: Int?
    /// HTTP requests sent (attempts on both endpoints); the run's traffic figures are the driver's.
    public var requests = 0
    /// One line for logs and `recon_results.detail`; never receipt data or the secret.
    public var detail = ""

    /// The environment Apple says the receipt belongs to: the response's `environment`, else the
    /// endpoint that answered it.
    public var environment: AppStoreEnvironment? {
        response?.environment ?? answeredBy
    }

    mutating func finish(_ verdict: VerificationVerdict, detail: String) {
        self.verdict = verdict
        self.detail = detail
    }
}
