import AppStoreReceipts

/// How long subscription periods last in each App Store environment.
///
/// Production bills a month as 30 days and a year as 365 (the world needs a fixed rule, not a calendar).
/// The sandbox runs on Apple's compressed clock: a month renews every 5 minutes and a year every hour
/// (verifyreceipt.md §4.2), which is why a sandbox purchase of a few days ago is long expired.
/// The billing grace period is 16 days in production, scaled the same way in the sandbox.
public enum SubscriptionClock {
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// One billing period of `period` in `environment`, in milliseconds.
    public static func length(_ period: WorldProduct.Period, in environment: AppStoreEnvironment) -> Int64 {
        switch (environment, period) {
        case (.production, .month): 30 * millisecondsPerDay
        case (.production, .year): 365 * millisecondsPerDay
        case (.sandbox, .month): 5 * 60_000
        case (.sandbox, .year): 60 * 60_000
        }
    }

    /// The billing grace period in `environment` (16 days for a 30-day month).
    public static func gracePeriod(in environment: AppStoreEnvironment) -> Int64 {
        length(.month, in: environment) / 30 * 16
    }
}
