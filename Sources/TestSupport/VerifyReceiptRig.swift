import AppStoreReceipts
import Foundation

/// verifyReceipt as the run asks it, for tests: the client and the driver that sends its requests,
/// pointed at a loopback Apple (the simulator, a scripted server), with backoff in milliseconds so
/// that tests spend their time on what they check.
public struct VerifyReceiptRig: Sendable {
    public let client: VerifyReceiptClient
    public let driver: ExchangeDriver

    public init(
        productionURL: URL,
        sandboxURL: URL,
        transport: HTTPTransportKind = .curl,
        environment: AppStoreEnvironment = .production,
        sharedSecret: String? = nil,
        timeout: Duration = .seconds(5),
        maxAttempts: Int = 4,
        maxWait: Duration = VerifyReceiptRetryBudget.defaultMaxWait,
        concurrency: Int = 8,
        rate: Double,
        /// nil: the job's own burst for `rate`.
        burst: Double? = nil,
        backoff: BackoffPolicy
    ) {
        client = VerifyReceiptClient(
            configuration: VerifyReceiptClient.Configuration(
                productionURL: productionURL, sandboxURL: sandboxURL, environment: environment,
                sharedSecret: sharedSecret, timeout: timeout,
                budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts, maxWait: maxWait), backoff: backoff))
        driver = ExchangeDriver(
            transport: transport.makeTransport(maxConnectionsPerHost: concurrency, timeout: timeout), rate: rate,
            burst: burst, maxInFlight: concurrency)
    }

    /// A client and a driver made by the test itself (a transport of its own, an answer limit).
    public init(client: VerifyReceiptClient, driver: ExchangeDriver) {
        self.client = client
        self.driver = driver
    }

    /// Verifies `receiptData` and waits: the report, and the traffic the driver counted for it.
    public func verify(receiptData: String, isDraining: @escaping @Sendable () -> Bool = { false })
        -> VerifiedReceipt
    {
        let (report, traffic) = driver.resultNow(of: client.verification(of: receiptData), isDraining: isDraining)
        return VerifiedReceipt(report: report, traffic: traffic)
    }

    /// Starts verifying `receiptData` without waiting.
    public func start(
        receiptData: String, isDraining: @escaping @Sendable () -> Bool = { false },
        completion: @escaping @Sendable (VerificationReport) -> Void
    ) {
        driver.start(client.verification(of: receiptData), isDraining: isDraining, completion: completion)
    }

    /// What a signal does to the run's driver.
    public func stop() { driver.stop() }
}

/// One verification's report and traffic; the report's fields read through.
@dynamicMemberLookup
public struct VerifiedReceipt: Sendable {
    public let report: VerificationReport
    public let traffic: AppleTraffic

    public subscript<Value>(dynamicMember field: KeyPath<VerificationReport, Value>) -> Value {
        report[keyPath: field]
    }

    public var retries: Int { traffic.retries }
    public var hops: Int { traffic.hops }
    public var throttled: Int { traffic.throttled }
    public var latencies: [Duration] { traffic.latencies }
}
