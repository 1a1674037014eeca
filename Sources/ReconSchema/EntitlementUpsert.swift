/// The job's write of granted and extended entitlements (CONTRACT §5): one statement, shared by the
/// writer that runs it and the schema check that asks PostgreSQL whether it can (`EXPLAIN`).
public enum EntitlementUpsert {
    /// The columns inserted, in order.
    public static let columns = [
        "user_id", "entitlement", "active", "expires_at", "product_id", "original_transaction_id", "source",
    ]

    /// Only `app_store` rows are ever changed: a row the app granted for another reason stays as it is.
    public static let conflictClause = """
        ON CONFLICT (user_id, entitlement) DO UPDATE SET active = true, expires_at = EXCLUDED.expires_at,
            product_id = EXCLUDED.product_id, original_transaction_id = EXCLUDED.original_transaction_id,
            updated_at = now()
        WHERE entitlements.source = 'app_store'
        """

    /// The statement with no rows, for `EXPLAIN`.
    static var probeStatement: String {
        let types = ["text", "text", "boolean", "timestamptz", "text", "text", "text"]
        return "INSERT INTO entitlements (\(columns.joined(separator: ", "))) SELECT * FROM unnest("
            + types.map { "'{}'::\($0)[]" }.joined(separator: ", ") + ") " + conflictClause
    }
}
