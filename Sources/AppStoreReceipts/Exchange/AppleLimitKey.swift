/// Which of Apple's limits a request counts against: Apple limits each endpoint apart, and the sandbox
/// apart from production, at a tenth of production's figures ("Identifying rate limits"). So the
/// driver's token buckets and the hourly budget are kept per endpoint and environment.
public struct AppleLimitKey: Hashable, Sendable, CustomStringConvertible {
    public var endpoint: AppleEndpoint
    public var environment: AppStoreEnvironment

    public init(_ endpoint: AppleEndpoint, _ environment: AppStoreEnvironment) {
        self.endpoint = endpoint
        self.environment = environment
    }

    /// The name in the run's budget figures: the endpoint's for production, `sandbox/` before it for
    /// the sandbox.
    public var description: String {
        environment == .production ? endpoint.description : "sandbox/\(endpoint)"
    }

    /// Every limit the job keeps: each endpoint in each environment.
    public static let all: [AppleLimitKey] = AppStoreEnvironment.allCases.flatMap { environment in
        ([AppleEndpoint.verifyReceipt] + ServerAPIEndpoint.calledByTheJob.map(AppleEndpoint.serverAPI)).map {
            AppleLimitKey($0, environment)
        }
    }

    /// The key `description` names; nil for a name that is not one.
    public init?(description: String) {
        guard let key = Self.all.first(where: { $0.description == description }) else { return nil }
        self = key
    }
}

/// Apple's sandbox limits from production's: Apple gives the sandbox 10 % of production's rate on every
/// endpoint ("Identifying rate limits"), so the job's own sandbox defaults are a tenth of the production
/// figures in effect (`--rate`, `--max-requests-per-hour`).
public enum SandboxLimits {
    /// The sandbox's share of a production limit.
    public static let share = 0.1

    /// The sandbox pace for a production pace of `rate` requests per second.
    public static func rate(production rate: Double) -> Double { rate * share }

    /// The sandbox's hourly budget for a production budget of `requests`: a tenth, rounded down, but at
    /// least one request (a budget of none would refuse every sandbox request).
    public static func requestsPerHour(production requests: Int) -> Int { max(1, requests / 10) }
}
