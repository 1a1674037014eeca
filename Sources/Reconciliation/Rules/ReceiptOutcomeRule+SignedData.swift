import AppStoreReceipts
import CivilTime
import Foundation

extension ReceiptOutcomeRule {
    /// The outcome of a row holding Apple's signed data, which is never sent to verifyReceipt
    /// (CONTRACT §9, docs/reconciliation-rules.md "Signed data rows"): the same outcomes and flags
    /// as a receipt, decided by the signature instead of Apple's status.
    ///
    /// - a chain that fails only at its root (signed by a chain no configured root issued): `unverified`,
    ///   `untrusted` (asking again cannot change it; anyone can make such a chain, so it proves nothing:
    ///   it keeps nothing and holds back nothing, CONTRACT §5);
    /// - signature, chain or format fails otherwise (a forged or altered JWS, Xcode data): `invalid`,
    ///   `invalid_receipt`;
    /// - valid, no bundle id or no environment: refused as Apple refuses it (`signedIdentityRefusal`);
    /// - valid, bundle id not accepted: `invalid`, `bundle_mismatch` (`bundleIDRule`);
    /// - valid, signed for the other environment: `misrouted`, `sandbox_in_production` or
    ///   `production_in_sandbox`;
    /// - else `valid`. Its `detail` says the evidence is as of `signedDate`.
    public static func classifySigned(
        _ verification: SignedDataVerification, evidence: SignedEvidence, context: ReceiptOutcomeContext
    ) -> ReceiptClassification {
        let format = evidence.format.map { "\($0)" } ?? "signed data"
        if case .untrustedRoot(let roots) = verification.failure {
            let failure = SignedDataFailure.untrustedRoot(roots)
            return .unverified(.untrusted, detail: "\(format) not verified: \(failure)")
        }
        if let failure = verification.failure {
            return ReceiptClassification(
                outcome: .invalid, outcomeFlag: .invalidReceipt, detail: "\(format) rejected: \(failure)")
        }
        if let refusal = signedIdentityRefusal(evidence, context: context, format: format) { return refusal }
        // Named: `signedIdentityRefusal` refused a row that names none.
        let environment = evidence.environment?.appStoreEnvironment ?? context.servedEnvironment
        let signed =
            evidence.signedDate.map {
                "signed " + CivilDateTime(unixSeconds: Int64($0.timeIntervalSince1970.rounded(.down))).iso8601
            } ?? "no signedDate"
        return vouched(
            bundleID: evidence.bundleID, misrouted: environment == context.servedEnvironment.other,
            environment: environment, context: context,
            misroutedDetail: {
                "\(format) signed for \(environment) (\(signed)); this database serves \(context.servedEnvironment)"
            },
            validDetail: {
                "\(format) verified locally (\(signed)); renewals and refunds since then need the App Store Server API"
            })
    }

    /// The flag of a receipt valid only in the other environment than the database's.
    static func misroutedFlag(served: AppStoreEnvironment) -> FlagKind {
        served == .production ? .sandboxInProduction : .productionInSandbox
    }
}
