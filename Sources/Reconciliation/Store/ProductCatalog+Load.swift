import CivilTime
import Postgres

extension ProductCatalog {
    /// `products`, read once per run. The run's start refused rows of a kind the job does not know
    /// (`ProductKindCheck`); one added since is left out here (it unlocks nothing the rules could judge).
    static func load(from connection: PostgresConnection) throws -> ProductCatalog {
        let rows = try connection.query("SELECT product_id, kind, entitlement, duration FROM products")
        return ProductCatalog(
            try rows.compactMap { row in
                let kindText: String? = try row.decode("kind")
                guard let kind = kindText.flatMap(ProductKind.init(rawValue:)) else { return nil }
                let duration: CalendarDuration? = try row.decode("duration")
                return Product(
                    productID: try row.decode("product_id"), kind: kind, entitlement: try row.decode("entitlement"),
                    duration: duration)
            })
    }
}
