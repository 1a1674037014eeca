/// The privileges the job's nightly role needs (`run`, `verify-user`, `report`, `export`, `revert`),
/// object by object: what its SQL does, no more. docs/integration.md grants exactly these; a permission
/// error's advice names the GRANT from here.
public enum JobPrivileges {
    /// Table (or view) → privileges. SELECT … FOR UPDATE needs UPDATE; INSERT … ON CONFLICT DO UPDATE
    /// needs INSERT and UPDATE whether or not a row conflicts.
    public static let tables: [(table: String, privileges: [String])] = [
        ("recon_schema_migrations", ["SELECT"]),
        ("products", ["SELECT"]),
        ("receipts", ["SELECT"]),
        ("sandbox_testers", ["SELECT"]),
        ("entitlements", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_runs", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_receipt_state", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_results", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_transactions", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_flags", ["SELECT", "INSERT"]),
        ("recon_corrections", ["SELECT", "INSERT"]),
        ("recon_run_transactions", ["SELECT", "INSERT", "DELETE"]),
        ("recon_notification_cursor", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_notifications", ["SELECT", "INSERT", "UPDATE", "DELETE"]),
        ("recon_notification_users", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_user_state", ["SELECT", "INSERT", "UPDATE"]),
        ("recon_request_budget", ["SELECT", "INSERT", "UPDATE", "DELETE"]),
        ("recon_run_queue", ["SELECT", "INSERT", "UPDATE", "DELETE"]),
        ("recon_refund_events", ["SELECT", "INSERT"]),
    ]

    /// What the job's statements do with `table`, for the GRANT script's comment.
    public static func why(_ table: String) -> String {
        let privileges = tables.first { $0.table == table }?.privileges ?? []
        let note: String? =
            switch table {
            case "entitlements": "SELECT … FOR UPDATE locks a user's rows, INSERT … ON CONFLICT DO UPDATE grants"
            case "recon_request_budget": "each shard leases its share of Apple's request budget"
            case "recon_notifications", "recon_notification_cursor", "recon_notification_users":
                "the App Store Server API's notification history"
            case "recon_run_queue": "the users a running night selected and why (a notified user relabelled)"
            default: nil
            }
        return privileges.joined(separator: ", ") + (note.map { ": \($0)" } ?? "")
    }

    /// The sequences behind the `bigserial` ids the job inserts (nextval needs USAGE).
    public static let sequences = ["recon_runs_id_seq", "recon_flags_id_seq", "recon_corrections_id_seq"]

    /// The GRANT that gives `role` what the job needs of `object` (a `kind` as PostgreSQL's "permission
    /// denied for KIND NAME" says it), or nil for an object the job is not meant to use.
    public static func grant(kind: String, object: String, role: String) -> String? {
        // The message may qualify the name (`recon.entitlements`); the lists hold bare names.
        let bare = object.split(separator: ".").last.map(String.init) ?? object
        let grantee = quoteIfNeeded(role)
        switch kind {
        case "table", "view", "relation":
            return tables.first { $0.table == bare }.map {
                "GRANT \($0.privileges.joined(separator: ", ")) ON \(object) TO \(grantee)"
            }
        case "sequence":
            return sequences.contains(bare) ? "GRANT USAGE ON SEQUENCE \(object) TO \(grantee)" : nil
        case "schema":
            return "GRANT USAGE ON SCHEMA \(object) TO \(grantee)"
        default:
            return nil
        }
    }

    /// A role name as SQL needs it: bare when it is a plain lower-case identifier, quoted otherwise.
    static func quoteIfNeeded(_ name: String) -> String {
        let plain =
            name.first.map { $0 == "_" || ("a"..."z").contains($0) } == true
            && name.allSatisfy { $0 == "_" || $0 == "$" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        return plain
            ? name
            : "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
