import AppStoreReceipts

/// The seam between the run and Apple: given one user's stored rows, what Apple says about them.
///
/// A backend owns everything protocol-specific: routing between environments, retries, rate limits,
/// paging, local decoding and signature checks. It returns one `AppleUserAnswer` per user: for each
/// row an outcome (`ReceiptClassification`), and the transactions and renewal facts the rules read.
/// Nothing after this seam (decide, write, finish) knows which backend answered. The transport
/// (libcurl, URLSession) sits below a backend and knows nothing of receipts.
///
/// Threading: `verify` is called from any thread and must not block; it calls `completion` exactly
/// once, on a thread of `executor`'s (or on the calling thread before returning, when no request was
/// needed). Every call may run beside any other.
public protocol AppleBackend: Sendable {
    /// Verifies every row of `user`.
    /// - Parameters:
    ///   - shouldStop: true once the run stops calling Apple: rows not yet asked about are left out of
    ///     the answer, and no more retries are made.
    ///   - onTraffic: called with the traffic of each exchange with Apple, as it happens.
    ///   - executor: where the backend continues after an answer arrives (the run's worker threads).
    func verify(
        _ user: UserWork,
        shouldStop: @escaping @Sendable () -> Bool,
        onTraffic: @escaping @Sendable (AppleTraffic) -> Void,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (AppleUserAnswer) -> Void
    )
}

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

/// One exchange with Apple, as the run's figures count it.
public struct AppleTraffic: Sendable {
    public var requests = 0
    public var retries = 0
    /// HTTP 429 answers.
    public var throttled = 0
    /// Re-routes to the other environment.
    public var hops = 0
    /// Each request's time, throttle waits excluded.
    public var latencies: [Duration] = []
    /// Requests per endpoint (`verify_receipt`, or the App Store Server API's `transaction_history`, …).
    public var requestsByEndpoint: [String: Int] = [:]
    /// The App Store Server API's requests by answer (`RunSummary.serverAPIAnswers`); empty for verifyReceipt.
    public var serverAPIAnswers: [String: Int] = [:]

    public init(
        requests: Int = 0, retries: Int = 0, throttled: Int = 0, hops: Int = 0, latencies: [Duration] = [],
        requestsByEndpoint: [String: Int] = [:], serverAPIAnswers: [String: Int] = [:]
    ) {
        self.requests = requests
        self.retries = retries
        self.throttled = throttled
        self.hops = hops
        self.latencies = latencies
        self.requestsByEndpoint = requestsByEndpoint
        self.serverAPIAnswers = serverAPIAnswers
    }
}
