/// How the simulator misbehaves: latency, a rate limit, injected faults, and the shared secret it expects.
///
/// All randomness is drawn from `faultSeed` and the request's arrival number, so a run with the same
/// options and the same arrival order sees the same faults and the same delays.
public struct SimulatorOptions: Sendable, Hashable {
    /// Added to every answer (`--latency-ms`).
    public var latency: Duration
    /// A further delay, uniform in `[0, jitter]` (`--jitter-ms`).
    public var jitter: Duration
    /// Most requests per second before answering 429 with `Retry-After` (`--rate-limit`); nil: no limit.
    public var rateLimit: Double?
    /// The token bucket's size: how many requests may arrive at once after a quiet spell. Default: one
    /// second's worth (`rateLimit`), at least 1.
    public var rateLimitBurst: Double?
    /// Probability that a verifyReceipt request gets a fault instead of its answer (`--fault-rate`).
    public var faultRate: Double
    /// How faults are split between kinds (relative weights; kinds left out never occur).
    public var faultMix: [FaultKind: Double]
    /// Seeds fault and jitter draws.
    public var faultSeed: UInt64
    /// How long a `stall` holds the connection before closing it unanswered.
    public var stallDuration: Duration
    /// `Retry-After` seconds of the injected 503 pages.
    public var serviceUnavailableRetryAfterSeconds: Int
    /// When set, receipts with auto-renewables need `password` to equal it (else status 21004).
    /// Never logged or reported.
    public var sharedSecret: String?
    /// Arrival times kept for `AppStoreSimulator.requestLog` (per-second counts are kept regardless).
    public var requestLogCapacity: Int
    /// The share of Get Notification History's records signed by a chain that is not Apple's
    /// (`--forged-notification-fraction`), chosen per notification: what a client must never believe.
    public var forgedNotificationFraction: Double

    public init(
        latency: Duration = .zero,
        jitter: Duration = .zero,
        rateLimit: Double? = nil,
        rateLimitBurst: Double? = nil,
        faultRate: Double = 0,
        faultMix: [FaultKind: Double] = FaultKind.defaultMix,
        faultSeed: UInt64 = 0,
        stallDuration: Duration = .seconds(60),
        serviceUnavailableRetryAfterSeconds: Int = 1,
        sharedSecret: String? = nil,
        requestLogCapacity: Int = 1_000_000,
        forgedNotificationFraction: Double = 0
    ) {
        self.latency = latency
        self.jitter = jitter
        self.rateLimit = rateLimit
        self.rateLimitBurst = rateLimitBurst
        self.faultRate = faultRate
        self.faultMix = faultMix
        self.faultSeed = faultSeed
        self.stallDuration = stallDuration
        self.serviceUnavailableRetryAfterSeconds = serviceUnavailableRetryAfterSeconds
        self.sharedSecret = sharedSecret
        self.requestLogCapacity = requestLogCapacity
        self.forgedNotificationFraction = forgedNotificationFraction
    }
}
