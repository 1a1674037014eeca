import Postgres

extension PrivilegeWalk {
    /// Why a command that needs every privilege must not start: one line naming the roles and every
    /// missing GRANT; nil when all are held.
    public var refusal: SchemaNotReady? {
        let missing = GrantScript.merged(self.missing)
        guard !missing.isEmpty else { return nil }
        var roles: [String] = []
        for need in missing where !roles.contains(need.role) { roles.append(need.role) }
        let who =
            roles.count == 1
            ? "role \(roles[0]) lacks" : "roles \(roles.dropLast().joined(separator: ", ")) and \(roles.last!) lack"
        return SchemaNotReady(
            .permission,
            "\(who) \(missing.count) privilege\(missing.count == 1 ? "" : "s") the job's statements need; as the owner "
                + "of each object (or a superuser), run: \(GrantScript.oneLine(missing)) ('receipt-recon migrate "
                + "--check' prints them as a script, with the reason for each; docs/integration.md, \"Roles and "
                + "privileges\")")
    }

    /// Throws when the job's statements would meet a missing privilege: before a run's first request to
    /// Apple, rather than at its first write.
    public static func require(on connection: PostgresConnection) throws {
        if let refusal = try read(on: connection).refusal { throw refusal }
    }
}
