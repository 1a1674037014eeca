import AppStoreReceipts
import Foundation

/// What the App Store Server API can be asked with for one stored row (CONTRACT §9): a transaction id
/// (a JWS's `transactionId`; an app receipt's in-app `transaction_id` or `original_transaction_id`,
/// decoded locally; an iOS 6 receipt's `transaction-id`), with the row's own environment hint and
/// bundle id; or the outcome already decided without asking.
enum StoredRowKey {
    /// `ids`: every transaction the row names (one for a JWS; each in-app purchase of a receipt, since a
    /// receipt naming a purchase Apple never made has been altered), the first asked about first.
    case ask(ids: [String], environment: AppStoreEnvironment?, bundleID: String?)
    /// Decided locally: a receipt that is provably not one, an Xcode receipt, an app receipt whose
    /// signature fails, a JWS that failed verification, an app receipt with no purchase to ask about.
    case decided(ReceiptAnswer)

    /// Reads `row`; a JWS row is verified first (`ReceiptAnswer.signedRow`), an app receipt's PKCS#7
    /// signature too (`receiptSignatures`, at the receipt's creation date).
    static func read(
        _ row: StoredReceipt, verifier: SignedDataVerifier, receiptSignatures: ReceiptSignatureVerifier,
        context: ReceiptOutcomeContext
    ) -> StoredRowKey {
        if SignedDataVerifier.looksLikeJWS(row.data.utf8) {
            let answer = ReceiptAnswer.signedRow(row, verifier: verifier, context: context)
            let id = answer.receipt.transactions.first?.transactionID
            // A JWS that failed verification is never believed, its id included; one for another app
            // (bundle_mismatch) is not worth a request.
            guard answer.receipt.outcome == .valid || answer.receipt.outcome == .misrouted, let id else {
                return .decided(answer)
            }
            return .ask(ids: [id], environment: answer.receipt.classification.environment, bundleID: answer.bundleID)
        }
        let receipt: LocalReceipt
        do {
            receipt = try LocalReceiptDecoder.decode(base64: row.data)
        } catch {
            let check: LocalReceiptCheck =
                switch error {
                case .emptyInput: .empty
                case .notBase64: .notBase64
                default: .doesNotDecode
                }
            let classification =
                ReceiptOutcomeRule.localRuling(check)
                ?? ReceiptClassification(
                    outcome: .invalid, outcomeFlag: .invalidReceipt,
                    detail: "receipt data does not decode locally, so it names no transaction to ask the App Store "
                        + "Server API about")
            return .decided(Self.answer(row, classification, bundleID: nil))
        }
        if receipt.isXcodeTestReceipt, let ruling = ReceiptOutcomeRule.localRuling(.xcodeReceipt) {
            return .decided(Self.answer(row, ruling, bundleID: receipt.bundleID))
        }
        // Apple never sees the receipt here: its signature is what says Apple issued it as it stands,
        // and a receipt that fails it names nothing worth asking about. An iOS 6 receipt has no such
        // signature (not applicable). The purchases it claims never count; they only let the revoke of
        // what it claims say `invalid_receipt`.
        if receipt.format == .appReceipt, let failure = receiptSignatures.verify(base64: row.data).failure {
            return .decided(
                Self.answer(
                    row,
                    ReceiptClassification(
                        outcome: .invalid, outcomeFlag: .invalidReceipt,
                        detail: "app receipt signature not verified locally (\(failure)), so it names no transaction "
                            + "to ask the App Store Server API about"),
                    bundleID: receipt.bundleID,
                    claimed: receipt.inApp.map {
                        VerifyReceiptTransaction(
                            productID: $0.productID, transactionID: $0.transactionID,
                            originalTransactionID: $0.originalTransactionID)
                    }))
        }
        let hint: AppStoreEnvironment? =
            switch receipt.environmentKind {
            case .production: .production
            case .sandbox: .sandbox
            case .xcode, .unrecognized: nil
            }
        var ids: [String] = []
        for purchase in receipt.inApp {
            guard let id = purchase.transactionID ?? purchase.originalTransactionID, !id.isEmpty, !ids.contains(id)
            else { continue }
            ids.append(id)
        }
        guard !ids.isEmpty else {
            return .decided(
                Self.answer(
                    row,
                    ReceiptClassification(
                        outcome: .valid, environment: hint,
                        detail: "the receipt holds no in-app purchase: nothing to ask the App Store Server API about"),
                    bundleID: receipt.bundleID))
        }
        return .ask(ids: ids, environment: hint, bundleID: receipt.bundleID)
    }

    private static func answer(
        _ row: StoredReceipt, _ classification: ReceiptClassification, bundleID: String?,
        claimed: [VerifyReceiptTransaction] = []
    ) -> ReceiptAnswer {
        ReceiptAnswer(
            receipt: UserReceipt(receiptID: row.id, classification: classification, transactions: claimed),
            attempts: 0, bundleID: bundleID)
    }
}
