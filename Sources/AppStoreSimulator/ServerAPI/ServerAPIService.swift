import AppStoreReceipts
import Foundation

/// What `simulator serve --pki-dir DIR` needs to answer the App Store Server API: the chain that signs
/// every answer and the API key whose tokens it accepts (both written by `simulator seed --pki-dir DIR`).
package struct ServerAPISetup: Sendable {
    package var chain: SigningChain
    package var key: ServerAPIKey
    /// Signed items kept (about 600 bytes each); the bench runs the simulator beside the job.
    package var cacheCapacity: Int

    package init(chain: SigningChain, key: ServerAPIKey, cacheCapacity: Int = 32_768) {
        self.chain = chain
        self.key = key
        self.cacheCapacity = cacheCapacity
    }

    /// The chain and key `simulator seed --pki-dir` wrote into `directory`.
    package static func read(from directory: URL) throws -> ServerAPISetup {
        ServerAPISetup(chain: try SigningChain.read(from: directory), key: try ServerAPIKey.read(from: directory))
    }
}

/// The Server API side of the simulator: token check, per-endpoint rate limits and the answerer.
struct ServerAPIService: Sendable {
    let key: ServerAPIKey
    let answerer: ServerAPIAnswerer
    let notificationHistory: NotificationHistoryAnswerer
    /// One bucket per endpoint and environment (`--rate-limit` applies to each, as Apple's limits do).
    let limiters: [String: RateLimiter]

    init(
        setup: ServerAPISetup, world: SimulatedWorld, options: SimulatorOptions,
        units: @escaping @Sendable (Int) -> WorldUnit
    ) {
        key = setup.key
        let signer = ServerAPISigner(chain: setup.chain, cacheCapacity: setup.cacheCapacity)
        answerer = ServerAPIAnswerer(world: world, units: units, signer: signer)
        notificationHistory = NotificationHistoryAnswerer(
            world: world, units: units, signer: signer, forgedFraction: options.forgedNotificationFraction)
        var limiters: [String: RateLimiter] = [:]
        if let rate = options.rateLimit {
            for environment in [AppStoreEnvironment.production, .sandbox] {
                for endpoint in ServerAPIEndpoint.allCases {
                    limiters[Self.name(endpoint, environment)] = RateLimiter(rate: rate, burst: options.rateLimitBurst)
                }
            }
        }
        self.limiters = limiters
    }

    /// `production/history`: how stats and limiters name an endpoint (the `/stats` names, kept as the
    /// simulator has always printed them).
    static func name(_ endpoint: ServerAPIEndpoint, _ environment: AppStoreEnvironment) -> String {
        let name =
            switch endpoint {
            case .transactionHistory: "history"
            case .subscriptionStatuses: "subscriptions"
            case .transactionInfo: "transactions"
            case .notificationHistory, .orderLookup: endpoint.rawValue
            }
        return environment.rawValue + "/" + name
    }

    /// The Server API's answer to an injected fault (the verifyReceipt kinds, mapped to what the Server
    /// API sends in the same situation), with its error code; nil response for faults that send nothing.
    static func inject(_ fault: FaultKind, options: SimulatorOptions) -> (HTTPResponse, Int?) {
        func json(_ reply: ServerAPIReply) -> (HTTPResponse, Int?) {
            (
                HTTPResponse(status: reply.status, headers: [("Content-Type", "application/json")], body: reply.body),
                reply.errorCode
            )
        }
        switch fault {
        case .status21005:
            // "The receipt server was temporarily unable": GeneralInternalRetryable.
            return json(.error(500, 5_000_001, "An unknown error occurred. Please try again."))
        case .status21009:
            // "Internal data access error": AccountNotFoundRetryable.
            return json(.error(404, 4_040_002, "Account not found. Please try again."))
        case .status21199Retryable:
            // An internal error Apple says to retry: OriginalTransactionIdNotFoundRetryable.
            return json(.error(404, 4_040_006, "Original transaction id not found. Please try again."))
        case .status21199NotRetryable:
            // An internal error not named retryable: GeneralInternal, a bounded retry at most.
            return json(.internalError)
        case .serviceUnavailable:
            // A gateway's page: HTTP 503, no JSON, as for verifyReceipt.
            let page =
                "<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1>"
                + "</body></html>"
            return (
                HTTPResponse(
                    status: 503,
                    headers: [
                        ("Content-Type", "text/html"),
                        ("Retry-After", String(options.serviceUnavailableRetryAfterSeconds)),
                    ],
                    body: Array(page.utf8)), nil
            )
        case .connectionReset:
            return (.reset(), nil)
        case .stall:
            return (.closeWithoutResponse(after: options.stallDuration), nil)
        }
    }
}
