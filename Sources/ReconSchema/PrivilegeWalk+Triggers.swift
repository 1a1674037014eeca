import Postgres

extension PrivilegeWalk {
    /// Trigger events (`pg_trigger.tgtype` bits) each privilege's statements fire: INSERT … ON CONFLICT
    /// DO UPDATE fires both INSERT and UPDATE triggers.
    static let events: [(privilege: String, bit: Int, event: String)] = [
        ("INSERT", 4, "INSERT"), ("DELETE", 8, "DELETE"), ("UPDATE", 16, "UPDATE"),
    ]

    /// What the triggers a write of `visit` fires need, checked against the role each function runs as.
    static func triggerVisits(
        _ visit: Visit, _ table: Relation, sessionPath: String, on connection: PostgresConnection,
        extra: inout [PrivilegeNeed], notes: inout [String]
    ) throws -> [Visit] {
        let fired = events.filter { visit.privileges.contains($0.privilege) }
        let mask = fired.reduce(0) { $0 | $1.bit }
        var visits: [Visit] = []
        for trigger in try connection.query(
            """
            SELECT t.tgname::text AS trigger, p.prosecdef AS definer, pg_get_userbyid(p.proowner)::text AS owner,
                   l.lanname::text AS language, p.prosrc AS source,
                   quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '()' AS function,
                   coalesce((SELECT substr(c, 13) FROM unnest(p.proconfig) AS c WHERE c LIKE 'search_path=%'), '')
                       AS path
            FROM pg_trigger t
            JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_language l ON l.oid = p.prolang
            JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE t.tgrelid = (\(visit.oid))::oid AND NOT t.tgisinternal AND t.tgenabled IN ('O', 'A')
                AND (t.tgtype::int & \(mask)) <> 0
            ORDER BY t.tgname
            """)
        {
            let name: String = try trigger.decode("trigger")
            let function: String = try trigger.decode("function")
            let definer: Bool = try trigger.decode("definer")
            let runner = definer ? try trigger.decode("owner") : visit.current
            let language: String = try trigger.decode("language")
            guard language == "plpgsql" || language == "sql" else {
                notes.append(
                    "trigger \(name) on \(table.qualified) runs \(function) (\(language)), whose privileges "
                        + "are not read: grant \(runner) what it needs")
                continue
            }
            let scan = FunctionBodyScan(try trigger.decode("source"))
            if scan.dynamic {
                notes.append(
                    "trigger \(name) on \(table.qualified) runs \(function), which builds SQL at run time "
                        + "(EXECUTE): what that SQL needs is not checked")
            }
            let configured: String = try trigger.decode("path")
            let path = searchPath(configured.isEmpty ? sessionPath : configured, user: runner)
            let how = definer ? "as its owner \(runner) (SECURITY DEFINER)" : "as \(runner), whose write fires it"
            for access in scan.accesses {
                guard let (oid, schema) = try resolve(access, path: path, on: connection),
                    let target = try relation(oid, on: connection)
                else { continue }
                let verbs = PrivilegeNeed.ordered(access.privileges).map { $0.lowercased() }.joined(separator: ", ")
                let reason =
                    "trigger \(name) on \(table.qualified) runs \(function) \(how), which uses \(target.qualified) (\(verbs))"
                extra.append(
                    PrivilegeNeed(role: runner, kind: .schema, object: schema, privileges: ["USAGE"], reason: reason))
                visits.append(
                    Visit(
                        role: runner, current: runner, oid: oid, privileges: access.privileges, reason: reason,
                        columns: []))
            }
        }
        return visits
    }

    /// A function's search path as schema names in lookup order: `pg_catalog` first unless named,
    /// `$user` as the role running it, `pg_temp` left out.
    static func searchPath(_ setting: String, user: String) -> [String] {
        var schemas = setting.split(separator: ",").map { part -> String in
            let trimmed = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            if trimmed == "\"$user\"" || trimmed == "$user" { return user }
            return trimmed.hasPrefix("\"") ? String(trimmed.dropFirst().dropLast()) : trimmed.lowercased()
        }.filter { !$0.isEmpty && $0 != "pg_temp" }
        if !schemas.contains("pg_catalog") { schemas.insert("pg_catalog", at: 0) }
        return schemas
    }

    /// The relation a name in a function's body means, and its schema (quoted as SQL names it).
    static func resolve(_ access: FunctionBodyScan.Access, path: [String], on connection: PostgresConnection)
        throws -> (Int64, String)?
    {
        let schemas = access.schema.map { [$0] } ?? path
        return try connection.query(
            """
            SELECT c.oid::bigint AS oid, quote_ident(n.nspname) AS schema
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN unnest(\(schemas)::text[]) WITH ORDINALITY AS s(name, pos) ON s.name = n.nspname::text
            WHERE c.relname = \(access.name) AND c.relkind IN ('r', 'p', 'v', 'f', 'm')
            ORDER BY s.pos LIMIT 1
            """
        ).first.map { (try $0.decode("oid"), try $0.decode("schema")) }
    }
}
