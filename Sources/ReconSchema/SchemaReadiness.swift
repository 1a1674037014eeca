import Postgres

/// Whether a database is ready for the job, as the connection's role sees it: migrated by this build
/// (the job's tables on its search path, no migration pending) and, when asked, the application's
/// tables of the shape the job needs (`ApplicationSchemaRule`).
///
/// Read with a few catalogue queries; every command that uses the database reads it before doing
/// anything else, so an unmigrated or mismatched database ends with one line and the way out instead
/// of the first failing statement.
public struct SchemaReadiness: Sendable {
    public var role: String
    /// The schemas the role's search path resolves names in (those it may use).
    public var searchPath: [String]
    /// Whether `recon_schema_migrations` is on the search path.
    public var migrationsTableFound: Bool
    public var pending: [Migration]
    /// Versions recorded that this build does not know (a newer receipt-recon migrated the database).
    public var unknownToThisBuild: [String]
    /// Where the job's tables are when the search path does not find them, and whether the role may use
    /// each schema.
    public var jobSchemasElsewhere: [(schema: String, usable: Bool)]
    /// The application's tables as found (by contract name); empty when not asked for.
    public var relations: [String: CatalogRelation]
    /// How they differ from what the job needs; a table not found is one of them.
    public var applicationProblems: [SchemaProblem]
    /// The search path's other tables and views (`ApplicationSchemaCatalog.otherRelations`), read with
    /// the application's tables; empty when not asked for.
    public var otherRelations: [String]

    /// - Parameters:
    ///   - applicationTables: also read and judge the application's tables.
    ///   - probeEntitlements: also ask PostgreSQL to plan the job's upsert into `entitlements` (when it
    ///     exists and the catalogue found nothing wrong with it): the unique key a view's base table
    ///     must have, which only the planner can tell.
    public static func read(
        on connection: PostgresConnection, migrator: Migrator = Migrator(), applicationTables: Bool = true,
        probeEntitlements: Bool = false
    ) throws -> SchemaReadiness {
        let session = try ApplicationSchemaCatalog.session(on: connection)
        let found: Bool = try connection.query(
            "SELECT to_regclass('recon_schema_migrations') IS NOT NULL AS present"
        ).first!.decode("present")
        let applied = found ? try migrator.appliedVersions(on: connection) : []
        var readiness = SchemaReadiness(
            role: session.role, searchPath: session.searchPath, migrationsTableFound: found,
            pending: migrator.migrations.filter { !applied.contains($0.version) },
            unknownToThisBuild: applied.subtracting(migrator.migrations.map(\.version)).sorted(),
            jobSchemasElsewhere: found ? [] : try ApplicationSchemaCatalog.jobSchemas(on: connection),
            relations: [:], applicationProblems: [], otherRelations: [])
        guard applicationTables else { return readiness }
        readiness.relations = try ApplicationSchemaCatalog.relations(
            ApplicationSchemaRule.tableNames, on: connection)
        readiness.otherRelations = try ApplicationSchemaCatalog.otherRelations(
            besides: ApplicationSchemaRule.tableNames, on: connection)
        readiness.applicationProblems = ApplicationSchemaRule.problems(readiness.relations, absentIsProblem: true)
        if probeEntitlements, readiness.relations["entitlements"] != nil,
            !readiness.applicationProblems.contains(where: { $0.table == "entitlements" }),
            let problem = try ApplicationSchemaCatalog.probeEntitlementsUpsert(on: connection)
        {
            readiness.applicationProblems.append(problem)
        }
        return readiness
    }

    /// The application's tables the search path does not find, in the contract's order.
    public var missingApplicationTables: [String] {
        ApplicationSchemaRule.tableNames.filter { relations[$0] == nil }
    }

    /// Whether `migrate` would create the application's tables (the migration that does is pending).
    public var createsApplicationTables: Bool { pending.contains(where: \.createsApplicationTables) }

    /// Why the missing application tables must not simply be created, when the search path holds an
    /// app's other tables: the job would read empty tables beside the app's and report every night a
    /// success. Nil when none is missing or the search path holds nothing else (a new database).
    public var missingBesideOtherTables: String? {
        let missing = missingApplicationTables
        guard !missing.isEmpty, !otherRelations.isEmpty else { return nil }
        let shown = otherRelations.prefix(5).joined(separator: ", ")
        let others = otherRelations.count > 5 ? "\(shown) and \(otherRelations.count - 5) more" : shown
        let creating =
            createsApplicationTables
            ? "; for an app that has none of them yet, 'receipt-recon migrate --create-app-tables' creates them empty"
            : ""
        let tables =
            missing.count == 1
            ? "the application table \(missing[0]) is" : "the application tables \(missing.joined(separator: ", ")) are"
        return
            "\(tables) not on the search path (\(searchPathDescription)), which holds other tables (\(others)): the job reads and writes your app's data through the contract's "
            + "names, so map your tables onto them as \(ApplicationSchemaRule.mappingGuide) shows\(creating)"
    }

    /// The search path as an operator would write it.
    public var searchPathDescription: String {
        searchPath.isEmpty ? "(empty)" : searchPath.joined(separator: ", ")
    }

    /// Why a command that needs the database must not start, or nil when it may.
    /// - Parameter applicationTables: the command reads or writes the application's tables.
    public func notReady(applicationTables: Bool) -> SchemaNotReady? {
        if !migrationsTableFound {
            if let elsewhere = jobSchemasElsewhere.first(where: { !$0.usable }) {
                return SchemaNotReady(
                    .permission,
                    "role \(role) may not use schema \(elsewhere.schema), which holds the job's tables: "
                        + "as its owner, run: GRANT USAGE ON SCHEMA \(elsewhere.schema) TO "
                        + "\(JobPrivileges.quoteIfNeeded(role)) (docs/integration.md, \"Roles and privileges\")")
            }
            if let elsewhere = jobSchemasElsewhere.first {
                return SchemaNotReady(
                    .notMigrated,
                    "the job's tables are in schema \(elsewhere.schema), which is not on role \(role)'s search path "
                        + "(\(searchPathDescription)): ALTER ROLE \(JobPrivileges.quoteIfNeeded(role)) SET search_path = "
                        + "\(elsewhere.schema), or add options=-csearch_path=\(elsewhere.schema) to DATABASE_URL")
            }
            if applicationTables, let missing = missingBesideOtherTables {
                return SchemaNotReady(.applicationShape, "the database is not migrated, and " + missing)
            }
            return SchemaNotReady(
                .notMigrated,
                "the database is not migrated: no receipt-recon tables on the search path "
                    + "(\(searchPathDescription)): run 'receipt-recon migrate'"
                    + (applicationTables && !missingApplicationTables.isEmpty
                        ? " (it creates the missing application tables, empty, for a new app; to use your app's own "
                            + "tables, map them first: \(ApplicationSchemaRule.mappingGuide))" : ""))
        }
        if !pending.isEmpty {
            return SchemaNotReady(
                .notMigrated,
                "the database schema is not up to date (\(pending.count) migration(s) pending: "
                    + "\(pending.map { "\($0.version)_\($0.name)" }.joined(separator: ", "))): "
                    + "run 'receipt-recon migrate'")
        }
        if applicationTables, !applicationProblems.isEmpty {
            return SchemaNotReady(
                .applicationShape,
                "the application tables do not have the shape the job needs: "
                    + applicationProblems.map(\.description).joined(separator: "; ")
                    + " (see 'receipt-recon migrate --check'; \(ApplicationSchemaRule.mappingGuide) says how to "
                    + "map your tables)")
        }
        return nil
    }
}

/// A database the job must not use yet: not migrated, application tables of another shape or holding
/// what the job cannot use, or a schema the role may not use. One line, naming the problem and the way
/// out.
public struct SchemaNotReady: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case notMigrated, applicationShape, permission
        /// The application's tables have the shape, but what they hold cannot be what the contract
        /// means: a `products` kind none of the four, or a night over an empty `receipts` while
        /// `entitlements` holds active `app_store` rows. A mapping's mistake, which no CHECK constraint
        /// of a view catches.
        case applicationRows
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension SchemaReadiness {
    /// Throws when a command that needs the database must not start.
    public static func require(on connection: PostgresConnection, applicationTables: Bool) throws {
        if let reason = try read(on: connection, applicationTables: applicationTables)
            .notReady(applicationTables: applicationTables)
        {
            throw reason
        }
    }
}
