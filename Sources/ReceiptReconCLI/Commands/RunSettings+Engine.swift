import AppStoreReceipts
import Foundation
import Postgres
import Reconciliation

extension RunSettings {
    /// The backend `--backend` names (verifyReceipt, or the App Store Server API) and the driver that
    /// sends its requests: one transport (one curl loop thread or one URLSession), one in-flight cap, a
    /// token bucket per endpoint and environment (`--rate`, and `--sandbox-rate` for the sandbox). Both backends verify rows holding signed data locally, against
    /// `--apple-root-certificate` or Apple's root. `shutdown` stops the driver's waits the moment a
    /// signal arrives, so draining the run takes at most `--timeout`.
    ///
    /// Every request first draws on the request budget every shard shares (`--max-requests-per-hour`, and
    /// `--sandbox-max-requests-per-hour` for the sandbox's requests, kept in PostgreSQL); `waitsForBudget`: a nightly run waits for the next hour's budget up to
    /// `--budget-hours`, `verify-user` never waits.
    /// - Throws: a configuration error (78) for a root certificate file that cannot be used.
    func apple(_ configuration: Configuration, shutdown: ShutdownSignal, waitsForBudget: Bool) throws(CommandError)
        -> (backend: any AppleBackend, driver: ExchangeDriver, budget: RequestBudgetLedger)
    {
        let signedData = try configuration.signedDataVerifier()
        let context = ReceiptOutcomeContext(
            servedEnvironment: configuration.environment, acceptedBundleIDs: Set(configuration.bundleIDs))
        let serverAPI = configuration.serverAPI.backend == .serverAPI ? configuration.serverAPI.tokens : nil
        let requests = requestBudget(databaseURL: configuration.databaseURL, waits: waitsForBudget)
        let driver = ExchangeDriver(
            transport: self[AppleRequestSettings.httpClient].makeTransport(
                maxConnectionsPerHost: concurrency, timeout: timeoutDuration,
                answerLimit: AnswerSizeLimit(bytes: self[AppleRequestSettings.maxAnswerBytes])),
            rate: self[AppleRequestSettings.rate], sandboxRate: self[AppleRequestSettings.sandboxRate],
            maxInFlight: concurrency, tokens: serverAPI, budget: requests)
        shutdown.onRequest { driver.stop() }
        if serverAPI != nil {
            let backend = ServerAPIBackend(
                client: ServerAPIClient(
                    configuration: ServerAPIClient.Configuration(
                        productionURL: configuration.serverAPI.productionURL,
                        sandboxURL: configuration.serverAPI.sandboxURL, timeout: timeoutDuration, budget: budget,
                        userAgent: userAgent),
                    verifier: signedData),
                context: context, signedData: signedData,
                receiptSignatures: try configuration.receiptSignatureVerifier(), asOf: self[RunScopeSettings.asOf],
                defaultBundleID: configuration.bundleIDs.first ?? "", appAppleIDs: configuration.appAppleIDs)
            return (backend, driver, requests)
        }
        let client = VerifyReceiptClient(
            configuration: VerifyReceiptClient.Configuration(
                productionURL: configuration.productionURL,
                sandboxURL: configuration.sandboxURL,
                environment: configuration.environment,
                sharedSecret: configuration.sharedSecret?.value,
                timeout: timeoutDuration,
                budget: budget,
                userAgent: userAgent,
                // The engine keeps no receipt data from Apple's answers (`ReceiptChecker`).
                keepsLatestReceipt: false))
        return (VerifyReceiptBackend(client: client, context: context, signedData: signedData), driver, requests)
    }

    /// The ledger of `--max-requests-per-hour` and `--sandbox-max-requests-per-hour`.
    private func requestBudget(databaseURL: String?, waits: Bool) -> RequestBudgetLedger {
        let limit = self[NotificationSettings.maxRequestsPerHour]
        let sandboxLimit = self[NotificationSettings.sandboxMaxRequestsPerHour]
        let shardCount = self[RunScopeSettings.shard].count
        let budgetHours = self[NotificationSettings.budgetHours]
        return RequestBudgetLedger(
            limit: limit,
            reserve: RequestBudgetLedger.reserve(limit: limit, concurrency: concurrency, shardCount: shardCount),
            sandboxLimit: sandboxLimit,
            sandboxReserve: RequestBudgetLedger.reserve(
                limit: sandboxLimit, concurrency: concurrency, shardCount: shardCount),
            leaseSize: RequestBudgetLedger.leaseSize(rate: self[AppleRequestSettings.rate]),
            waitsUntil: waits && budgetHours > 0 ? startedAt.addingTimeInterval(budgetHours * 3600) : nil,
            connect: { try PostgresConnection(conninfo: databaseURL, applicationName: "receipt-recon budget") })
    }

    private var concurrency: Int { self[AppleRequestSettings.concurrency] }

    /// `--timeout` as a duration.
    var timeoutDuration: Duration { .milliseconds(Int64((self[AppleRequestSettings.timeout] * 1000).rounded())) }

    private var budget: VerifyReceiptRetryBudget {
        VerifyReceiptRetryBudget(
            maxAttempts: self[AppleRequestSettings.maxAttempts],
            maxWait: .milliseconds(Int64((self[AppleRequestSettings.maxRetryWait] * 1000).rounded())))
    }

    private var userAgent: String { "receipt-recon/\(ReceiptRecon.version)" }
}
