import Postgres
import ReconSchema

extension EmptyNightCheck {
    /// Reads the figures: one probe of `receipts`, and a count of `entitlements` only when it is empty.
    public static func read(on connection: PostgresConnection) throws -> EmptyNightCheck {
        let receipts = try connection.query(
            """
            SELECT NOT EXISTS (SELECT 1 FROM receipts) AS empty,
                   (SELECT n.nspname || '.' || c.relname || CASE c.relkind WHEN 'v' THEN ', a view' WHEN 'm' THEN
                               ', a materialized view' WHEN 'f' THEN ', a foreign table' ELSE ', a table' END
                    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE c.oid = to_regclass('receipts')) AS relation
            """
        ).first!
        let empty: Bool = try receipts.decode("empty")
        let relation: String = try receipts.decode("relation") ?? "receipts"
        guard empty else {
            return EmptyNightCheck(receiptsEmpty: false, activeAppStoreEntitlements: 0, receiptsRelation: relation)
        }
        let active: Int = try connection.query(
            "SELECT count(*) AS n FROM entitlements WHERE source = 'app_store' AND active"
        ).first!.decode("n")
        return EmptyNightCheck(receiptsEmpty: true, activeAppStoreEntitlements: active, receiptsRelation: relation)
    }

    /// Throws when the night would be a night over nothing (exit 78, nothing started).
    public static func require(on connection: PostgresConnection) throws {
        if let refusal = try read(on: connection).refusal(guide: ApplicationSchemaRule.mappingGuide) {
            throw SchemaNotReady(.applicationRows, refusal)
        }
    }
}
