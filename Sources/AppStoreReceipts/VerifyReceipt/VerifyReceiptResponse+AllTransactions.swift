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
        // Called for every answer: the result is built in place, and the id table maps to
        // positions in it, so no transaction (a score of fields) is copied into a dictionary
        // and out again, nor rebuilt by `merging(_:)`.
        let inApp = receipt?.inApp ?? []
        let capacity = latestReceiptInfo.count + latestExpiredReceiptInfo.count + inApp.count + 1
        var merged: [VerifyReceiptTransaction] = []
        merged.reserveCapacity(capacity)
        var withoutID: [VerifyReceiptTransaction] = []
        var positions: [String: Int] = [:]
        positions.reserveCapacity(capacity)
        func add(_ transaction: VerifyReceiptTransaction) {
            guard let id = transaction.transactionID, !id.isEmpty else {
                withoutID.append(transaction)
                return
            }
            if let position = positions[id] {
                merged[position].fillGaps(from: transaction)
            } else {
                positions[id] = merged.count
                merged.append(transaction)
            }
        }
        latestReceiptInfo.forEach(add)
        latestExpiredReceiptInfo.forEach(add)
        inApp.forEach(add)
        if let transaction = receipt?.transaction { add(transaction) }
        return withoutID.isEmpty ? merged : merged + withoutID
    }
}
