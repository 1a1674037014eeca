import Foundation

/// verifyReceipt as the job asks it (CONTRACT §5): where to send, with which secret and limits. It
/// makes one `VerifyReceiptVerification` per receipt; `ExchangeDriver` sends their requests.
///
/// Threading: immutable; shared by every verification of the run.
public final class VerifyReceiptClient: Sendable {
    public struct Configuration: Sendable {
        public var productionURL: URL
        public var sandboxURL: URL
        /// The environment this database serves: its endpoint is asked first.
        public var environment: AppStoreEnvironment
        /// Sent as `password`; never logged.
        public var sharedSecret: String?
        /// Per-request timeout (`--timeout`).
        public var timeout: Duration
        /// Attempts per endpoint (`--max-attempts`), the 21002 budget, and the longest wait
        /// (`--max-retry-wait`).
        public var budget: VerifyReceiptRetryBudget
        public var backoff: BackoffPolicy
        public var userAgent: String
        /// Whether reports carry Apple's `latest_receipt` (receipt data). The job never reads it, and
        /// it is often the answer's largest value: decoding it is a copy made only to be freed.
        public var keepsLatestReceipt: Bool

        public init(
            productionURL: URL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!,
            sandboxURL: URL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!,
            environment: AppStoreEnvironment = .production,
            sharedSecret: String? = nil,
            timeout: Duration = .seconds(30),
            budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget(),
            backoff: BackoffPolicy = BackoffPolicy(),
            userAgent: String = "receipt-recon",
            keepsLatestReceipt: Bool = true
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.environment = environment
            self.sharedSecret = sharedSecret
            self.timeout = timeout
            self.budget = budget
            self.backoff = backoff
            self.userAgent = userAgent
            self.keepsLatestReceipt = keepsLatestReceipt
        }

        func url(for environment: AppStoreEnvironment) -> URL {
            environment == .production ? productionURL : sandboxURL
        }
    }

    public let configuration: Configuration
    /// The same for every request, so built once.
    let requestHeaders: [String: String]
    let retry: RetryRule

    public init(configuration: Configuration) {
        self.configuration = configuration
        requestHeaders = [
            "Content-Type": "application/json", "Accept": "application/json", "User-Agent": configuration.userAgent,
        ]
        retry = RetryRule(budget: configuration.budget, backoff: configuration.backoff)
    }

    /// The verification of `receiptData` (base64 as stored), to be driven by an `ExchangeDriver`. It
    /// never fails: every failure is a verdict in its report.
    public func verification(of receiptData: String) -> VerifyReceiptVerification {
        VerifyReceiptVerification(receiptData: receiptData, client: self)
    }
}
