import CivilTime
import Postgres

extension ProductCatalog {
    /// `products`, read once per run. Rows of a kind the job does not know are left out (they unlock
    /// nothing the rules could judge).
    static func load(from connection: PostgresConnection) throws -> ProductCatalog {
        let rows = try connection.query("SELECT product_id, kind, entitlement, duration FROM products")
        return ProductCatalog(
            try rows.compactMap { row in
                guard let kind = ProductKind(rawValue: try row.decode("kind")) else { return nil }
                let duration: CalendarDuration? = try row.decode("duration")
                return Product(
                    productID: try row.decode("product_id"), kind: kind, entitlement: try row.decode("entitlement"),
                    duration: duration)
            })
    }
}
