extension VerifyReceiptResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// A one-line summary safe for logs: status, environment and counts, never `latest_receipt`.
    public var description: String {
        var parts = ["status \(status)"]
        parts.append("environment \(rawEnvironment ?? "absent")")
        if let receipt {
            parts.append("\(receipt.format.rawValue) \(receipt.bundleID ?? "?")")
            parts.append("in_app \(receipt.inApp.count)")
        }
        if !latestReceiptInfo.isEmpty { parts.append("latest_receipt_info \(latestReceiptInfo.count)") }
        if !latestExpiredReceiptInfo.isEmpty {
            parts.append("latest_expired_receipt_info \(latestExpiredReceiptInfo.count)")
        }
        if !pendingRenewalInfo.isEmpty { parts.append("pending_renewal_info \(pendingRenewalInfo.count)") }
        if let isRetryable { parts.append("is_retryable \(isRetryable)") }
        return "VerifyReceiptResponse(" + parts.joined(separator: ", ") + ")"
    }

    /// Same as `description`: the response holds receipt data (`latest_receipt`), which must not
    /// reach logs even at debug level.
    public var debugDescription: String { description }
}
