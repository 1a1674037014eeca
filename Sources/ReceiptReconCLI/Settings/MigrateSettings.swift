import CommandLineOptions

/// The options of `migrate`: check, create the application tables, and the mapping to check.
enum MigrateSettings {
    static let check = Setting(
        flag: OptionSpec(
            "check", .flag,
            "change nothing: compare the application tables with what the job needs, check every "
                + "products.kind and that receipts is not empty beside active app_store entitlements, and "
                + "list pending migrations; test every privilege the job's statements need, for this role "
                + "and for the owners of the views and trigger functions it writes through; exit 0 when the job "
                + "can run, 78 naming each problem, 77 printing every missing privilege as one GRANT script"))

    static let createAppTables = Setting(
        flag: OptionSpec(
            "create-app-tables", .flag,
            "create the missing application tables (empty) even though the search path holds other "
                + "tables; for an app that has none of them yet, not for one whose data is in tables of "
                + "its own (map those instead)"))

    static let mapping = Setting(
        text: OptionSpec(
            "mapping", .value(placeholder: "FILE"),
            "with --check: also check that the views, tables and sync triggers FILE maps are there "
                + "('receipt-recon mapping FILE', docs/mapping.md)"))

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [check, createAppTables, mapping]
}
