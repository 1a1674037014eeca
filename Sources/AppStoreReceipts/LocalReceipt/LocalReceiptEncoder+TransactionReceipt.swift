import Foundation

extension LocalReceiptEncoder {
    /// The plist text of an iOS 6 transaction receipt for the first in-app purchase of
    /// `receipt` (an empty purchase when there is none), laid out as devices stored it.
    ///
    /// `environment` is written unless it is nil or `Production`: Apple's production receipts
    /// are believed to omit the key. The signature is a placeholder.
    public static func transactionReceipt(_ receipt: LocalReceipt) -> [UInt8] {
        let purchase = receipt.inApp.first ?? LocalReceipt.InAppPurchase()
        var info: [(String, String?)] = [
            ("original-transaction-id", purchase.originalTransactionID),
            ("bvrs", receipt.applicationVersion),
            ("transaction-id", purchase.transactionID),
            ("quantity", purchase.quantity.map { String($0) }),
            ("product-id", purchase.productID),
            ("bid", receipt.bundleID),
            ("app-item-id", receipt.appItemID.map { String($0) }),
            ("web-order-line-item-id", purchase.webOrderLineItemID),
            ("is-trial-period", purchase.isTrialPeriod.map { $0 ? "true" : "false" }),
            ("is-in-intro-offer-period", purchase.isInIntroOfferPeriod.map { $0 ? "true" : "false" }),
        ]
        func addDate(_ key: String, millisecondsKey: String, _ date: Date?) {
            guard let date else { return }
            info.append((millisecondsKey, String(LocalReceiptTimestamp.milliseconds(date))))
            info.append((key, LocalReceiptTimestamp.formatTransactionReceipt(date)))
        }
        addDate("purchase-date", millisecondsKey: "purchase-date-ms", purchase.purchaseDate)
        addDate("original-purchase-date", millisecondsKey: "original-purchase-date-ms", purchase.originalPurchaseDate)
        // Subscriptions: "expires-date" is milliseconds, the text form is "-formatted".
        addDate("expires-date-formatted", millisecondsKey: "expires-date", purchase.expiresDate)
        addDate("cancellation-date", millisecondsKey: "cancellation-date-ms", purchase.cancellationDate)

        var outer: [(String, String?)] = [
            ("signature", LocalReceiptBase64.encode([0x02] + [UInt8](repeating: 0, count: 128))),
            ("purchase-info", LocalReceiptBase64.encode(plist(info))),
        ]
        if let environment = receipt.environment, environment != "Production" {
            outer.append(("environment", environment))
        }
        outer.append(("pod", "100"))
        outer.append(("signing-status", "0"))
        return plist(outer)
    }

    /// `{\n\t"key" = "value";\n…}`; nil values are left out.
    private static func plist(_ entries: [(String, String?)]) -> [UInt8] {
        var text = "{\n"
        for (key, value) in entries {
            guard let value else { continue }
            text += "\t" + quoted(key) + " = " + quoted(value) + ";\n"
        }
        text += "}"
        return Array(text.utf8)
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
