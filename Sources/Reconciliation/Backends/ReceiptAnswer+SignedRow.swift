import AppStoreReceipts

extension ReceiptAnswer {
    /// The answer for a row holding Apple's signed data (a StoreKit 2 JWS), verified here and now, the
    /// same for both backends: no request, no cache of its own (a verified chain is cached, so a repeat
    /// costs a tenth of a millisecond). Ruled by `ReceiptOutcomeRule.classifySigned`.
    static func signedRow(_ row: StoredReceipt, verifier: SignedDataVerifier, context: ReceiptOutcomeContext)
        -> ReceiptAnswer
    {
        let verification = verifier.verify(Array(row.data.utf8))
        let evidence = SignedEvidence(verification)
        let classification = ReceiptOutcomeRule.classifySigned(verification, evidence: evidence, context: context)
        return ReceiptAnswer(
            receipt: UserReceipt(
                receiptID: row.id, classification: classification, purchases: evidence.purchases,
                renewals: evidence.renewals, source: .signedRow),
            attempts: 0, bundleID: evidence.bundleID)
    }
}
