/// One privilege set one role needs on one object for the job's statements to run: the session's
/// role on what the job names, a view's owner on the view's tables, a trigger function's role on what
/// the function writes (`PrivilegeWalk` finds them; `GrantScript` prints the missing ones).
public struct PrivilegeNeed: Sendable, Equatable {
    public enum ObjectKind: String, Sendable {
        case table = "TABLE"
        case sequence = "SEQUENCE"
        case schema = "SCHEMA"
        case function = "FUNCTION"
    }

    /// The role that needs it (the grantee).
    public var role: String
    public var kind: ObjectKind
    /// The object as SQL names it, schema-qualified and quoted where needed (`recon.entitlements`,
    /// `public.f(integer)`), so the GRANT works whatever the search path of whoever runs it.
    public var object: String
    public var privileges: [String]
    /// Why, for the script's comment: who runs what.
    public var reason: String

    public init(role: String, kind: ObjectKind, object: String, privileges: [String], reason: String) {
        self.role = role
        self.kind = kind
        self.object = object
        self.privileges = privileges
        self.reason = reason
    }

    /// PostgreSQL's usual order, so merged needs print the same way every time.
    static let order = [
        "SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "USAGE", "CREATE", "EXECUTE",
    ]

    static func ordered(_ privileges: some Sequence<String>) -> [String] {
        Set(privileges).sorted { (order.firstIndex(of: $0) ?? order.count) < (order.firstIndex(of: $1) ?? order.count) }
    }

    /// `GRANT UPDATE ON TABLE recon.entitlements TO recon_job;`
    public var grant: String {
        "GRANT \(Self.ordered(privileges).joined(separator: ", ")) ON \(kind.rawValue) \(object) TO "
            + "\(JobPrivileges.quoteIfNeeded(role));"
    }
}

/// The missing privileges as one script an administrator can paste into psql: one GRANT per role and
/// object, each under a comment saying who needs it and why. Pure.
public enum GrantScript {
    /// Needs of the same role on the same object merged (privileges united, the first reason kept), in
    /// the order first met.
    public static func merged(_ needs: [PrivilegeNeed]) -> [PrivilegeNeed] {
        var merged: [PrivilegeNeed] = []
        for need in needs {
            if let i = merged.firstIndex(where: {
                $0.role == need.role && $0.kind == need.kind && $0.object == need.object
            }) {
                merged[i].privileges = PrivilegeNeed.ordered(merged[i].privileges + need.privileges)
            } else {
                var first = need
                first.privileges = PrivilegeNeed.ordered(need.privileges)
                merged.append(first)
            }
        }
        return merged
    }

    /// The script: a header, then `-- why` and the GRANT for each missing privilege set.
    public static func script(_ missing: [PrivilegeNeed]) -> String {
        let needs = merged(missing)
        var lines = [
            "-- receipt-recon: the \(needs.count) GRANT\(needs.count == 1 ? "" : "s") the job lacks; run as the "
                + "owner of each object or a superuser (psql -v ON_ERROR_STOP=1 -1 -f FILE)"
        ]
        for need in needs {
            lines.append("-- \(need.reason)")
            lines.append(need.grant)
        }
        return lines.joined(separator: "\n")
    }

    /// The same GRANTs on one line, for an error message.
    public static func oneLine(_ missing: [PrivilegeNeed]) -> String {
        merged(missing).map(\.grant).joined(separator: " ")
    }
}
