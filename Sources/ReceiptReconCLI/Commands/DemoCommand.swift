import CommandLineOptions
import Reconciliation

/// `receipt-recon demo`: the whole job end to end on a throwaway database and the simulator.
struct DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        usage: "demo [--users N] [--output-dir DIR] [--backend verify-receipt|server-api] [--database-url URL]",
        summary: "Run the whole job end to end on a throwaway PostgreSQL and the built-in App Store simulator.",
        discussion: """
            Starts a temporary PostgreSQL cluster and removes it afterwards, unless --database-url names an \
            empty database; DATABASE_URL is never used, since the demo seeds and changes its database. Seeds a \
            drifted world, runs the nightly job, writes the CSVs and the HTML report to DIR, and re-verifies \
            one user the way support would.
            """,
        options: SettingsTable.options(DemoSettings.all),
        environment: [],
        exitCodes: [.success, .usage, .dataError, .unavailable, .internalError, .noPermission]
    )

    let users: Int
    let outputDirectory: String
    let serverAPI: Bool
    /// Only `--database-url`: an exported DATABASE_URL points at a database the operator cares about.
    let databaseURL: String?

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        try arguments.refusePositionals()
        // Flags only: the demo reads no variable, DATABASE_URL least of all.
        let settings = SettingResolver(arguments, environment: [:])
        users = try settings.value(DemoSettings.users)
        outputDirectory = try settings.value(DemoSettings.outputDirectory)
        serverAPI = try settings.value(DemoSettings.serverAPI)
        databaseURL = try settings.value(DemoSettings.databaseURL)
    }

    func run(_ console: Console) throws -> ExitCode {
        try DemoRunner(
            users: users, outputDirectory: outputDirectory, databaseURL: databaseURL,
            serverAPI: serverAPI, console: console
        ).run()
    }
}
