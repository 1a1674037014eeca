import AppStoreReceipts

/// The receipt outcome rules of CONTRACT §4/§5, as read in docs/reconciliation-rules.md
/// ("Receipt outcomes"): one outcome per receipt per run, and the flag it raises.
///
/// Two steps, because some receipts are never sent to Apple:
/// 1. `localRuling(_:)` before verification: data that is provably not a receipt, and Xcode
///    receipts, are `invalid` without asking Apple.
/// 2. after verification, per source: verifyReceipt's answer (`classify(_:local:context:)`), signed
///    data (`classifySigned`), the App Store Server API's histories (`classifyHistory`; what its other
///    answers prove: `ServerAPIAnswerRule`); each with the bundle id check (`bundleIDRule`) and the
///    environment's.
public enum ReceiptOutcomeRule {
    /// The outcome decided without Apple, or nil when Apple must be asked.
    ///
    /// CONTRACT §5: "the job never decides a receipt is invalid on its own guess, except for
    /// data that is provably not a receipt (empty, not base64) or an Xcode test receipt".
    public static func localRuling(_ local: LocalReceiptCheck) -> ReceiptClassification? {
        let detail: String
        switch local {
        case .empty: detail = "receipt data is empty; not sent to Apple"
        case .notBase64: detail = "receipt data is not base64; not sent to Apple"
        case .xcodeReceipt: detail = "Xcode (StoreKit testing) receipt; not sent to Apple"
        case .decodes, .doesNotDecode: return nil
        }
        return ReceiptClassification(outcome: .invalid, outcomeFlag: .invalidReceipt, detail: detail)
    }

    /// Bundle id check ("bundle id not accepted" → `invalid`, flag `bundle_mismatch`).
    ///
    /// The receipt's bundle id is the answer's `receipt.bundle_id` (`bid` for iOS 6 receipts).
    /// An empty accepted set means no check. An answer without any bundle id is not checked:
    /// the job never calls a receipt invalid on its own guess (docs/reconciliation-rules.md).
    ///
    /// - Returns: the detail line of a mismatch, or nil when the bundle id is accepted.
    public static func bundleIDRule(_ bundleID: String?, accepted: Set<String>) -> String? {
        guard !accepted.isEmpty, let bundleID, !accepted.contains(bundleID) else { return nil }
        return "bundle id \(bundleID) is not accepted (APPLE_BUNDLE_IDS: \(accepted.sorted().joined(separator: ", ")))"
    }

    /// The outcome of an answer Apple vouches for, in the order every source checks it: another app's
    /// (`bundleIDRule`) is `invalid`, `bundle_mismatch`, whatever its environment; then one for the other
    /// environment than the database's is `misrouted` (`misroutedFlag`); else `valid`. Each source words
    /// its own details.
    static func vouched(
        bundleID: String?, misrouted: Bool, environment: AppStoreEnvironment?, appleStatus: Int? = nil,
        context: ReceiptOutcomeContext, misroutedDetail: () -> String, validDetail: () -> String
    ) -> ReceiptClassification {
        func result(_ outcome: ReceiptOutcome, _ flag: FlagKind?, _ detail: String) -> ReceiptClassification {
            ReceiptClassification(
                outcome: outcome, outcomeFlag: flag, appleStatus: appleStatus, environment: environment, detail: detail)
        }
        if let mismatch = bundleIDRule(bundleID, accepted: context.acceptedBundleIDs) {
            return result(.invalid, .bundleMismatch, mismatch)
        }
        if misrouted { return result(.misrouted, misroutedFlag(served: context.servedEnvironment), misroutedDetail()) }
        return result(.valid, nil, validDetail())
    }
}
