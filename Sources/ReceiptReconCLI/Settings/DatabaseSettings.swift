import CommandLineOptions
import Reconciliation

/// Where the database is, and how long a run keeps reaching for it after it drops.
enum DatabaseSettings {
    /// libpq conninfo or URI; nil means libpq's own defaults (`PGHOST`, `PGDATABASE`, …).
    static let url = Setting<String?>(
        option: OptionSpec(
            "database-url", .value(placeholder: "URL"),
            "libpq conninfo string or postgresql:// URI (overrides DATABASE_URL)",
            default: "libpq defaults"),
        variable: SettingVariable(
            "DATABASE_URL", "libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults"
        ),
        default: nil, documented: "libpq defaults", parse: { _, text in text })

    /// Seconds to keep reconnecting after the database drops mid-run.
    static let reconnectWindow = Setting(
        option: OptionSpec(
            "db-reconnect-window", .value(placeholder: "S"),
            "when the database connection drops mid-run, keep reconnecting for S seconds before giving up with 69 "
                + "(overrides RECON_DB_RECONNECT_WINDOW)", default: "120"),
        variable: SettingVariable(
            "RECON_DB_RECONNECT_WINDOW",
            "seconds to keep reconnecting when the database drops mid-run (--db-reconnect-window); default: 120",
            refusal: .mustBe("a number of seconds (0 or more)")),
        default: RunOptions.defaults.reconnectWindow, documented: "120", record: "reconnectWindow",
        parse: { parse, text throws(OptionError) in try parse.nonNegativeNumber("db-reconnect-window", text) }
    ).applied(to: \.reconnectWindow)
}
