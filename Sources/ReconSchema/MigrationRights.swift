import Postgres

/// Whether the connection's role may apply migrations where `migrate` would: CREATE on the schema the
/// job's tables go in (the first usable one of its search path) and ownership of the job's tables
/// already there. The nightly role has neither, by design: `migrate` as it is refused with the way
/// out (exit 77), not left to fail on its first DDL.
public struct MigrationRights: Sendable, Equatable {
    /// A schema named on the role's search path.
    public struct NamedSchema: Sendable, Equatable {
        public var name: String
        public var exists: Bool
        public var usable: Bool
        public var owner: String?

        public init(name: String, exists: Bool, usable: Bool, owner: String?) {
            self.name = name
            self.exists = exists
            self.usable = usable
            self.owner = owner
        }
    }

    public var role: String
    public var searchPath: [NamedSchema]
    /// Where CREATE TABLE would put a table (`current_schema()`): nil when no schema of the path is
    /// there and usable (PostgreSQL's 3F000).
    public var target: String?
    public var targetOwner: String?
    public var mayCreate: Bool
    /// The job's tables in `target` the role does not own, with their owner.
    public var tablesOwnedByOthers: [(table: String, owner: String)]

    public init(
        role: String, searchPath: [NamedSchema], target: String?, targetOwner: String?, mayCreate: Bool,
        tablesOwnedByOthers: [(table: String, owner: String)]
    ) {
        self.role = role
        self.searchPath = searchPath
        self.target = target
        self.targetOwner = targetOwner
        self.mayCreate = mayCreate
        self.tablesOwnedByOthers = tablesOwnedByOthers
    }

    public static func == (a: MigrationRights, b: MigrationRights) -> Bool {
        a.role == b.role && a.searchPath == b.searchPath && a.target == b.target && a.targetOwner == b.targetOwner
            && a.mayCreate == b.mayCreate && a.tablesOwnedByOthers.map(\.table) == b.tablesOwnedByOthers.map(\.table)
            && a.tablesOwnedByOthers.map(\.owner) == b.tablesOwnedByOthers.map(\.owner)
    }

    /// The documented owner role, named when the catalogue has no better name.
    public static let ownerRole = "recon_owner"

    /// Why the role cannot migrate here, and the way out; nil when it can.
    /// - Parameter pending: migrations not yet applied (said, so an operator knows whether a night is at
    ///   stake).
    public func refusal(pending: Int) -> String? {
        let role = JobPrivileges.quoteIfNeeded(self.role)
        let state =
            pending == 0
            ? " (nothing is pending: the database is up to date)"
            : " (\(pending) migration\(pending == 1 ? "" : "s") pending)"
        let check = "; a nightly role needs neither: to check the database as it, run 'receipt-recon migrate --check'"
        let path = searchPath.map(\.name).joined(separator: ", ")
        guard let target else {
            if let unusable = searchPath.first(where: { $0.exists && !$0.usable }) {
                let owner = unusable.owner ?? Self.ownerRole
                return "role \(self.role) may not use schema \(unusable.name) (no USAGE), the one its search path "
                    + "(\(path)) names, so migrate has no schema to create the job's tables in\(state): run "
                    + "'receipt-recon migrate' as \(owner), the schema's owner (DATABASE_URL naming user=\(owner)), or, "
                    + "to let this role migrate, as \(owner) run: GRANT USAGE, CREATE ON SCHEMA \(unusable.name) TO "
                    + "\(role)" + check
            }
            return "no schema on role \(self.role)'s search path (\(path.isEmpty ? "empty" : path)) exists, so "
                + "migrate has no schema to create the job's tables in\(state): as an administrator, create the job's "
                + "schema for its owner (CREATE SCHEMA recon AUTHORIZATION \(Self.ownerRole)), set that role's "
                + "search_path to it, and run 'receipt-recon migrate' as \(Self.ownerRole) (docs/integration.md, "
                + "\"Roles and privileges\")"
        }
        let owner = targetOwner ?? Self.ownerRole
        if !mayCreate {
            return "role \(self.role) may not create tables in schema \(target) (it has USAGE, not CREATE)\(state): "
                + "run 'receipt-recon migrate' as \(owner), the schema's owner (DATABASE_URL naming user=\(owner)), "
                + "or, to let this role migrate, as \(owner) run: GRANT CREATE ON SCHEMA \(target) TO \(role)" + check
        }
        if let first = tablesOwnedByOthers.first {
            let more = tablesOwnedByOthers.count > 1 ? " and \(tablesOwnedByOthers.count - 1) more" : ""
            return "role \(self.role) does not own the job's tables in schema \(target) (\(first.table)\(more) belong "
                + "to \(first.owner)), and only their owner may alter them\(state): run 'receipt-recon migrate' as "
                + "\(first.owner) (DATABASE_URL naming user=\(first.owner))" + check
        }
        return nil
    }

    /// A schema's owner as a role one can log in as: PostgreSQL 15's `public` belongs to
    /// `pg_database_owner`, which stands for the database's owner.
    static let owner = """
        CASE WHEN nspowner = 'pg_database_owner'::regrole
             THEN (SELECT datdba FROM pg_database WHERE datname = current_database()) ELSE nspowner END
        """

    /// Reads the rights of the connection's role.
    public static func read(on connection: PostgresConnection) throws -> MigrationRights {
        let session = try connection.query(
            """
            SELECT current_user::text AS role, current_schema()::text AS target,
                   (SELECT pg_get_userbyid(\(unescaped: Self.owner))::text FROM pg_namespace WHERE nspname = current_schema())
                       AS target_owner,
                   coalesce(has_schema_privilege(current_schema(), 'CREATE'), false) AS may_create
            """
        ).first!
        let path = try connection.query(
            """
            SELECT p.name, n.oid IS NOT NULL AS present,
                   coalesce(has_schema_privilege(n.oid, 'USAGE'), false) AS usable,
                   pg_get_userbyid(\(unescaped: Self.owner))::text AS owner
            FROM unnest(string_to_array(current_setting('search_path'), ',')) WITH ORDINALITY AS s(entry, pos)
            CROSS JOIN LATERAL (SELECT CASE WHEN btrim(s.entry) IN ('"$user"', '$user') THEN current_user::text
                                            ELSE btrim(btrim(s.entry), '"') END AS name) AS p
            LEFT JOIN pg_namespace n ON n.nspname = p.name
            WHERE p.name <> ''
            ORDER BY s.pos
            """
        ).map {
            NamedSchema(
                name: try $0.decode("name"), exists: try $0.decode("present"), usable: try $0.decode("usable"),
                owner: try $0.decode("owner"))
        }
        let target: String? = try session.decode("target")
        let foreign =
            target == nil
            ? []
            : try connection.query(
                """
                SELECT c.relname::text AS table_name, pg_get_userbyid(c.relowner)::text AS owner
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
                  AND c.relname LIKE 'recon\\_%' AND NOT pg_has_role(c.relowner, 'USAGE')
                ORDER BY c.relname
                """
            ).map { (table: try $0.decode("table_name") as String, owner: try $0.decode("owner") as String) }
        return MigrationRights(
            role: try session.decode("role"), searchPath: path.filter { $0.name != "pg_temp" }, target: target,
            targetOwner: try session.decode("target_owner"), mayCreate: try session.decode("may_create"),
            tablesOwnedByOthers: foreign)
    }
}
