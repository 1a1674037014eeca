import AppStoreReceipts
import CivilTime
import Foundation

/// What `verify-user --order-id` tells support about the order before any user's report: Apple's
/// verdict on the order id, its transactions (id, original id, product, purchase date, environment),
/// whom the stored rows name. Enough to answer the customer even when no stored row holds the order.
struct OrderLookupReport {
    enum Lookup: String, Encodable {
        case valid, invalid
    }

    var orderID: String
    var lookup: Lookup
    var environment: AppStoreEnvironment?
    var transactions: [SignedTransaction] = []
    /// The users whose stored rows hold the order's transactions, in user id order.
    var users: [String] = []
    /// Users the records named whose rows are gone: not verified.
    var vanished: [String] = []
    /// Each user's `verify-user --json` object, in `users` order.
    var reports: [String] = []

    var text: String {
        guard lookup == .valid else {
            return "Order \(orderID): Apple's Look Up Order ID says the order id is invalid for this app.\n"
        }
        var lines = [
            "Order \(orderID): \(transactions.count) transaction(s) in Apple's \(environment?.rawValue ?? "?") "
                + "answer (Look Up Order ID):"
        ]
        for transaction in transactions {
            let item = Item(transaction)
            lines.append(
                "  transaction \(item.transactionId ?? "?")  original \(item.originalTransactionId ?? "?")  "
                    + "product \(item.productId ?? "?")  purchased \(item.purchaseDate ?? "?")  "
                    + (item.environment ?? "?"))
        }
        lines.append(
            users.isEmpty
                ? "No stored row holds these transactions."
                : "Held by \(users.count) user(s): \(users.joined(separator: ", ")); each is verified below.")
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// `{"orderId", "lookup": "valid"|"invalid", "environment", "transactions": [...], "users": [...],
    /// "usersWithoutRows": [...], "reports": [each user's verify-user --json object]}`.
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let head = Head(
            orderId: orderID, lookup: lookup, environment: environment?.rawValue,
            transactions: transactions.map(Item.init),
            users: users, usersWithoutRows: vanished)
        let encoded = (try? encoder.encode(head)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        // The reports are already JSON: spliced in as they are, so each is verify-user's object unchanged.
        return String(encoded.dropLast()) + ",\"reports\":[" + reports.joined(separator: ",") + "]}"
    }

    private struct Head: Encodable {
        let orderId: String
        let lookup: Lookup
        let environment: String?
        let transactions: [Item]
        let users: [String]
        let usersWithoutRows: [String]
    }

    /// One of Apple's transactions as support reads it.
    struct Item: Encodable, Equatable {
        let transactionId: String?
        let originalTransactionId: String?
        let productId: String?
        let purchaseDate: String?
        let environment: String?

        init(_ transaction: SignedTransaction) {
            transactionId = transaction.transactionID
            originalTransactionId = transaction.originalTransactionID
            productId = transaction.productID
            purchaseDate = transaction.purchaseDate.map { Instant.formatSeconds($0) }
            environment = transaction.environment?.rawValue
        }
    }
}
