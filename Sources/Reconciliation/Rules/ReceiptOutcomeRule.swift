import AppStoreReceipts

/// The receipt outcome rules of CONTRACT §4/§5, as read in docs/reconciliation-rules.md
/// ("Receipt outcomes"): one outcome per receipt per run, and the flag it raises.
///
/// Two steps, because some receipts are never sent to Apple:
/// 1. `localRuling(_:)` before verification: data that is provably not a receipt, and Xcode
///    receipts, are `invalid` without asking Apple.
/// 2. `classify(_:local:context:)` after verification: Apple's verdict, the persistent-21002
///    rule, the bundle id check and the environment check.
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

    /// The outcome of a receipt Apple was asked about (or the local ruling, if there is one).
    ///
    /// - `valid` verdict (status 0 or 21006): `invalid` with `bundle_mismatch` when the answer's
    ///   bundle id is not accepted (`bundleIDRule`); else `misrouted` when only the other
    ///   environment vouches for it (`environmentRule`); else `valid`.
    /// - `invalid` verdict (21003, 21010): `invalid`, `invalid_receipt`.
    /// - 21002 that persisted: `persistentMalformedReceiptRule`, i.e. `invalid` only when local
    ///   decoding fails too, else `unverified`.
    /// - `unverified` verdict (attempts exhausted, 21100-21199 not retryable, unknown status):
    ///   `unverified`.
    ///
    /// - Throws: `ConfigurationAbort` for 21004, 21000 and configuration-like HTTP statuses: not
    ///   an outcome of the receipt; the shell aborts the run (exit 78).
    public static func classify(
        _ verification: ReceiptVerification,
        local: LocalReceiptCheck,
        context: ReceiptOutcomeContext
    ) throws(ConfigurationAbort) -> ReceiptClassification {
        if let ruling = localRuling(local) { return ruling }

        let status = verification.appleStatus
        let environment = verification.environment
        let detail = verification.detail.isEmpty ? "\(verification.verdict)" : verification.detail

        func result(_ outcome: ReceiptOutcome, _ flag: FlagKind?, _ detail: String) -> ReceiptClassification {
            ReceiptClassification(
                outcome: outcome, outcomeFlag: flag, appleStatus: status, environment: environment, detail: detail)
        }

        switch verification.verdict {
        case .valid:
            let bundleID = verification.response?.receipt?.bundleID
            if let mismatch = bundleIDRule(bundleID, accepted: context.acceptedBundleIDs) {
                return result(.invalid, .bundleMismatch, mismatch)
            }
            let statusText = status.map { "status \($0)" } ?? "valid"
            if let flag = environmentRule(verification, served: context.servedEnvironment) {
                let answeredIn = environment ?? context.servedEnvironment.other
                return result(
                    .misrouted, flag,
                    "\(statusText) from \(answeredIn); this database serves \(context.servedEnvironment)")
            }
            return result(.valid, nil, "\(statusText) from \(environment ?? context.servedEnvironment)")

        case .invalid:
            return result(.invalid, .invalidReceipt, detail)

        case .persistentMalformedReceiptData:
            return persistentMalformedReceiptRule(local: local, status: status, environment: environment)

        case .configurationError(let problem):
            throw ConfigurationAbort(problem: problem, appleStatus: status)

        case .unverified:
            return result(.unverified, .unverified, detail)

        case .reroute, .transient:
            // Not final: the client never ends on these. Should one arrive, Apple gave no
            // verdict, and no verdict must never cost anyone access.
            return result(.unverified, .unverified, "verification ended early: \(verification.verdict)")
        }
    }

    /// CONTRACT §5: "A receipt whose 21002 persists ends `invalid` only when it also fails local
    /// decoding; otherwise `unverified`." Delegates to the classifier's rule so the two cannot drift.
    public static func persistentMalformedReceiptRule(
        local: LocalReceiptCheck,
        status: Int? = VerifyReceiptStatus.malformedReceiptData.rawValue,
        environment: AppStoreEnvironment? = nil
    ) -> ReceiptClassification {
        let verdict = VerifyReceiptClassifier.persistentMalformedReceiptRule(
            localDecodingSucceeded: local.decodesLocally)
        switch verdict {
        case .invalid:
            return ReceiptClassification(
                outcome: .invalid, outcomeFlag: .invalidReceipt, appleStatus: status, environment: environment,
                detail: "\(verdict)")
        default:
            return ReceiptClassification(
                outcome: .unverified, outcomeFlag: .unverified, appleStatus: status, environment: environment,
                detail: "\(verdict)")
        }
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

    /// Environment check: a valid answer is `misrouted` when it was answered after a 21007/21008
    /// hop, or when the answer's `environment` is the other one.
    ///
    /// - Returns: `sandbox_in_production` or `production_in_sandbox` (by the environment this
    ///   database serves) when misrouted, else nil.
    public static func environmentRule(_ verification: ReceiptVerification, served: AppStoreEnvironment) -> FlagKind? {
        let other = served.other
        guard verification.answeredBy == other || verification.response?.environment == other else { return nil }
        return misroutedFlag(served: served)
    }
}
