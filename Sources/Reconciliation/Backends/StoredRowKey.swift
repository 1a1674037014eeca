import AppStoreReceipts
import Foundation

/// What the App Store Server API can be asked with for one stored row (CONTRACT §9): a transaction id
/// (a JWS's `transactionId`; an app receipt's in-app `transaction_id` or `original_transaction_id`,
/// decoded locally; an iOS 6 receipt's `transaction-id`), with the row's own environment hint and
/// bundle id; or the outcome already decided without asking.
enum StoredRowKey {
    /// A row to ask Apple about.
    struct Question {
        /// Every transaction the row names (one for a JWS; each in-app purchase of a receipt, since a
        /// receipt naming a purchase Apple never made has been altered), the first asked about first.
        var ids: [String]
        var environment: AppStoreEnvironment?
        /// The row's own bundle id (one of `APPLE_BUNDLE_IDS` when those are set), or nil.
        var bundleID: String?
        /// What the row itself claims: never counted, but they name the entitlements the row is about
        /// when Apple gives no verdict (`UserReceipt.purchases`).
        var claimed: [Purchase]
        /// What vouches for the row's own content before Apple is asked: whether Apple's signature makes
        /// an id Apple cannot find a lost record rather than an absent purchase (CONTRACT §9, "What proves
        /// a purchase absent"), and whether its claims are kept when Apple gives no verdict (§5).
        var voucher: Voucher
    }

    /// Whose signature the row's content carries.
    enum Voucher: Hashable {
        /// Apple's, verified locally: an app receipt's PKCS#7 to the configured root, a JWS to the configured
        /// roots. The text names it in a detail.
        case appleSignature(String)
        /// A signature that did not verify (a JWS whose chain, root or signature failed): its claims are
        /// nobody's word, so they keep nothing.
        case failedSignature
        /// No signature to check (an iOS 6 transaction receipt): Apple's answer alone decides.
        case none
    }

    case ask(Question)
    /// Decided locally: a receipt that is provably not one, an Xcode receipt, an app receipt whose signature
    /// fails, a JWS that is not one, a row for another app, an id Apple would refuse, an app receipt with no
    /// purchase to ask about.
    case decided(ReceiptAnswer)

    /// Reads `row`. A JWS row is verified first (`ReceiptAnswer.signedRow`) but asked about whether or not
    /// it verified: Apple's verified answer decides (CONTRACT §9, "Signed rows"). An app receipt's PKCS#7
    /// signature is verified first too (`receiptSignatures`, at the receipt's creation date), and one that
    /// fails is not asked about (CONTRACT §9, "App receipts").
    static func read(
        _ row: StoredReceipt, verifier: SignedDataVerifier, receiptSignatures: ReceiptSignatureVerifier,
        context: ReceiptOutcomeContext
    ) -> StoredRowKey {
        if SignedDataVerifier.looksLikeJWS(row.data.utf8) {
            return readSigned(row, verifier: verifier, context: context)
        }
        // Decoded once for the reading and the signature check below.
        let decoded: DecodedReceiptData
        do {
            decoded = try LocalReceiptDecoder.decodeData(base64: row.data)
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
        let receipt = decoded.receipt
        let hint = receipt.claimedEnvironment
        let claimed = receipt.claimedPurchases
        if receipt.isXcodeTestReceipt, let ruling = ReceiptOutcomeRule.localRuling(.xcodeReceipt) {
            return .decided(Self.answer(row, ruling, bundleID: receipt.bundleID, claimed: claimed))
        }
        // Apple never sees the receipt here: its signature is what says Apple issued it as it stands, and
        // one that fails names nothing worth asking about (what it claims only names the entitlements the
        // row is about). An iOS 6 receipt has no such signature (not applicable).
        if receipt.format == .appReceipt, let failure = receiptSignatures.verify(decoded).failure {
            return .decided(Self.answer(row, signatureFailed(failure), bundleID: receipt.bundleID, claimed: claimed))
        }
        if let mismatch = ReceiptOutcomeRule.bundleIDRule(receipt.bundleID, accepted: context.acceptedBundleIDs) {
            return .decided(Self.answer(row, bundleMismatch(mismatch), bundleID: receipt.bundleID, claimed: claimed))
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
        if ids.contains(where: { !ServerAPIClient.isWellFormedID($0) }) {
            return .decided(Self.answer(row, craftedID(), bundleID: receipt.bundleID, claimed: claimed))
        }
        let voucher: Voucher =
            receipt.format == .appReceipt
            ? .appleSignature("its PKCS#7 signature verified to the configured root") : .none
        return .ask(
            Question(ids: ids, environment: hint, bundleID: receipt.bundleID, claimed: claimed, voucher: voucher))
    }

    /// A JWS row: asked about by its `transactionId` unless it names another app, is not signed data at
    /// all, or names an id Apple would refuse.
    private static func readSigned(_ row: StoredReceipt, verifier: SignedDataVerifier, context: ReceiptOutcomeContext)
        -> StoredRowKey
    {
        let answer = ReceiptAnswer.signedRow(row, verifier: verifier, context: context)
        let claimed = answer.receipt.purchases
        guard let id = claimed.first?.transactionID, !answer.receipt.classification.isBundleMismatch else {
            return .decided(answer)
        }
        if ReceiptOutcomeRule.bundleIDRule(answer.bundleID, accepted: context.acceptedBundleIDs) != nil {
            // Unbelieved data naming another app: nothing to ask with (a bid must be accepted).
            return .decided(answer)
        }
        guard ServerAPIClient.isWellFormedID(id) else {
            return .decided(Self.answer(row, craftedID(), bundleID: answer.bundleID, claimed: claimed))
        }
        let verified = [.valid, .misrouted].contains(answer.receipt.classification.outcome)
        return .ask(
            Question(
                ids: [id], environment: claimed.first?.environment, bundleID: answer.bundleID, claimed: claimed,
                voucher: verified ? .appleSignature("its JWS verified to the configured roots") : .failedSignature))
    }

    static func craftedID() -> ReceiptClassification {
        // The id itself is not repeated: it may be anything, of any length.
        ReceiptClassification(
            outcome: .invalid, outcomeFlag: .invalidReceipt,
            detail: "a transaction id of the row is not an App Store transaction id (decimal digits); not asked about")
    }

    static func signatureFailed(_ failure: String) -> ReceiptClassification {
        ReceiptClassification(
            outcome: .invalid, outcomeFlag: .invalidReceipt,
            detail: "app receipt signature not verified locally (\(failure)), so it names no transaction to ask the "
                + "App Store Server API about")
    }

    static func bundleMismatch(_ detail: String) -> ReceiptClassification {
        ReceiptClassification(outcome: .invalid, outcomeFlag: .bundleMismatch, detail: detail + "; not asked about")
    }

    static func answer(
        _ row: StoredReceipt, _ classification: ReceiptClassification, bundleID: String?, claimed: [Purchase] = []
    ) -> ReceiptAnswer {
        ReceiptAnswer(
            receipt: UserReceipt(receiptID: row.id, classification: classification, purchases: claimed),
            attempts: 0, bundleID: bundleID)
    }
}
