/// The order id on the customer's App Store receipt email for a world transaction: `M` and the
/// transaction id in upper-case base 36 (`M` + 13 characters at most). Derived, not drawn: the world's
/// data, and so its reference digest, are the same with or without order ids, and an order id leads
/// back to its transaction without an index. Every purchase and every renewal is an order of its own,
/// as Apple bills and mails each.
extension WorldTransaction {
    public var orderID: String? { Self.orderID(ofTransactionID: transactionID) }

    /// The order id of transaction `id`; nil for an id that is not a 64-bit number.
    public static func orderID(ofTransactionID id: String) -> String? {
        guard let value = UInt64(id) else { return nil }
        return "M" + String(value, radix: 36, uppercase: true)
    }

    /// The transaction id an order id stands for; nil for text no world transaction's order id can be.
    public static func transactionID(ofOrderID orderID: String) -> String? {
        guard orderID.first == "M", orderID.count > 1, orderID.count <= 14 else { return nil }
        let digits = orderID.dropFirst()
        guard digits.allSatisfy({ ($0.isASCII && $0.isNumber) || ("A"..."Z").contains($0) }),
            let value = UInt64(digits, radix: 36)
        else { return nil }
        return String(value)
    }
}
