import AppStoreReceipts

extension ServerAPIBackend {
    /// The transaction ids `row` names (a JWS's transaction and original transaction id, an app
    /// receipt's in-app ones), read locally whether or not they are believed: only to find whose row
    /// holds an order's transaction. Apple's verified answer decides everything else.
    func namedIDs(_ row: StoredReceipt) -> Set<String> {
        let purchases: [Purchase]
        var ids: Set<String> = []
        switch StoredRowKey.read(row, verifier: signedData, receiptSignatures: receiptSignatures, context: context) {
        case .ask(let question):
            purchases = question.claimed
            ids.formUnion(question.ids)
        case .decided(let answer):
            purchases = answer.receipt.purchases
        }
        return ids.union(purchases.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
    }
}
