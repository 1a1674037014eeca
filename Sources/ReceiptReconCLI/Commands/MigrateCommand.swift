import CommandLineOptions
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon migrate`: create or update the job's tables; `--check`: say whether the database is
/// ready for the job, changing nothing.
struct MigrateCommand: Command {
    static let spec = CommandSpec(
        name: "migrate",
        usage: "migrate [--check [--mapping FILE] | --create-app-tables] [--database-url URL]",
        summary: "Create or update the job's tables: apply pending SQL/NNNN_*.sql migrations in order.",
        discussion: """
            Each migration runs once, in its own transaction, and is recorded in recon_schema_migrations. \
            Running it again is a no-op. Application tables that already exist (products, receipts, \
            entitlements, sandbox_testers; tables or views) are kept with their rows, and must have the \
            columns the job reads and writes: before changing anything, migrate compares them with what \
            the job needs and exits 78 naming each missing or mistyped column. Absent ones are created, \
            empty, where the search path holds no other tables (a new database); where it holds an app's \
            own tables, migrate exits 78 naming the missing ones and changes nothing, unless \
            --create-app-tables says to create them: an app's data is mapped onto the contract's names, \
            not copied into new tables (docs/integration.md#mapping-an-existing-schema-a-walk). \
            --check also reads what run and verify-user would refuse to start on: a products.kind none of \
            the four (NULL included), an empty receipts beside active app_store entitlements, and a missing \
            privilege. migrate itself needs CREATE on the schema and ownership of the job's tables: run it as \
            their owner (recon_owner in docs/integration.md); as a role without them it exits 77 naming who can.
            """,
        options: SettingsTable.options(MigrateSettings.all) + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exitCodes: [.success, .usage, .unavailable, .internalError, .noPermission, .configuration]
    )

    let configuration: Configuration
    let checkOnly: Bool
    let createAppTables: Bool
    /// `--mapping FILE`: the mapping `--check` also checks, and its file's name for the advice.
    let mapping: (file: String, mapping: SchemaMapping)?

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        try arguments.refusePositionals()
        let settings = SettingResolver(arguments, environment: environment)
        checkOnly = try settings.value(MigrateSettings.check)
        createAppTables = try settings.value(MigrateSettings.createAppTables)
        if checkOnly, createAppTables {
            throw .usage("--check changes nothing; --create-app-tables creates: give one", command: "migrate")
        }
        if let file = try settings.value(MigrateSettings.mapping) {
            guard checkOnly else { throw .usage("--mapping goes with --check", command: "migrate") }
            mapping = (file, try MappingCommand.load(file))
        } else {
            mapping = nil
        }
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        let connection = try PostgresConnection(
            conninfo: configuration.databaseURL, applicationName: "receipt-recon migrate")
        let readiness = try SchemaReadiness.read(on: connection, probeEntitlements: true)
        if checkOnly { return try check(readiness, on: connection, console) }

        // Before changing anything: tables that exist must fit; the ones that do not exist are created.
        let misfits = readiness.applicationProblems.filter { readiness.relations[$0.table] != nil }
        guard misfits.isEmpty else {
            for problem in misfits { console.error("receipt-recon migrate: \(problem)") }
            throw CommandError(
                .configuration,
                "migrate changed nothing: the application tables do not have the shape the job needs "
                    + "(\(misfits.count) problem\(misfits.count == 1 ? "" : "s") above); map your tables onto "
                    + "them as \(ApplicationSchemaRule.mappingGuide) shows, then run 'receipt-recon migrate --check'")
        }
        // The nightly role cannot migrate, by design: say so and who can, before the first DDL fails.
        if let refusal = try MigrationRights.read(on: connection).refusal(pending: readiness.pending.count) {
            throw CommandError(.noPermission, "migrate changed nothing: " + refusal)
        }
        if readiness.createsApplicationTables, let missing = readiness.missingBesideOtherTables {
            guard createAppTables else { throw CommandError(.configuration, "migrate changed nothing: " + missing) }
            console.print(
                "creating the application tables \(readiness.missingApplicationTables.joined(separator: ", ")) "
                    + "(--create-app-tables), beside \(readiness.otherRelations.count) other tables")
        }
        if !readiness.migrationsTableFound, let elsewhere = readiness.jobSchemasElsewhere.first {
            console.error(
                "warning: schema \(elsewhere.schema) already holds receipt-recon tables, but role \(readiness.role)'s "
                    + "search path (\(readiness.searchPathDescription)) does not reach it: migrating the first schema "
                    + "of the path")
        }
        let report: Migrator.Report
        do {
            report = try Migrator().apply(on: connection)
        } catch let error as PostgresError where DatabaseErrorAdvice.kind(of: error) == .permission {
            // A right lost between the look and the DDL: read again, to name the right way out.
            let refusal = try? MigrationRights.read(on: connection).refusal(pending: readiness.pending.count)
            throw CommandError(
                .noPermission, "\(error.description); " + (refusal ?? DatabaseErrorAdvice.describe(error)))
        }
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

    /// `--check`: what the job would find here, table by table, then one verdict.
    private func check(_ readiness: SchemaReadiness, on connection: PostgresConnection, _ console: Console) throws
        -> ExitCode
    {
        // Rows are read only with every privilege held: a view's owner short of one would end the check
        // at the first read, before the script that says so.
        let privileges = try PrivilegeWalk.read(on: connection)
        let refusals = privileges.missing.isEmpty ? try rowRefusals(readiness, on: connection) : []
        console.print("role \(readiness.role), search path: \(readiness.searchPathDescription)")
        for name in ApplicationSchemaRule.tableNames {
            let found = readiness.relations[name].map { "\($0.qualifiedName) (\($0.kind.rawValue))" } ?? "not found"
            console.print("\(name): \(found)")
        }
        for problem in readiness.applicationProblems + refusals.map(\.problem) { console.print("problem: \(problem)") }
        // A role that may not use the job's schema sees none of its tables: the privileges decide first.
        let blind = privileges.missing.contains { $0.kind == .schema && $0.role == privileges.roles.first }
        if blind, let mapping {
            console.print("mapping: \(mapping.file) is checked once the role may use the job's schema (GRANTs below)")
        }
        let mappingProblems =
            try mapping.map { blind ? [] : try MappingCheck.problems($0.mapping, file: $0.file, on: connection) } ?? []
        for problem in mappingProblems { console.print("problem: \(problem)") }
        let total = Migrator().migrations.count
        let applied = total - readiness.pending.count
        console.print(
            "migrations: \(applied) of \(total) applied"
                + (readiness.pending.isEmpty
                    ? "" : "; pending: " + readiness.pending.map { "\($0.version)_\($0.name)" }.joined(separator: ", "))
        )
        if !readiness.unknownToThisBuild.isEmpty {
            console.print(
                "warning: migrations this build does not know: \(readiness.unknownToThisBuild.joined(separator: ", "))")
        }
        printPrivileges(privileges, console)
        if blind { throw Self.lacking(privileges) }

        let misfits = readiness.applicationProblems.filter { readiness.relations[$0.table] != nil }
        if !misfits.isEmpty {
            throw CommandError(
                .configuration,
                "the application tables do not have the shape the job needs (\(misfits.count) "
                    + "problem\(misfits.count == 1 ? "" : "s") above): map your tables onto them as "
                    + "\(ApplicationSchemaRule.mappingGuide) shows; migrate changes nothing until they fit")
        }
        if let refusal = refusals.first { throw SchemaNotReady(.applicationRows, refusal.reason) }
        if !mappingProblems.isEmpty {
            throw CommandError(
                .configuration,
                "the database does not hold what \(mapping!.file) maps (\(mappingProblems.count) problem"
                    + "\(mappingProblems.count == 1 ? "" : "s") above)")
        }
        if let reason = readiness.notReady(applicationTables: true) {
            throw reason
        }
        if !privileges.missing.isEmpty { throw Self.lacking(privileges) }
        console.print(
            "ready: the job's tables are migrated, the application tables have what it needs, and its roles hold "
                + "every privilege its statements need")
        return .success
    }

    /// 77 for the privileges `walk` found missing, printed above as one script.
    private static func lacking(_ walk: PrivilegeWalk) -> CommandError {
        let count = GrantScript.merged(walk.missing).count
        return CommandError(
            .noPermission,
            "the job's roles lack \(count) privilege\(count == 1 ? "" : "s") its statements need: run the GRANT "
                + "script above as the owner of each object (or a superuser), then 'receipt-recon migrate --check' "
                + "again (docs/integration.md, \"Roles and privileges\")")
    }

    /// The privileges checked, and the missing ones as one script (stdout, so it can be saved and run).
    private func printPrivileges(_ walk: PrivilegeWalk, _ console: Console) {
        let checked = walk.needs.count
        let roles = walk.roles.joined(separator: ", ")
        for note in walk.notes { console.print("note: \(note)") }
        let missing = walk.missing
        guard !missing.isEmpty else {
            console.print("privileges: all held (\(checked) checked, for \(roles.isEmpty ? "no role" : roles))")
            return
        }
        console.print(
            "privileges: \(GrantScript.merged(missing).count) of \(checked) missing (roles checked: \(roles))")
        console.print(GrantScript.script(missing))
    }

    /// What `run` would refuse in the application tables' rows, where the tables have the columns to
    /// read: a `products` kind none of the four (a view has no CHECK constraint: its values are what the
    /// job must check), and a night over an empty `receipts`. Each as its `problem:` line and its reason.
    private func rowRefusals(_ readiness: SchemaReadiness, on connection: PostgresConnection) throws
        -> [(problem: SchemaProblem, reason: String)]
    {
        func readable(_ table: String) -> Bool {
            readiness.relations[table] != nil && !readiness.applicationProblems.contains { $0.table == table }
        }
        let guide = ApplicationSchemaRule.mappingGuide
        var refusals: [(problem: SchemaProblem, reason: String)] = []
        if readable("products") {
            let refused = ProductKindCheck.refused(try ProductKindCheck.rows(on: connection))
            if let problem = ProductKindCheck.problem(refused),
                let reason = ProductKindCheck.refusal(refused, guide: guide)
            {
                refusals.append((SchemaProblem(table: "products", column: "kind", problem), reason))
            }
        }
        if readable("receipts"), readable("entitlements") {
            let night = try EmptyNightCheck.read(on: connection)
            if let problem = night.problem, let reason = night.refusal(guide: guide) {
                refusals.append((SchemaProblem(table: "receipts", problem), reason))
            }
        }
        return refusals
    }
}
