/// The contract's `entitlements` table in the job's schema, and the two triggers that copy every write
/// across: the job's to the app's table, the app's to the job's. The job writes with `INSERT … ON
/// CONFLICT (user_id, entitlement)`, which needs a unique key a view that converts the user id cannot
/// have; so the job keeps a table of its own and the app keeps reading and writing its own.
struct EntitlementsSync {
    let mapping: SchemaMapping

    var app: SchemaMapping.Entitlements { mapping.entitlements }

    /// The contract's columns and, for each the app has, the app's column: (contract, app).
    var pairs: [(contract: String, app: String)] {
        var pairs = [("user_id", app.userID), ("entitlement", app.entitlement), ("active", app.active)]
        let optional: [(String, String?)] = [
            ("expires_at", app.expiresAt), ("product_id", app.productID),
            ("original_transaction_id", app.originalTransactionID), ("source", app.source),
            ("updated_at", app.updatedAt),
        ]
        for (contract, column) in optional { if let column { pairs.append((contract, column)) } }
        return pairs
    }

    /// The app's value of `contract`'s column for the job's row `NEW`.
    func toApp(_ contract: String) -> String {
        switch contract {
        case "user_id": return MappingSQL.userIDApp("NEW.user_id", app.userIDType)
        case "source":
            return "CASE NEW.source WHEN 'app_store' THEN \(MappingSQL.literal(app.sourceAppStore)) ELSE NEW.source END"
        default: return "NEW.\(contract)"
        }
    }

    /// The contract's value of `contract` from the app's row `row` (`NEW`, or the table's alias).
    func toContract(_ contract: String, _ row: String) -> String {
        guard let column = pairs.first(where: { $0.contract == contract })?.app else {
            switch contract {
            case "source": return "'app_store'"  // no source column: every row is the App Store's
            case "updated_at": return "now()"
            default: return "NULL"
            }
        }
        let value = "\(row).\(MappingSQL.quoted(column))"
        switch contract {
        case "user_id": return MappingSQL.userIDText(value, app.userIDType)
        case "source":
            // A NULL source is nobody's grant the job may change: '' keeps the row out of its reach.
            return "CASE \(value) WHEN \(MappingSQL.literal(app.sourceAppStore)) THEN 'app_store' "
                + "ELSE coalesce(\(value)::text, '') END"
        default: return value
        }
    }

    static let contractColumns = [
        "user_id", "entitlement", "active", "expires_at", "product_id", "original_transaction_id", "source",
        "updated_at",
    ]

    var sql: String {
        let q: (String) -> String = MappingSQL.quoted
        let schema = mapping.schema
        let table = MappingSQL.inSchema(mapping, "entitlements")
        let appTable = MappingSQL.quoted(app.table)
        let toAppFunction = MappingSQL.inSchema(mapping, "entitlements_to_app")
        let fromAppFunction = MappingSQL.inSchema(mapping, "entitlements_from_app")
        // What the job may change in the app's row on a conflict: everything but the key and who granted it.
        let updatable = pairs.filter { !["user_id", "entitlement", "source"].contains($0.contract) }.map(\.app)
        let changed = updatable.filter { $0 != app.updatedAt }
        let key = "\(q(app.userID)), \(q(app.entitlement))"
        let contractList = Self.contractColumns.joined(separator: ", ")
        let fromApp = Self.contractColumns.map { toContract($0, "NEW") }.joined(separator: ", ")
        let fromAppRows = Self.contractColumns.map { toContract($0, "a") }.joined(separator: ", ")
        return """
            -- The contract's entitlements, which the job writes; migrate finds it and keeps it. Every statement
            -- of this part replaces what it made before, so it runs again after the mapping file changes.
            CREATE TABLE IF NOT EXISTS \(table) (
                user_id                 text NOT NULL,
                entitlement             text NOT NULL,
                active                  boolean NOT NULL,
                expires_at              timestamptz,
                product_id              text,
                original_transaction_id text,
                source                  text NOT NULL DEFAULT 'app_store',
                updated_at              timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (user_id, entitlement)
            );

            -- The job writes \(schema).entitlements; this copies each write to the app's table.
            CREATE OR REPLACE FUNCTION \(toAppFunction)() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
            BEGIN
                IF pg_trigger_depth() > 1 THEN
                    RETURN NULL;  -- a copy of the app's own write (below): already there
                END IF;
                INSERT INTO \(appTable) AS a
                    (\(pairs.map { q($0.app) }.joined(separator: ", ")))
                VALUES (\(pairs.map { toApp($0.contract) }.joined(separator: ", ")))
                ON CONFLICT (\(key)) DO UPDATE
                    SET \(updatable.map { "\(q($0)) = EXCLUDED.\(q($0))" }.joined(separator: ", "))
                    WHERE (\(changed.map { "a.\(q($0))" }.joined(separator: ", ")))
                          IS DISTINCT FROM (\(changed.map { "EXCLUDED.\(q($0))" }.joined(separator: ", ")));
                RETURN NULL;
            END
            $$;
            DROP TRIGGER IF EXISTS entitlements_to_app ON \(table);
            CREATE TRIGGER entitlements_to_app AFTER INSERT OR UPDATE ON \(table)
                FOR EACH ROW EXECUTE FUNCTION \(toAppFunction)();

            -- The app writes \(app.table.name); this copies each write to \(schema).entitlements.
            CREATE OR REPLACE FUNCTION \(fromAppFunction)() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
            BEGIN
                IF pg_trigger_depth() > 1 THEN
                    RETURN NULL;  -- a copy of the job's own write (above): already there
                END IF;
                IF TG_OP IN ('UPDATE', 'DELETE') THEN
                    DELETE FROM \(table)
                    WHERE user_id = \(toContract("user_id", "OLD")) AND entitlement = OLD.\(q(app.entitlement));
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    INSERT INTO \(table) (\(contractList))
                    VALUES (\(fromApp));
                END IF;
                RETURN NULL;
            END
            $$;
            DROP TRIGGER IF EXISTS \(q(app.table.name + "_to_" + schema)) ON \(appTable);
            CREATE TRIGGER \(q(app.table.name + "_to_" + schema)) AFTER INSERT OR UPDATE OR DELETE ON \(appTable)
                FOR EACH ROW EXECUTE FUNCTION \(fromAppFunction)();

            -- What the app holds today (after the trigger, in the same transaction: no write falls between).
            INSERT INTO \(table) (\(contractList))
            SELECT \(fromAppRows)
            FROM \(appTable) AS a
            ON CONFLICT (user_id, entitlement) DO NOTHING;
            """
    }
}
