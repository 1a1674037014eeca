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
        options: [
            OptionSpec(
                "users", .value(placeholder: "N"),
                "users in the seeded world, at least 1000 (a smaller world is mostly drift scenarios, and the "
                    + "revoke breaker would rightly stop the run)", default: "2000"),
            OptionSpec(
                "output-dir", .value(placeholder: "DIR"), "where the CSVs and the report go", default: "./demo-output"),
            OptionSpec(
                "backend", .value(placeholder: "verify-receipt|server-api"),
                "the backend the demo's run uses: the simulator answers both APIs", default: "verify-receipt"),
            OptionSpec(
                "database-url", .value(placeholder: "URL"),
                "use this empty database instead of a throwaway cluster (DATABASE_URL is ignored)",
                default: "a throwaway cluster"),
        ],
        environment: [],
        exitCodes: [.success, .usage, .dataError, .unavailable, .internalError, .noPermission]
    )

    let users: Int
    let outputDirectory: String
    let serverAPI: Bool
    /// Only `--database-url`: an exported DATABASE_URL points at a database the operator cares about.
    let databaseURL: String?

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positionals[0])'", command: "demo")
        }
        users = try arguments.read.integer("users", in: 1000...1_000_000) ?? 2000
        outputDirectory = arguments.value("output-dir") ?? "./demo-output"
        serverAPI = try arguments.read.choice("backend", ["verify-receipt", "server-api"]) == "server-api"
        databaseURL = arguments.value("database-url")
    }

    func run(_ console: Console) throws -> ExitCode {
        try DemoRunner(
            users: users, outputDirectory: outputDirectory, databaseURL: databaseURL,
            serverAPI: serverAPI, console: console
        ).run()
    }
}
