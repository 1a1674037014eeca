import AppStoreReceipts

extension ReceiptOutcomeRule {
    /// A verified StoreKit 2 row that names no app or no App Store environment is never taken as the
    /// database's own: Apple's `SignedDataVerifier` refuses it (`verify_and_decode_signed_transaction`
    /// and `verify_and_decode_app_transaction`: a `bundleId` other than the app's, a missing one
    /// included, is `INVALID_APP_IDENTIFIER`; for every kind, an `environment` other than the one
    /// configured, a missing one included, is `INVALID_ENVIRONMENT`).
    ///
    /// - no `bundleId` (a transaction, app transaction or notification; renewal info has none, and Apple
    ///   checks none), when `APPLE_BUNDLE_IDS` is set: `invalid`, `bundle_mismatch`, as for another app's;
    /// - no `environment` (or one that is neither Production nor Sandbox), for the row or a transaction
    ///   it carries: `invalid`, `invalid_receipt`: Apple signs the environment into all it signs, so such
    ///   data is not Apple's as it stands, and nothing tells which environment it would be misrouted from.
    ///
    /// - Returns: nil when the row names both.
    static func signedIdentityRefusal(
        _ evidence: SignedEvidence, context: ReceiptOutcomeContext, format: String
    ) -> ReceiptClassification? {
        if evidence.bundleID == nil, evidence.format != .renewalInfo, !context.acceptedBundleIDs.isEmpty {
            return ReceiptClassification(
                outcome: .invalid, outcomeFlag: .bundleMismatch,
                detail:
                    "\(format) names no bundle id (APPLE_BUNDLE_IDS: \(context.acceptedBundleIDs.sorted().joined(separator: ", "))): Apple's verifier refuses it"
            )
        }
        let named = evidence.environment?.appStoreEnvironment != nil
        if !named || evidence.purchases.contains(where: { $0.environment == nil }) {
            return ReceiptClassification(
                outcome: .invalid, outcomeFlag: .invalidReceipt,
                detail:
                    "\(format) rejected: \(named ? "a transaction it carries" : "it") names no App Store environment (Production or Sandbox): Apple's verifier refuses it"
            )
        }
        return nil
    }
}
