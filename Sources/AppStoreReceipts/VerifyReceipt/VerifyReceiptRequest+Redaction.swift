extension VerifyReceiptRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `VerifyReceiptRequest(receipt-data: <redacted, 8836 characters>, password: <redacted>,
    /// exclude-old-transactions: true)`: the shape without the secrets.
    public var description: String {
        let password = password == nil ? "none" : "<redacted>"
        return "VerifyReceiptRequest(receipt-data: <redacted, \(receiptData.utf8.count) characters>, "
            + "password: \(password), exclude-old-transactions: \(excludeOldTransactions))"
    }

    /// Same as `description`: there is no level at which the secret may be printed.
    public var debugDescription: String { description }

    /// Redacted children, so `dump(request)` cannot print the secret either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "receiptData": "<redacted, \(receiptData.utf8.count) characters>",
                "password": password == nil ? "none" : "<redacted>",
                "excludeOldTransactions": excludeOldTransactions,
            ],
            displayStyle: .struct
        )
    }
}
