import Foundation

extension LocalReceipt {
    /// The JSON object `receipt-recon inspect` prints (CONTRACT §3): keys in the contract's
    /// order, dates as `YYYY-MM-DDTHH:MM:SSZ` UTC (`.SSS` only when there are milliseconds),
    /// absent values as `null`, `quantity` a number, flags booleans, ids strings. In-app entries
    /// appear in stored order. Deterministic: the same receipt always prints the same bytes.
    ///
    /// - Parameter pretty: two-space indentation, one key per line; otherwise one line.
    public func inspectJSON(pretty: Bool = true) -> String {
        var output = ""
        LocalReceiptJSON.write(inspectObject, pretty: pretty, indent: 0, into: &output)
        return output
    }

    private var inspectObject: LocalReceiptJSON {
        .object([
            ("format", .string(format.rawValue)),
            ("bundle_id", .optionalString(bundleID)),
            ("environment", .optionalString(environment)),
            ("application_version", .optionalString(applicationVersion)),
            ("original_application_version", .optionalString(originalApplicationVersion)),
            ("creation_date", .date(creationDate)),
            ("in_app", .array(inApp.map(\.inspectObject))),
        ])
    }
}

extension LocalReceipt.InAppPurchase {
    fileprivate var inspectObject: LocalReceiptJSON {
        .object([
            ("product_id", .optionalString(productID)),
            ("transaction_id", .optionalString(transactionID)),
            ("original_transaction_id", .optionalString(originalTransactionID)),
            ("purchase_date", .date(purchaseDate)),
            ("original_purchase_date", .date(originalPurchaseDate)),
            ("expires_date", .date(expiresDate)),
            ("cancellation_date", .date(cancellationDate)),
            ("quantity", quantity.map { .number($0) } ?? .null),
            ("web_order_line_item_id", .optionalString(webOrderLineItemID)),
            ("is_trial_period", isTrialPeriod.map { .boolean($0) } ?? .null),
            ("is_in_intro_offer_period", isInIntroOfferPeriod.map { .boolean($0) } ?? .null),
        ])
    }
}

/// The few JSON shapes `inspect` needs, written by hand so key order is exactly as listed.
private indirect enum LocalReceiptJSON {
    case null
    case boolean(Bool)
    case number(Int)
    case string(String)
    case array([LocalReceiptJSON])
    case object([(String, LocalReceiptJSON)])

    static func optionalString(_ value: String?) -> LocalReceiptJSON {
        value.map { .string($0) } ?? .null
    }

    static func date(_ value: Date?) -> LocalReceiptJSON {
        value.map { .string(LocalReceiptTimestamp.format($0)) } ?? .null
    }

    static func write(_ value: LocalReceiptJSON, pretty: Bool, indent: Int, into output: inout String) {
        switch value {
        case .null:
            output += "null"
        case .boolean(let flag):
            output += flag ? "true" : "false"
        case .number(let number):
            output += String(number)
        case .string(let text):
            writeString(text, into: &output)
        case .array(let elements):
            writeContainer(elements, open: "[", close: "]", pretty: pretty, indent: indent, into: &output) {
                write($0, pretty: pretty, indent: indent + 1, into: &$1)
            }
        case .object(let members):
            writeContainer(members, open: "{", close: "}", pretty: pretty, indent: indent, into: &output) {
                writeString($0.0, into: &$1)
                $1 += pretty ? ": " : ":"
                write($0.1, pretty: pretty, indent: indent + 1, into: &$1)
            }
        }
    }

    private static func writeContainer<Element>(
        _ elements: [Element], open: String, close: String, pretty: Bool, indent: Int,
        into output: inout String, element: (Element, inout String) -> Void
    ) {
        output += open
        guard !elements.isEmpty else {
            output += close
            return
        }
        let innerIndent = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        for (index, value) in elements.enumerated() {
            if index > 0 { output += "," }
            output += innerIndent
            element(value, &output)
        }
        output += pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        output += close
    }

    /// RFC 8259 §7: quote, backslash and control characters escaped; everything else as UTF-8.
    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                // DEL and the JavaScript line separators are legal JSON but confuse terminals and
                // `eval`-style consumers; escaping them costs nothing.
                let hex = String(scalar.value, radix: 16, uppercase: false)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
