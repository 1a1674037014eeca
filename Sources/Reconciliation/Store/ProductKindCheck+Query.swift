import Postgres
import ReconSchema

extension ProductKindCheck {
    /// Every row of `products` with a product id: its id and kind, as text whatever their column types.
    /// A row without a product id matches no purchase, so its kind decides nothing.
    public static func rows(on connection: PostgresConnection) throws -> [Row] {
        try connection.query(
            """
            SELECT product_id::text AS product_id, kind::text AS kind FROM products
            WHERE product_id IS NOT NULL ORDER BY 1
            """
        ).map { Row(productID: try $0.decode("product_id"), kind: try $0.decode("kind")) }
    }

    /// Throws when a row of `products` has a kind the job does not know (exit 78, nothing started).
    public static func require(on connection: PostgresConnection) throws {
        if let refusal = refusal(refused(try rows(on: connection)), guide: ApplicationSchemaRule.mappingGuide) {
            throw SchemaNotReady(.applicationRows, refusal)
        }
    }
}
