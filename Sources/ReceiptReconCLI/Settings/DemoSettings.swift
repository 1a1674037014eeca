import CommandLineOptions

/// The options of `demo`: the world's size, where its files go, the backend and the database.
enum DemoSettings {
    static let users = Setting(
        option: OptionSpec(
            "users", .value(placeholder: "N"),
            "users in the seeded world, at least 1000 (a smaller world is mostly drift scenarios, and the "
                + "revoke breaker would rightly stop the run)", default: "2000"),
        default: 2000,
        parse: { parse, text throws(OptionError) in try parse.integer("users", text, in: 1000...1_000_000) })

    static let outputDirectory = Setting(
        option: OptionSpec(
            "output-dir", .value(placeholder: "DIR"), "where the CSVs and the report go", default: "./demo-output"),
        default: "./demo-output", parse: { _, text in text })

    /// Whether the demo's run uses the App Store Server API.
    static let serverAPI = Setting(
        option: OptionSpec(
            "backend", .value(placeholder: "verify-receipt|server-api"),
            "the backend the demo's run uses: the simulator answers both APIs", default: "verify-receipt"),
        default: false,
        parse: { parse, text throws(OptionError) in
            try parse.choice("backend", text, ["verify-receipt", "server-api"]) == "server-api"
        })

    /// Only the flag: an exported DATABASE_URL points at a database the operator cares about.
    static let databaseURL = Setting(
        text: OptionSpec(
            "database-url", .value(placeholder: "URL"),
            "use this empty database instead of a throwaway cluster (DATABASE_URL is ignored)",
            default: "a throwaway cluster"))

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [users, outputDirectory, serverAPI, databaseURL]
}
