import AppStoreReceipts
import Synchronization

/// The `AppleBackend` over Apple's `verifyReceipt`: each row is checked on its own (locally first,
/// then with Apple, identical data once per run through `ReceiptChecker`), one row at a time, and its
/// outcome is ruled by `ReceiptOutcomeRule`. A row holding Apple's signed data (a StoreKit 2 JWS) is
/// never sent: its signature is verified locally (`SignedDataVerifier`) and it is ruled by
/// `ReceiptOutcomeRule.classifySigned`.
///
/// One row at a time per user: a user's rows usually share one subscription, and the in-flight cap
/// is better spent on other users than on a second request for the same answer.
public final class VerifyReceiptBackend: AppleBackend {
    let client: VerifyReceiptClient
    let checker = ReceiptChecker()
    let context: ReceiptOutcomeContext
    let signedData: SignedDataVerifier

    /// - Parameters:
    ///   - context: the environment this database serves and the accepted bundle ids.
    ///   - signedData: verifies rows holding signed data; it checks signatures and chains only (the
    ///     bundle id and environment are the rules' to judge, from `context`).
    public init(client: VerifyReceiptClient, context: ReceiptOutcomeContext, signedData: SignedDataVerifier) {
        self.client = client
        self.context = context
        self.signedData = signedData
    }

    public func exchange(for user: UserWork) -> any AppleExchange<AppleUserAnswer> {
        VerifyReceiptUserWalk(backend: self, user: user)
    }

    /// The row's answer: Apple's verdict ruled by `ReceiptOutcomeRule`, or the local ruling for data
    /// never sent (empty, not base64, Xcode).
    /// - Throws: `ConfigurationAbort` when Apple answered 21004/21000.
    static func answer(_ check: ReceiptCheck, of row: StoredReceipt, context: ReceiptOutcomeContext)
        throws(ConfigurationAbort) -> ReceiptAnswer?
    {
        let classification: ReceiptClassification
        if let report = check.report {
            classification = try ReceiptOutcomeRule.classify(
                ReceiptVerification(report), local: check.local, context: context)
        } else if let ruling = ReceiptOutcomeRule.localRuling(check.local) {
            classification = ruling
        } else {
            return nil
        }
        var receipt = UserReceipt(receiptID: row.id, classification: classification, response: check.report?.response)
        if receipt.purchases.isEmpty, classification.outcome == .invalid || classification.outcome == .unverified {
            receipt.purchases = check.claimed ?? claimedPurchases(row.data)
        }
        return ReceiptAnswer(
            receipt: receipt, attempts: check.report?.requests ?? 0,
            bundleID: check.report?.response?.receipt?.bundleID ?? check.localBundleID)
    }

    /// What a receipt Apple gave no purchases for claims, decoded locally: never counted, but it names the
    /// entitlements the row was about, so a revoke says `invalid_receipt` rather than `no_purchase` (as
    /// under the App Store Server API, where the receipt is decoded to be asked about).
    static func claimedPurchases(_ data: String) -> [Purchase] {
        (try? LocalReceiptDecoder.decode(base64: data))?.claimedPurchases ?? []
    }
}
