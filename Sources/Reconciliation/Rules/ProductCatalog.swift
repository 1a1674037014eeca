/// `products`, looked up by `product_id`: how Apple's product ids become entitlements.
public struct ProductCatalog: Hashable, Sendable {
    public private(set) var productsByID: [String: Product]

    /// When two products share an id (impossible with the primary key), the last one wins.
    public init(_ products: [Product] = []) {
        productsByID = Dictionary(products.map { ($0.productID, $0) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(productID: String?) -> Product? {
        productID.flatMap { productsByID[$0] }
    }

    /// Whether `product_id` is in `products` (`unknown_product` flags the others).
    public func contains(_ productID: String?) -> Bool {
        // Without reading the product out: a copy retains its strings, which every thread shares.
        guard let productID else { return false }
        return productsByID.index(forKey: productID) != nil
    }
}
