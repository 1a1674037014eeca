import AppStoreReceipts
import Foundation
import Reconciliation

extension VerificationOptions {
    /// The backend `--backend` names: verifyReceipt over `client(_:)`, or the App Store Server API.
    /// Both verify rows holding signed data locally, against `--apple-root-certificate` or Apple's root.
    /// `shutdown` stops the client's waits the moment a signal arrives, so draining the run takes at most
    /// `--timeout`.
    /// - Throws: a configuration error (78) for a root certificate file that cannot be used.
    func backend(_ configuration: Configuration, shutdown: ShutdownSignal) throws(CommandError) -> any AppleBackend {
        let signedData = try configuration.signedDataVerifier()
        let context = ReceiptOutcomeContext(
            servedEnvironment: configuration.environment, acceptedBundleIDs: Set(configuration.bundleIDs))
        if configuration.serverAPI.backend == .serverAPI, let tokens = configuration.serverAPI.tokens {
            let client = serverAPIClient(configuration, tokens: tokens, signedData: signedData)
            shutdown.onRequest { client.stop() }
            return ServerAPIBackend(
                client: client, context: context, signedData: signedData,
                receiptSignatures: try configuration.receiptSignatureVerifier(), asOf: asOf ?? Date(),
                defaultBundleID: configuration.bundleIDs.first ?? "")
        }
        let client = client(configuration)
        shutdown.onRequest { client.stop() }
        return VerifyReceiptBackend(client: client, context: context, signedData: signedData)
    }

    /// The App Store Server API client: one transport, one in-flight cap, a token bucket per endpoint.
    func serverAPIClient(_ configuration: Configuration, tokens: ServerAPITokens, signedData: SignedDataVerifier)
        -> ServerAPIClient
    {
        let timeoutDuration = Duration.milliseconds(Int64((timeout * 1000).rounded()))
        return ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: configuration.serverAPI.productionURL, sandboxURL: configuration.serverAPI.sandboxURL,
                timeout: timeoutDuration,
                budget: VerifyReceiptRetryBudget(
                    maxAttempts: maxAttempts, maxWait: .milliseconds(Int64((maxRetryWait * 1000).rounded()))),
                userAgent: "receipt-recon/\(ReceiptRecon.version)"),
            tokens: tokens, verifier: signedData,
            transport: httpClient.makeTransport(
                maxConnectionsPerHost: concurrency, timeout: timeoutDuration,
                answerLimit: AnswerSizeLimit(bytes: maxAnswerBytes)),
            rate: rate, maxInFlight: concurrency)
    }

    /// One client for the whole process: one transport (one curl loop thread or one URLSession), one
    /// token bucket, one in-flight cap.
    func client(_ configuration: Configuration) -> VerifyReceiptClient {
        let timeoutDuration = Duration.milliseconds(Int64((timeout * 1000).rounded()))
        let clientConfiguration = VerifyReceiptClient.Configuration(
            productionURL: configuration.productionURL,
            sandboxURL: configuration.sandboxURL,
            environment: configuration.environment,
            sharedSecret: configuration.sharedSecret?.value,
            timeout: timeoutDuration,
            budget: VerifyReceiptRetryBudget(
                maxAttempts: maxAttempts, maxWait: .milliseconds(Int64((maxRetryWait * 1000).rounded()))),
            userAgent: "receipt-recon/\(ReceiptRecon.version)",
            // The engine keeps no receipt data from Apple's answers (`ReceiptChecker`).
            keepsLatestReceipt: false)
        return VerifyReceiptClient(
            configuration: clientConfiguration,
            transport: httpClient.makeTransport(
                maxConnectionsPerHost: concurrency, timeout: timeoutDuration,
                answerLimit: AnswerSizeLimit(bytes: maxAnswerBytes)),
            throttle: RequestThrottle(bucket: TokenBucket(rate: rate), maxInFlight: concurrency))
    }
}
