import Postgres

/// Whether the database holds what a mapping file maps (`migrate --check --mapping FILE`): the views and
/// the entitlements table in the mapping's schema, the sync triggers on both sides, and, for a uuid or
/// text receipt key, the key table and its trigger. Each problem names the part to run again.
public enum MappingCheck {
    /// What the database needs for `mapping`: (relation, what it must be, trigger it must carry).
    static func expectations(_ mapping: SchemaMapping) -> [(relation: String, kinds: [String], trigger: String?)] {
        let inSchema = { (name: String) in MappingSQL.inSchema(mapping, name) }
        var items: [(String, [String], String?)] = [
            (inSchema("products"), ["v"], nil), (inSchema("receipts"), ["v"], nil),
            (inSchema("sandbox_testers"), ["v"], nil), (inSchema("entitlements"), ["r", "p"], "entitlements_to_app"),
            (
                MappingSQL.quoted(mapping.entitlements.table), ["r", "p"],
                mapping.entitlements.table.name + "_to_" + mapping.schema
            ),
        ]
        if mapping.receipts.idType.needsKeyTable {
            items.append((inSchema("receipt_keys"), ["r"], nil))
            items.append((MappingSQL.quoted(mapping.receipts.table), ["r", "p"], mapping.schema + "_receipt_keys"))
        }
        return items
    }

    /// The problems, as lines for `migrate --check`; empty when everything the mapping makes is there.
    public static func problems(_ mapping: SchemaMapping, file: String, on connection: PostgresConnection) throws
        -> [String]
    {
        let fix = "run 'receipt-recon mapping \(file) --part schema' as \(mapping.owner) (docs/mapping.md)"
        var problems: [String] = []
        for (relation, kinds, trigger) in expectations(mapping) {
            let rows = try connection.query(
                """
                SELECT c.relkind::text AS kind,
                       (SELECT t.tgenabled::text FROM pg_trigger t
                        WHERE t.tgrelid = c.oid AND t.tgname = \(trigger ?? "") AND NOT t.tgisinternal) AS trigger
                FROM pg_class c WHERE c.oid = to_regclass(\(relation))
                """)
            guard let row = rows.first else {
                problems.append("mapping: \(relation) does not exist: \(fix)")
                continue
            }
            let kind: String = try row.decode("kind")
            guard kinds.contains(kind) else {
                problems.append(
                    "mapping: \(relation) is not a \(kinds == ["v"] ? "view" : "table") as the mapping makes it: \(fix)"
                )
                continue
            }
            if let trigger {
                let state: String? = try row.decode("trigger")
                if state == nil {
                    problems.append("mapping: trigger \(trigger) on \(relation) is missing: \(fix)")
                } else if state == "D" {
                    problems.append(
                        "mapping: trigger \(trigger) on \(relation) is disabled, so writes are not copied across: "
                            + "ALTER TABLE \(relation) ENABLE TRIGGER \(MappingSQL.quoted(trigger))")
                }
            }
        }
        return problems
    }
}
