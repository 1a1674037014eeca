import AppStoreReceipts
import CommandLineOptions
import Reconciliation

/// How a `--backend server-api` night chooses its users within Apple's budget (CONTRACT §9 "Notification
/// history"): the users Apple's notification history names, a sweep of the longest-unverified, and one
/// request ceiling for every shard together.
enum NotificationSettings {
    /// Seconds: where a shard set's first run starts reading (later runs start at the cursor).
    static let notificationsSince = Setting(
        option: OptionSpec(
            "notifications-since", .value(placeholder: "DURATION"),
            "with --backend server-api, a first run (no cursor yet) reads Apple's notification history from now "
                + "minus DURATION (3 days, 72h)", default: "3 days"),
        default: 3 * 86_400, record: "notificationsSince",
        parse: { parse, text throws(OptionError) in try parse.duration("notifications-since", text) }
    ).recorded(in: .notificationNights)

    static let noNotifications = Setting(
        option: OptionSpec(
            "no-notifications", .flag,
            "do not read Apple's notification history: select by --older-than alone, as with verifyReceipt"),
        default: false, record: "noNotifications", parse: { _, _ in true }
    ).recorded(in: .serverAPI)

    static let sweepDayRange = 1...3650

    static let sweepDays = Setting(
        option: OptionSpec(
            "sweep-days", .value(placeholder: "D"),
            "with --backend server-api, besides the notified users take enough of the longest-unverified users "
                + "that everyone is re-verified at least every D days (overrides RECON_SWEEP_DAYS)", default: "30"),
        variable: SettingVariable(
            "RECON_SWEEP_DAYS", "re-verify every user at least every this many days (--sweep-days); default: 30",
            refusal: .mustBe("a whole number of days from 1 to 3650")),
        default: 30, documented: "30", record: "sweepDays",
        parse: { parse, text throws(OptionError) in try parse.integer("sweep-days", text, in: sweepDayRange) }
    ).recorded(in: .notificationNights)

    static let requestsPerHourRange = 1...100_000_000

    /// Half of Apple's documented production limit per endpoint (about 50 a second: 180,000 an hour),
    /// because the app's own servers spend the same budget.
    static let maxRequestsPerHour = Setting(
        option: OptionSpec(
            "max-requests-per-hour", .value(placeholder: "N"),
            "most Apple requests per endpoint per clock hour for all shards together, kept through PostgreSQL "
                + "(overrides RECON_MAX_REQUESTS_PER_HOUR)", default: "90000"),
        variable: SettingVariable(
            "RECON_MAX_REQUESTS_PER_HOUR",
            "most Apple requests per endpoint per hour, all shards together (--max-requests-per-hour); "
                + "default: 90000",
            refusal: .mustBe("a whole number from 1 to 100000000")),
        default: 90_000, documented: "90000", record: "maxRequestsPerHour",
        parse: { parse, text throws(OptionError) in
            try parse.integer("max-requests-per-hour", text, in: requestsPerHourRange)
        })

    /// A tenth of the production budget in effect, as Apple's sandbox limits are a tenth of production's
    /// (of the one in effect when this is not given).
    static let sandboxMaxRequestsPerHour = Setting(
        option: OptionSpec(
            "sandbox-max-requests-per-hour", .value(placeholder: "N"),
            "most Apple requests per endpoint per clock hour in the sandbox (a sandbox database, or hops to the "
                + "sandbox), all shards together, counted apart from production's "
                + "(overrides RECON_SANDBOX_MAX_REQUESTS_PER_HOUR)",
            default: "a tenth of --max-requests-per-hour: 9000"),
        variable: SettingVariable(
            "RECON_SANDBOX_MAX_REQUESTS_PER_HOUR",
            "most Apple requests per endpoint per hour in the sandbox, all shards together "
                + "(--sandbox-max-requests-per-hour); default: a tenth of --max-requests-per-hour (9000)",
            refusal: .mustBe("a whole number from 1 to 100000000")),
        default: SandboxLimits.requestsPerHour(production: maxRequestsPerHour.defaultValue),
        documented: "9000 (a tenth of the above)", record: "sandboxMaxRequestsPerHour",
        parse: { parse, text throws(OptionError) in
            try parse.integer("sandbox-max-requests-per-hour", text, in: requestsPerHourRange)
        }
    ).defaulting { settings, _ in SandboxLimits.requestsPerHour(production: settings[maxRequestsPerHour]) }

    static let budgetHourRange = 0.0...24

    /// Hours: how long a run waits for the next hour's budget once an hour's is spent.
    static let budgetHours = Setting(
        option: OptionSpec(
            "budget-hours", .value(placeholder: "H"),
            "the night's budget: a run whose hour of --max-requests-per-hour is spent waits for the next hour "
                + "until it is H hours old, then ends completed (overrides RECON_BUDGET_HOURS)", default: "8"),
        variable: SettingVariable(
            "RECON_BUDGET_HOURS",
            "hours a run keeps waiting for the next hour's request budget (--budget-hours); default: 8",
            refusal: .mustBe("a number of hours from 0 to 24")),
        default: 8.0, documented: "8", record: "budgetHours",
        parse: { parse, text throws(OptionError) in
            guard let hours = Double(text), budgetHourRange.contains(hours) else {
                throw parse.fail("budget-hours", "a number of hours from 0 to 24", text)
            }
            return hours
        })
}
