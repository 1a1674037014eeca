import CommandLineOptions
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon migrate`: create or update the job's tables.
struct MigrateCommand: Command {
    static let spec = CommandSpec(
        name: "migrate",
        usage: "migrate [--database-url URL]",
        summary: "Create or update the job's tables: apply pending SQL/NNNN_*.sql migrations in order.",
        discussion: """
            Each migration runs once, in its own transaction, and is recorded in recon_schema_migrations. \
            Running it again is a no-op. Application tables that already exist (products, receipts, \
            entitlements, sandbox_testers) are kept with their rows.
            """,
        options: Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exitCodes: [.success, .usage, .unavailable, .internalError, .configuration]
    )

    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positionals[0])'", command: "migrate")
        }
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        let connection = try PostgresConnection(conninfo: configuration.databaseURL)
        let report = try Migrator().apply(on: connection)
        if report.applied.isEmpty {
            console.print(
                "Schema is up to date: \(report.alreadyApplied.count) migrations already applied, none pending.")
        } else {
            for migration in report.applied {
                console.print("applied \(migration.version)_\(migration.name)")
            }
            console.print(
                "Applied \(report.applied.count) migration\(report.applied.count == 1 ? "" : "s") "
                    + "(\(report.alreadyApplied.count) already applied).")
        }
        if !report.unknownToThisBuild.isEmpty {
            console.error(
                "warning: the database has migrations this build does not know "
                    + "(\(report.unknownToThisBuild.joined(separator: ", "))): a newer receipt-recon migrated it")
        }
        return .success
    }
}
