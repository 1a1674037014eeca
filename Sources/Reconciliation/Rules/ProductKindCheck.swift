/// Whether every row of `products` has one of the contract's four kinds (CONTRACT §4), checked by
/// `migrate --check` and at the start of `run` and `verify-user`, before any request to Apple.
///
/// A table created by `migrate` refuses other kinds with a CHECK constraint, but a view over the app's
/// own table has none: it can pass the app's plan names through (`monthly`) or leave a plan its
/// `CASE` does not map as NULL. A product of no known kind unlocks nothing, so every user who bought
/// it would look unpaid and lose access: the job refuses to start instead. Pure; the rows come from
/// `products` (`Store/ProductKindCheck+Query.swift`).
public enum ProductKindCheck {
    /// One row of `products` as the check reads it.
    public struct Row: Sendable, Equatable {
        public var productID: String
        /// The value as the relation gives it; nil for NULL.
        public var kind: String?

        public init(productID: String, kind: String?) {
            self.productID = productID
            self.kind = kind
        }

        /// `com.example.monthly (kind 'monthly')`, `com.example.family (kind NULL)`.
        var described: String { "\(productID) (kind \(kind.map { "'\($0)'" } ?? "NULL"))" }
    }

    /// How many refused rows a message names before it counts the rest.
    static let named = 10

    /// The allowed kinds, as a message lists them.
    public static var allowedKinds: String { ProductKind.allCases.map(\.rawValue).joined(separator: ", ") }

    /// The rows whose kind is none of the four, NULL included, in the order given.
    public static func refused(_ rows: [Row]) -> [Row] {
        rows.filter { row in row.kind.flatMap(ProductKind.init(rawValue:)) == nil }
    }

    /// What is wrong with `refused` rows, as `migrate --check` lists it after `products.kind: `; nil
    /// when there are none.
    public static func problem(_ refused: [Row]) -> String? {
        guard !refused.isEmpty else { return nil }
        return "not one of the kinds the job knows (\(allowedKinds)) for \(count(refused.count)): "
            + names(refused)
    }

    /// One line saying why `run` or `verify-user` does not start, naming the products and the way out;
    /// nil when there are none.
    /// - Parameter guide: where the operator's documentation says how to map `products`.
    public static func refusal(_ refused: [Row], guide: String) -> String? {
        guard !refused.isEmpty else { return nil }
        return "products gives \(count(refused.count)) a kind the job does not know: \(names(refused)); "
            + "products.kind must be one of \(allowedKinds) (a product of no known kind unlocks nothing, "
            + "so its buyers would lose access): map each of your plans to one of them in products "
            + "(\(guide)), then check with 'receipt-recon migrate --check'"
    }

    static func count(_ products: Int) -> String {
        "\(products) product\(products == 1 ? "" : "s")"
    }

    static func names(_ refused: [Row]) -> String {
        let shown = refused.prefix(named).map(\.described).joined(separator: ", ")
        return refused.count > named ? "\(shown) and \(refused.count - named) more" : shown
    }
}
