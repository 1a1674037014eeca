import Postgres

/// Every privilege the job's statements need in this database, for every role PostgreSQL checks, and
/// whether each is held: read from the catalogue, changing nothing.
///
/// How PostgreSQL 15 checks them (each case is exercised against a real server by `PrivilegeCheckTests`):
/// - the session's role needs what `JobPrivileges` lists on each relation the job names;
/// - a view's tables are checked against the view's owner (its reader, for `security_invoker`); the
///   functions a view calls against the view's reader, and a `nextval` default against whoever inserts;
/// - a trigger function runs as its owner when `SECURITY DEFINER`, else as the role whose write fired
///   it, and needs what its statements do (`FunctionBodyScan`) and USAGE on the schemas it names;
///   EXECUTE on a trigger function is not checked when it fires.
public struct PrivilegeWalk: Sendable {
    /// Every need found, with the privileges of it not held (empty when all are).
    public var needs: [(need: PrivilegeNeed, missing: [String])]
    /// What could not be read (a trigger function of another language, SQL built at run time).
    public var notes: [String]

    /// The missing part of each need, for `GrantScript`.
    public var missing: [PrivilegeNeed] {
        needs.compactMap { entry in
            entry.missing.isEmpty
                ? nil
                : {
                    var need = entry.need
                    need.privileges = entry.missing
                    return need
                }()
        }
    }

    /// The roles whose privileges were checked, the session's first.
    public var roles: [String] {
        var roles: [String] = []
        for entry in needs where !roles.contains(entry.need.role) { roles.append(entry.need.role) }
        return roles
    }

    /// One relation to check: `role`'s privileges on it, while `current` is `current_user` (who runs
    /// functions and defaults).
    struct Visit {
        var role: String
        var current: String
        var oid: Int64
        var privileges: Set<String>
        var reason: String
        /// Column privileges that would do instead of the table's (the columns used), if any.
        var columns: [String]
    }

    struct Relation {
        var kind: String
        var owner: String
        var qualified: String
        var invoker: Bool
        /// Row-level security applies to roles other than the owner (to the owner too when forced).
        var rowSecurity: Bool
        var isTable: Bool { kind == "r" || kind == "p" }
    }

    static let writes: Set<String> = ["INSERT", "UPDATE", "DELETE"]

    public static func read(on connection: PostgresConnection) throws -> PrivilegeWalk {
        let session: String = try connection.query("SELECT current_user::text AS role").first!.decode("role")
        let sessionPath: String = try connection.query("SELECT current_setting('search_path') AS path").first!
            .decode("path")
        var queue: [Visit] = []
        var extra: [PrivilegeNeed] = []
        // The tables are found through the role's configured search path, schemas it may not use included:
        // a role without USAGE on the job's schema is then told that and every other GRANT at once, where
        // a lookup by the usable path would see no table and ask for nothing.
        let path = searchPath(sessionPath, user: session)
        for (table, privileges) in JobPrivileges.tables {
            guard
                let (oid, schema) = try resolve(
                    FunctionBodyScan.Access(schema: nil, name: table, privileges: []), path: path, on: connection)
            else { continue }  // not migrated, or not mapped: said elsewhere
            extra.append(
                PrivilegeNeed(
                    role: session, kind: .schema, object: schema, privileges: ["USAGE"],
                    reason: "\(session) runs the job, whose statements name tables of schema \(schema)"))
            let columns = ApplicationSchemaRule.tables.first { $0.name == table }?.columns.map(\.name) ?? []
            queue.append(
                Visit(
                    role: session, current: session, oid: oid, privileges: Set(privileges),
                    reason: "\(session) runs the job, whose statements use \(table) (\(JobPrivileges.why(table)))",
                    columns: columns))
        }

        var walk = PrivilegeWalk(needs: [], notes: [])
        var seen: Set<String> = []
        while !queue.isEmpty {
            let visit = queue.removeFirst()
            let key = "\(visit.role)|\(visit.current)|\(visit.oid)|\(visit.privileges.sorted())"
            guard seen.insert(key).inserted, let relation = try relation(visit.oid, on: connection) else { continue }
            let missing = try missingTablePrivileges(visit, on: connection)
            walk.needs.append(
                (
                    PrivilegeNeed(
                        role: visit.role, kind: .table, object: relation.qualified,
                        privileges: PrivilegeNeed.ordered(visit.privileges), reason: visit.reason), missing
                ))
            if relation.rowSecurity, visit.role == session {
                walk.notes.append(
                    "row-level security is on for \(relation.qualified): whether its policies let \(session) read and "
                        + "write the job's rows is not checked")
            }
            if relation.kind == "v" {
                queue += try viewVisits(visit, relation, on: connection, extra: &extra)
            } else if relation.isTable, !visit.privileges.isDisjoint(with: writes) {
                if visit.privileges.contains("INSERT") {
                    for sequence in try sequences(of: visit.oid, on: connection) {
                        extra.append(
                            PrivilegeNeed(
                                role: visit.current, kind: .sequence, object: sequence, privileges: ["USAGE"],
                                reason: "\(visit.current) inserts into \(relation.qualified), whose default takes "
                                    + "nextval(\(sequence))"))
                    }
                }
                queue += try triggerVisits(
                    visit, relation, sessionPath: sessionPath, on: connection, extra: &extra, notes: &walk.notes)
            }
        }
        for need in GrantScript.merged(extra) {
            walk.needs.append((need, try missing(need, on: connection)))
        }
        return walk
    }

    static func relation(_ oid: Int64, on connection: PostgresConnection) throws -> Relation? {
        try connection.query(
            """
            SELECT c.relkind::text AS kind, pg_get_userbyid(c.relowner)::text AS owner,
                   quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS qualified,
                   coalesce((SELECT lower(o.option_value) IN ('true', 'on', '1', 'yes')
                             FROM pg_options_to_table(c.reloptions) o WHERE o.option_name = 'security_invoker'),
                            false) AS invoker,
                   c.relrowsecurity AND (c.relforcerowsecurity OR NOT pg_has_role(c.relowner, 'USAGE')) AS row_security
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid = (\(oid))::oid
            """
        ).first.map {
            Relation(
                kind: try $0.decode("kind"), owner: try $0.decode("owner"), qualified: try $0.decode("qualified"),
                invoker: try $0.decode("invoker"), rowSecurity: try $0.decode("row_security"))
        }
    }

    /// The privileges of `visit` its role lacks; a table privilege may be held column by column on the
    /// columns used instead.
    static func missingTablePrivileges(_ visit: Visit, on connection: PostgresConnection) throws -> [String] {
        try PrivilegeNeed.ordered(visit.privileges).filter { privilege in
            let held: Bool = try connection.query(
                """
                SELECT has_table_privilege((\(visit.role))::name, (\(visit.oid))::oid, (\(privilege))::text)
                    OR ((\(privilege))::text IN ('SELECT', 'INSERT', 'UPDATE') AND cardinality(\(visit.columns)::text[]) > 0
                        AND NOT EXISTS (
                            SELECT 1 FROM unnest(\(visit.columns)::text[]) AS u(col)
                            JOIN pg_attribute a ON a.attrelid = (\(visit.oid))::oid AND a.attname = u.col
                                AND NOT a.attisdropped
                            WHERE NOT has_column_privilege((\(visit.role))::name, (\(visit.oid))::oid, u.col, (\(privilege))::text)))
                    AS held
                """
            ).first!.decode("held")
            return !held
        }
    }

    /// A sequence's, schema's or function's privilege not held. Found by catalogue name, not by a regclass cast: a
    /// cast would need USAGE on the schema, and a role without it must still be told everything it lacks.
    static func missing(_ need: PrivilegeNeed, on connection: PostgresConnection) throws -> [String] {
        try need.privileges.filter { privilege in
            let held: Bool =
                switch need.kind {
                case .sequence:
                    try connection.query(
                        """
                        SELECT bool_or(has_sequence_privilege((\(need.role))::name, c.oid, 'USAGE')
                                       OR has_sequence_privilege((\(need.role))::name, c.oid, 'UPDATE')) AS held
                        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE quote_ident(n.nspname) || '.' || quote_ident(c.relname) = (\(need.object))::text
                        """
                    ).first!.decode("held") ?? false
                case .schema:
                    try connection.query(
                        "SELECT has_schema_privilege((\(need.role))::name, (\(need.object))::text::regnamespace, (\(privilege))::text) AS held"
                    ).first!.decode("held")
                case .function:
                    try connection.query(
                        """
                        SELECT bool_or(has_function_privilege((\(need.role))::name, p.oid, (\(privilege))::text)) AS held
                        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                        WHERE quote_ident(n.nspname) || '.' || quote_ident(p.proname)
                              || '(' || oidvectortypes(p.proargtypes) || ')' = (\(need.object))::text
                        """
                    ).first!.decode("held") ?? false
                case .table:
                    false
                }
            return !held
        }
    }

    /// A view's tables, checked against its owner (or reader); the functions it calls, against its
    /// reader.
    static func viewVisits(
        _ visit: Visit, _ view: Relation, on connection: PostgresConnection, extra: inout [PrivilegeNeed]
    ) throws -> [Visit] {
        let references = try connection.query(
            """
            SELECT d.refobjid::bigint AS oid,
                   string_agg(a.attname::text, ',' ORDER BY a.attnum) FILTER (WHERE d.refobjsubid > 0) AS columns
            FROM pg_rewrite r
            JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
                AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> r.ev_class
            LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
            WHERE r.ev_class = (\(visit.oid))::oid
            GROUP BY d.refobjid ORDER BY d.refobjid
            """
        ).map { row -> (oid: Int64, columns: [String]) in
            let columns: String = try row.decode("columns") ?? ""
            return (try row.decode("oid"), columns.split(separator: ",").map(String.init))
        }
        let checker = view.invoker ? visit.role : view.owner
        let whose = view.invoker ? "its reader's (security_invoker)" : "its owner's"
        var visits: [Visit] = []
        for reference in references {
            // Only a view over one relation takes writes; with several, the others are read (a subquery).
            let privileges =
                references.count == 1 ? visit.privileges.intersection(writes.union(["SELECT"])) : ["SELECT"]
            let verb = privileges.isDisjoint(with: writes) ? "reads" : "reads and writes"
            guard let base = try relation(reference.oid, on: connection) else { continue }
            visits.append(
                Visit(
                    role: checker, current: visit.current, oid: reference.oid, privileges: privileges,
                    reason: "\(view.invoker ? "\(checker) reads" : "\(checker) owns") view \(view.qualified), which "
                        + "\(verb) \(base.qualified) with \(whose) privileges",
                    columns: reference.columns))
        }
        for function in try connection.query(
            """
            SELECT DISTINCT quote_ident(n.nspname) || '.' || quote_ident(p.proname)
                   || '(' || oidvectortypes(p.proargtypes) || ')' AS function
            FROM pg_rewrite r
            JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
                AND d.refclassid = 'pg_proc'::regclass
            JOIN pg_proc p ON p.oid = d.refobjid JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE r.ev_class = (\(visit.oid))::oid
            """)
        {
            let name: String = try function.decode("function")
            extra.append(
                PrivilegeNeed(
                    role: visit.current, kind: .function, object: name, privileges: ["EXECUTE"],
                    reason: "view \(view.qualified) calls \(name), which its reader \(visit.current) must be "
                        + "allowed to run"))
        }
        return visits
    }

    /// Sequences a table's column defaults take `nextval` of (an identity column's is not checked).
    static func sequences(of oid: Int64, on connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT DISTINCT quote_ident(n.nspname) || '.' || quote_ident(s.relname) AS sequence
            FROM pg_attrdef ad
            JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
                AND d.refclassid = 'pg_class'::regclass
            JOIN pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
            JOIN pg_namespace n ON n.oid = s.relnamespace
            WHERE ad.adrelid = (\(oid))::oid
            ORDER BY 1
            """
        ).map { try $0.decode("sequence") }
    }
}
