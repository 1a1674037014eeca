import AppStoreReceipts
import Foundation

extension VerifyReceiptClient {
    /// The project's client pointed at a loopback Apple (the simulator, a scripted server), with backoff
    /// in milliseconds so that tests spend their time on what they check.
    public static func forTests(
        productionURL: URL,
        sandboxURL: URL,
        transport: HTTPTransportKind = .curl,
        environment: AppStoreEnvironment = .production,
        sharedSecret: String? = nil,
        timeout: Duration = .seconds(5),
        maxAttempts: Int = 4,
        concurrency: Int = 8,
        rate: Double,
        /// nil: the job's own burst for `rate`.
        burst: Double? = nil,
        backoff: BackoffPolicy
    ) -> VerifyReceiptClient {
        let configuration = VerifyReceiptClient.Configuration(
            productionURL: productionURL, sandboxURL: sandboxURL, environment: environment, sharedSecret: sharedSecret,
            timeout: timeout, budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts), backoff: backoff)
        return VerifyReceiptClient(
            configuration: configuration,
            transport: transport.makeTransport(maxConnectionsPerHost: concurrency, timeout: timeout),
            throttle: RequestThrottle(
                bucket: burst.map { TokenBucket(rate: rate, burst: $0) } ?? TokenBucket(rate: rate),
                maxInFlight: concurrency))
    }
}
