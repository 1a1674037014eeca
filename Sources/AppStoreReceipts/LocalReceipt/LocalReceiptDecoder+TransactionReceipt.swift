import Foundation

/// iOS 6 transaction receipts: `{ "signature" = …; "purchase-info" = <base64 plist>;
/// "environment" = "Sandbox"; … }` (research/verifyreceipt.md §3.5).
extension LocalReceiptDecoder {
    static func decodeTransactionReceipt(_ bytes: [UInt8]) throws(ReceiptDecodingError) -> LocalReceipt {
        let outer = try LocalReceiptPlistParser.parse(bytes)
        guard let purchaseInfoValue = outer["purchase-info"] else {
            throw .missingTransactionReceiptField("purchase-info")
        }
        guard let purchaseInfoText = purchaseInfoValue.string,
            let purchaseInfoBytes = try? LocalReceiptBase64.decode(purchaseInfoText.utf8)
        else { throw .invalidTransactionReceiptField("purchase-info", expected: "base64 text") }
        let info: [String: LocalReceiptPlistValue]
        do {
            info = try LocalReceiptPlistParser.parse(purchaseInfoBytes)
        } catch {
            if case .malformedTransactionReceipt(let offset, let problem) = error {
                throw .malformedTransactionReceipt(offset: offset, problem: problem + " (inside purchase-info)")
            }
            throw error
        }
        let fields = TransactionReceiptFields(dictionary: info)

        let environment: String?
        switch outer["environment"] {
        case nil:
            // Sandbox receipts carry "environment" = "Sandbox"; production ones are believed to
            // omit the key (research §3.5, unverified), so absence is read as production.
            environment = "Production"
        case .string(let value)?:
            environment = value
        case .dictionary?:
            throw .invalidTransactionReceiptField("environment", expected: "a string")
        }

        let purchase = LocalReceipt.InAppPurchase(
            quantity: try fields.integer("quantity").map { Int($0) },
            productID: try fields.string("product-id"),
            transactionID: try fields.string("transaction-id"),
            purchaseDate: try fields.date(milliseconds: "purchase-date-ms", text: "purchase-date"),
            originalTransactionID: try fields.string("original-transaction-id"),
            originalPurchaseDate: try fields.date(
                milliseconds: "original-purchase-date-ms", text: "original-purchase-date"
            ),
            // "expires-date" holds milliseconds here, unlike in app receipt responses.
            expiresDate: try fields.date(milliseconds: "expires-date", text: "expires-date-formatted"),
            webOrderLineItemID: try fields.string("web-order-line-item-id"),
            cancellationDate: try fields.date(milliseconds: "cancellation-date-ms", text: "cancellation-date"),
            isTrialPeriod: try fields.boolean("is-trial-period"),
            isInIntroOfferPeriod: try fields.boolean("is-in-intro-offer-period")
        )
        return LocalReceipt(
            format: .transactionReceipt,
            environment: environment,
            appItemID: try fields.integer("app-item-id"),
            bundleID: try fields.string("bid"),
            applicationVersion: try fields.string("bvrs"),
            inApp: [purchase]
        )
    }
}

/// Typed reads of the `purchase-info` dictionary, where every value is a string.
private struct TransactionReceiptFields {
    let dictionary: [String: LocalReceiptPlistValue]

    /// The value of `key`; empty reads as absent.
    func string(_ key: String) throws(ReceiptDecodingError) -> String? {
        switch dictionary[key] {
        case nil: return nil
        case .string(let value)?: return value.isEmpty ? nil : value
        case .dictionary?: throw .invalidTransactionReceiptField(key, expected: "a string")
        }
    }

    func integer(_ key: String) throws(ReceiptDecodingError) -> Int64? {
        guard let text = try string(key) else { return nil }
        // Int64.init refuses overflow itself; a length guard here once rejected "-" + 19 digits.
        guard let value = Int64(text) else {
            throw .invalidTransactionReceiptField(key, expected: "an integer")
        }
        return value
    }

    func boolean(_ key: String) throws(ReceiptDecodingError) -> Bool? {
        switch try string(key) {
        case nil: return nil
        case "true", "1": return true
        case "false", "0": return false
        default: throw .invalidTransactionReceiptField(key, expected: "true or false")
        }
    }

    /// Prefers the millisecond key; either key may hold milliseconds or a date text.
    func date(milliseconds msKey: String, text textKey: String) throws(ReceiptDecodingError) -> Date? {
        for key in [msKey, textKey] {
            guard let text = try string(key) else { continue }
            guard
                let date = LocalReceiptTimestamp.parseMilliseconds(text)
                    ?? LocalReceiptTimestamp.parse(text.utf8)
            else { throw .invalidTransactionReceiptField(key, expected: "a date") }
            return date
        }
        return nil
    }
}
