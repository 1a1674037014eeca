/// How the run tries to reach PostgreSQL again after a connection drops: a restart, a failover, an
/// idle-session kill or a network blip usually lasts seconds, and a nightly run that waits a little
/// keeps its night instead of exiting 69.
///
/// Attempts back off from a quarter of a second to five seconds between tries, so a restart of a
/// second or two is noticed at once and a long outage costs a few dozen connection attempts. No
/// attempt starts once `window` has passed since the drop was noticed.
struct ReconnectPolicy: Sendable, Equatable {
    var window: Duration

    static let firstDelay = Duration.milliseconds(250)
    static let longestDelay = Duration.seconds(5)

    /// The wait before attempt `attempt` (0 for the first retry).
    func delay(beforeAttempt attempt: Int) -> Duration {
        var delay = Self.firstDelay
        for _ in 0..<min(attempt, 8) { delay *= 2 }
        return min(delay, Self.longestDelay)
    }

    /// Whether an attempt may start `elapsed` after the drop was noticed.
    func allowsAttempt(after elapsed: Duration) -> Bool {
        elapsed < window
    }
}
