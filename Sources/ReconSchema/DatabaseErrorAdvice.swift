import Postgres

/// What a database error means for the operator, and the way out, from its SQLSTATE and message.
///
/// Pure: it reads a `PostgresError` and returns words. The job's SQL is tested against the contract's
/// tables, so an error that says a column, function or key does not fit comes from an application
/// table of another shape, not from the job.
public enum DatabaseErrorAdvice {
    public enum Kind: Sendable, Equatable {
        /// 42501: the role lacks a privilege (or a row-level security policy refused a row).
        case permission
        /// The application's tables do not have the shape the job's SQL needs.
        case schemaShape
    }

    /// SQLSTATEs that mean a relation or column is not what the statement expects: undefined column,
    /// function or table, no unique key for ON CONFLICT, datatype mismatch, wrong object type, cannot
    /// coerce, and 0A000, which is what writing a computed column of a view raises.
    static let shapeStates: Set<String> = ["42703", "42883", "42P01", "42P10", "42804", "42809", "42846", "0A000"]

    public static func kind(of error: PostgresError) -> Kind? {
        guard error.kind == .server, let state = error.sqlState else { return nil }
        // 3F000: no schema on the search path to create in, which for migrate means a role without one.
        if state == "42501" || state == "3F000" { return .permission }
        return shapeStates.contains(state) ? .schemaShape : nil
    }

    /// What to do about `error`, for the end of its one line; nil when there is no advice.
    public static func advice(for error: PostgresError) -> String? {
        switch kind(of: error) {
        case .permission: permissionAdvice(error)
        case .schemaShape:
            "the application tables do not have the shape the job needs: run 'receipt-recon migrate --check' "
                + "and see docs/integration.md"
        case nil: nil
        }
    }

    /// The error's description followed by its advice, on one line.
    public static func describe(_ error: PostgresError) -> String {
        advice(for: error).map { "\(error.description); \($0)" } ?? error.description
    }

    static func permissionAdvice(_ error: PostgresError) -> String {
        let role = error.role ?? "the job's role"
        if error.sqlState == "3F000" || error.message.hasPrefix("must be owner of ") {
            return "only the owner of the job's schema and tables may migrate: run 'receipt-recon migrate' as "
                + "that role (recon_owner in docs/integration.md, \"Roles and privileges\")"
        }
        if error.message.hasPrefix("new row violates row-level security policy"),
            let table = error.message.split(separator: "\"").dropFirst().first
        {
            return "a row-level security policy on \(table) refuses the job's rows: as its owner, add a policy "
                + "that lets role \(role) write them (CREATE POLICY … ON \(table) TO \(role)), or disable row-level "
                + "security on it"
        }
        if let (kind, object) = deniedObject(error.message),
            let grant = JobPrivileges.grant(kind: kind, object: object, role: role)
        {
            // The job's statements create nothing, so a schema they are refused needs USAGE; but the
            // statement may have run as a view's or trigger function's owner, which the error does not say.
            let whose =
                kind == "schema"
                ? " (or to the owner of the view or SECURITY DEFINER trigger function that names \(object): "
                    + "'receipt-recon migrate --check' names which role lacks it)" : ""
            return "as the owner of \(object), run: \(grant)\(whose) (docs/integration.md, \"Roles and privileges\")"
        }
        return "grant role \(role) the privileges docs/integration.md lists (\"Roles and privileges\")"
    }

    /// `permission denied for table entitlements` → ("table", "entitlements").
    static func deniedObject(_ message: String) -> (kind: String, object: String)? {
        let prefix = "permission denied for "
        guard message.hasPrefix(prefix) else { return nil }
        let words = message.dropFirst(prefix.count).split(separator: " ", maxSplits: 1)
        guard words.count == 2 else { return nil }
        return (String(words[0]), String(words[1].filter { $0 != "\"" }))
    }
}
