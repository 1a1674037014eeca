import AppStoreReceipts

// verifyReceipt's answer as the rules read it: Apple's verdict, the persistent-21002 rule, the
// bundle id check and the environment check, from `ReceiptVerification` (no wire format).
extension ReceiptOutcomeRule {
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
            let statusText = status.map { "status \($0)" } ?? "valid"
            return vouched(
                bundleID: verification.response?.receipt?.bundleID,
                misrouted: environmentRule(verification, served: context.servedEnvironment) != nil,
                environment: environment, appleStatus: status, context: context,
                misroutedDetail: {
                    let answeredIn = environment ?? context.servedEnvironment.other
                    return "\(statusText) from \(answeredIn); this database serves \(context.servedEnvironment)"
                },
                validDetail: { "\(statusText) from \(environment ?? context.servedEnvironment)" })

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
