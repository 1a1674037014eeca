import Foundation

/// A request an exchange wants sent: the HTTP request, which of Apple's limits it counts against (its
/// endpoint in its environment), why it is sent (which decides whether a stopping run still sends it, and how the run's figures count
/// it), and the Server API token it needs.
public struct AppleRequest: Sendable {
    public var http: HTTPClientRequest
    public var endpoint: AppleEndpoint
    /// The environment the request goes to: the sandbox's limits are apart from production's.
    public var environment: AppStoreEnvironment
    public var purpose: RequestPurpose
    /// The App Store Server API's bearer token to sign in (nil for verifyReceipt): the driver writes
    /// it into the `Authorization` header, so exchanges never hold the key.
    public var bearer: BearerToken?

    public init(
        _ http: HTTPClientRequest, endpoint: AppleEndpoint, environment: AppStoreEnvironment = .production,
        purpose: RequestPurpose, bearer: BearerToken? = nil
    ) {
        self.http = http
        self.endpoint = endpoint
        self.environment = environment
        self.purpose = purpose
        self.bearer = bearer
    }

    /// The limits the request counts against.
    public var limit: AppleLimitKey { AppleLimitKey(endpoint, environment) }
}

/// Which of Apple's endpoints a request goes to: each has its own rate limit, and the run counts
/// requests per endpoint.
public enum AppleEndpoint: Hashable, Sendable, CustomStringConvertible {
    case verifyReceipt
    case serverAPI(ServerAPIEndpoint)

    /// The name in `appleRequestsByEndpoint` and the metrics.
    public var description: String {
        switch self {
        case .verifyReceipt: "verify_receipt"
        case .serverAPI(let endpoint): endpoint.rawValue
        }
    }
}

/// Why a request is sent.
public enum RequestPurpose: Sendable, Equatable {
    /// The first request of a new question (a receipt, a transaction id): a draining run asks none.
    case ask
    /// The same request again after a transient failure: a draining run makes none.
    case retry
    /// The question asked of the other environment (one hop): counted in `appleHops`.
    case hop
    /// The rest of a question already asked: the next page, the walk restarted, a fresh token after a
    /// 401, the statuses of a history just read. A draining run finishes these.
    case continuation

    /// Whether a run that stops taking work still sends it.
    var isSentWhileDraining: Bool { self == .hop || self == .continuation }
}

/// The JWT a Server API request carries: the bundle id it names, and whether a fresh one must be
/// signed (after a 401) instead of the one cached.
public struct BearerToken: Sendable, Equatable {
    public var bundleID: String
    public var fresh: Bool

    public init(bundleID: String, fresh: Bool) {
        self.bundleID = bundleID
        self.fresh = fresh
    }
}
