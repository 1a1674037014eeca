import Foundation

/// The fields of a verifyReceipt request body the simulator reads, leniently: `exclude-old-transactions`
/// may arrive as a JSON boolean, a number or a string.
struct VerifyReceiptRequestBody {
    var receiptData: String?
    var password: String?
    var excludeOldTransactions: Bool

    /// nil when the body is not a JSON object (Apple: 21000).
    init?(json body: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        receiptData = object["receipt-data"] as? String
        password = object["password"] as? String
        switch object["exclude-old-transactions"] {
        case let flag as Bool: excludeOldTransactions = flag
        case let number as NSNumber: excludeOldTransactions = number.intValue != 0
        case let text as String: excludeOldTransactions = text == "true" || text == "1"
        default: excludeOldTransactions = false
        }
    }
}
