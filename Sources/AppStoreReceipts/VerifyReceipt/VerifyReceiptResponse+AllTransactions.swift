extension VerifyReceiptResponse {
    /// Every transaction the response mentions, once per `transaction_id`.
    ///
    /// Merges, in this order of precedence, `latest_receipt_info`, `latest_expired_receipt_info`,
    /// `receipt.in_app` and the flat purchase of an iOS 6 receipt. The same transaction often
    /// appears in several of them; the copies are merged field by field (`merging(_:)`), the
    /// earlier source winning where both have a value and the later one filling gaps, so the
    /// result carries the most information Apple gave. Order: first appearance in that order;
    /// transactions without a `transaction_id` are kept, at the end.
    public var allTransactions: [VerifyReceiptTransaction] {
        var order: [String] = []
        var byID: [String: VerifyReceiptTransaction] = [:]
        var withoutID: [VerifyReceiptTransaction] = []
        let sources = [
            latestReceiptInfo,
            latestExpiredReceiptInfo,
            receipt?.inApp ?? [],
            receipt?.transaction.map { [$0] } ?? [],
        ]
        for transaction in sources.joined() {
            guard let id = transaction.transactionID, !id.isEmpty else {
                withoutID.append(transaction)
                continue
            }
            if let earlier = byID[id] {
                byID[id] = earlier.merging(transaction)
            } else {
                order.append(id)
                byID[id] = transaction
            }
        }
        return order.compactMap { byID[$0] } + withoutID
    }
}
