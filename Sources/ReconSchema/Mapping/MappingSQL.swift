/// The SQL a `SchemaMapping` stands for, in the three parts an operator runs, in order, each as the role
/// that may (docs/mapping.md):
/// 1. `admin`, as an administrator, once: the job's schema, the owner's privileges on the app's
///    tables, both roles' search path, the index the nightly selection walks.
/// 2. `schema`, as the owner, before `migrate`, in one transaction: read-only views under the
///    contract's names, the contract's `entitlements` table with triggers copying every write across
///    to and from the app's table, and, for a uuid or text receipt key, the table giving each a bigint.
/// 3. `grants`, as the owner, after `migrate`: exactly what the nightly role needs (`JobPrivileges`).
/// Pure: text from a parsed mapping, no database.
public enum MappingSQL {
    public enum Part: String, Sendable, CaseIterable {
        case admin, schema, grants
    }

    public static func text(_ mapping: SchemaMapping, parts: [Part] = Part.allCases) -> String {
        parts.map { part in
            switch part {
            case .admin: admin(mapping)
            case .schema: schema(mapping)
            case .grants: grants(mapping)
            }
        }.joined(separator: "\n")
    }

    // MARK: - Names and literals

    /// An identifier, always quoted: a column named `user` or `Order` is then as safe as `feature`.
    public static func quoted(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }

    public static func quoted(_ table: SchemaMapping.TableName) -> String {
        (table.schema.map { quoted($0) + "." } ?? "") + quoted(table.name)
    }

    public static func literal(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "''") + "'"
    }

    static func inSchema(_ mapping: SchemaMapping, _ name: String) -> String {
        quoted(mapping.schema) + "." + quoted(name)
    }

    /// The app's user id as the contract's text.
    static func userIDText(_ expression: String, _ type: SchemaMapping.UserIDType) -> String {
        type == .text ? expression : "\(expression)::text"
    }

    /// The contract's text user id as the app's type.
    static func userIDApp(_ expression: String, _ type: SchemaMapping.UserIDType) -> String {
        type == .text ? expression : "\(expression)::\(type.rawValue)"
    }

    // MARK: - 1. admin

    static func admin(_ mapping: SchemaMapping) -> String {
        let owner = quoted(mapping.owner)
        let receipts = mapping.receipts
        var reads = [mapping.products.table, receipts.table]
        if let testers = mapping.sandboxTesters { reads.append(testers.table) }
        var lines = [
            "-- 1. As an administrator (a superuser, or the owner of the app's tables with CREATEROLE), once.",
            "-- The roles \(mapping.owner) and \(mapping.jobRole) exist already (CREATE ROLE … LOGIN, as your site gives passwords).",
            "CREATE SCHEMA IF NOT EXISTS \(quoted(mapping.schema)) AUTHORIZATION \(owner);",
            "-- The owner's views read the app's tables with the owner's privileges.",
            "GRANT SELECT ON \(reads.map(quoted).joined(separator: ", ")) TO \(owner);",
            "-- The sync triggers (part 2) write the app's entitlements as the owner.",
            "GRANT SELECT, INSERT, UPDATE, TRIGGER ON \(quoted(mapping.entitlements.table)) TO \(owner);",
        ]
        if receipts.idType.needsKeyTable {
            lines += [
                "-- A new receipt gets its bigint id from a trigger on the app's table (part 2).",
                "GRANT TRIGGER ON \(quoted(receipts.table)) TO \(owner);",
            ]
        }
        lines += [
            "-- Both roles find the job's schema, and only it, first.",
            "DO $$",
            "BEGIN",
        ]
        for role in [mapping.owner, mapping.jobRole] {
            lines.append(
                "    EXECUTE format('ALTER ROLE %I IN DATABASE %I SET search_path = %I', "
                    + "\(literal(role)), current_database(), \(literal(mapping.schema)));")
        }
        lines += ["END", "$$;"]
        // The nightly selection walks receipts in (user_id, id) order: through the view that is the
        // app's table in the order of the view's expressions, which only an index on exactly them gives.
        let user = userIDText(quoted(receipts.userID), receipts.userIDType)
        let indexed = receipts.userIDType == .text ? user : "(\(user))"
        let columns = receipts.idType.needsKeyTable ? indexed : "\(indexed), \(quoted(receipts.id))"
        lines += [
            "-- The nightly selection walks receipts in the view's user id order: an index on exactly its expression.",
            "CREATE INDEX IF NOT EXISTS \(quoted(receipts.table.name + "_" + mapping.schema + "_user_idx")) "
                + "ON \(quoted(receipts.table)) (\(columns));",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - 2. schema

    static func schema(_ mapping: SchemaMapping) -> String {
        var lines = [
            "-- 2. As \(mapping.owner), before 'receipt-recon migrate', in one transaction (psql -1).",
            productsView(mapping),
        ]
        if mapping.receipts.idType.needsKeyTable { lines.append(receiptKeys(mapping)) }
        lines += [receiptsView(mapping), testersView(mapping), EntitlementsSync(mapping: mapping).sql]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A product's kind: stated per product id, else translated from the app's column, else NULL, which
    /// `migrate --check`, `run` and `verify-user` refuse naming the product. There is no default kind.
    static func kindExpression(_ products: SchemaMapping.Products) -> String {
        var byColumn = "NULL"
        if let column = products.kindColumn {
            byColumn =
                "CASE p.\(quoted(column))"
                + products.kinds.map { " WHEN \(literal($0.value)) THEN \(literal($0.kind))" }.joined() + " END"
        }
        guard !products.productKinds.isEmpty else { return "(\(byColumn))::text" }
        return "(CASE p.\(quoted(products.productID))"
            + products.productKinds.map { " WHEN \(literal($0.productID)) THEN \(literal($0.kind))" }.joined()
            + " ELSE \(byColumn) END)::text"
    }

    static func productsView(_ mapping: SchemaMapping) -> String {
        let products = mapping.products
        let duration: String
        if let column = products.duration.map({ "p." + quoted($0) }) {
            switch products.durationUnit {
            case .interval: duration = "\(column)::interval"
            case .days: duration = "make_interval(days => \(column))"
            case .hours: duration = "make_interval(hours => \(column))"
            case .months: duration = "make_interval(months => \(column))"
            }
        } else {
            duration = "NULL::interval"
        }
        return """
            -- What the job reads of the app's products; a kind the mapping does not state reads as NULL.
            CREATE OR REPLACE VIEW \(inSchema(mapping, "products")) AS
            SELECT p.\(quoted(products.productID))::text AS product_id,
                   \(kindExpression(products)) AS kind,
                   p.\(quoted(products.entitlement))::text AS entitlement,
                   \(duration) AS duration
            FROM \(quoted(products.table)) AS p;
            """
    }

    static func receiptKeys(_ mapping: SchemaMapping) -> String {
        let receipts = mapping.receipts
        let keys = inSchema(mapping, "receipt_keys")
        let function = inSchema(mapping, "receipt_keys_add")
        let order = receipts.createdAt.map { "\(quoted($0)), \(quoted(receipts.id))" } ?? quoted(receipts.id)
        return """
            -- The contract's receipts.id is a bigint: each \(receipts.idType.rawValue) key gets one here, once, and keeps it
            -- (the job's state refers to it). Keys are never deleted, so an id is never reused.
            CREATE TABLE IF NOT EXISTS \(keys) (
                id  bigserial PRIMARY KEY,
                key \(receipts.idType.rawValue) NOT NULL UNIQUE
            );
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
            BEGIN
                INSERT INTO \(keys) (key) VALUES (NEW.\(quoted(receipts.id))) ON CONFLICT (key) DO NOTHING;
                RETURN NULL;
            END
            $$;
            DROP TRIGGER IF EXISTS \(quoted(mapping.schema + "_receipt_keys")) ON \(quoted(receipts.table));
            CREATE TRIGGER \(quoted(mapping.schema + "_receipt_keys")) AFTER INSERT OR UPDATE OF \(quoted(receipts.id))
                ON \(quoted(receipts.table)) FOR EACH ROW EXECUTE FUNCTION \(function)();
            -- The receipts there today, oldest first.
            INSERT INTO \(keys) (key)
            SELECT \(quoted(receipts.id)) FROM \(quoted(receipts.table)) ORDER BY \(order)
            ON CONFLICT (key) DO NOTHING;
            """
    }

    static func receiptsView(_ mapping: SchemaMapping) -> String {
        let receipts = mapping.receipts
        let id = receipts.idType.needsKeyTable ? "k.id" : "r.\(quoted(receipts.id))::bigint"
        let join =
            receipts.idType.needsKeyTable
            ? "\nJOIN \(inSchema(mapping, "receipt_keys")) AS k ON k.key = r.\(quoted(receipts.id))" : ""
        return """
            CREATE OR REPLACE VIEW \(inSchema(mapping, "receipts")) AS
            SELECT \(id) AS id,
                   \(userIDText("r." + quoted(receipts.userID), receipts.userIDType)) AS user_id,
                   r.\(quoted(receipts.receiptData))::text AS receipt_data,
                   \(receipts.createdAt.map { "r.\(quoted($0))" } ?? "NULL::timestamptz") AS created_at
            FROM \(quoted(receipts.table)) AS r\(join);
            """
    }

    static func testersView(_ mapping: SchemaMapping) -> String {
        guard let testers = mapping.sandboxTesters else {
            return """
                -- The app has no App Review or TestFlight accounts to exempt.
                CREATE OR REPLACE VIEW \(inSchema(mapping, "sandbox_testers")) AS
                SELECT NULL::text AS user_id, NULL::text AS note WHERE false;
                """
        }
        return """
            CREATE OR REPLACE VIEW \(inSchema(mapping, "sandbox_testers")) AS
            SELECT \(userIDText("t." + quoted(testers.userID), testers.userIDType)) AS user_id,
                   \(testers.note.map { "t.\(quoted($0))::text" } ?? "NULL::text") AS note
            FROM \(quoted(testers.table)) AS t;
            """
    }

    // MARK: - 3. grants

    static func grants(_ mapping: SchemaMapping) -> String {
        let role = quoted(mapping.jobRole)
        var lines = [
            "-- 3. As \(mapping.owner), after 'receipt-recon migrate': what the nightly role needs, no more.",
            "GRANT USAGE ON SCHEMA \(quoted(mapping.schema)) TO \(role);",
        ]
        // One GRANT per set of privileges, in the order the sets first appear.
        var sets: [(privileges: [String], tables: [String])] = []
        for (table, privileges) in JobPrivileges.tables {
            if let index = sets.firstIndex(where: { $0.privileges == privileges }) {
                sets[index].tables.append(table)
            } else {
                sets.append((privileges, [table]))
            }
        }
        for set in sets {
            lines.append(
                "GRANT \(set.privileges.joined(separator: ", ")) ON "
                    + set.tables.map { inSchema(mapping, $0) }.joined(separator: ", ") + " TO \(role);")
        }
        lines.append(
            "GRANT USAGE ON SEQUENCE "
                + JobPrivileges.sequences.map { inSchema(mapping, $0) }.joined(separator: ", ") + " TO \(role);")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
