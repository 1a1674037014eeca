import Reconciliation
import Testing

/// CONTRACT §4 vocabularies: the strings written to the database are part of the contract.
@Suite("Vocabularies (CONTRACT §4)")
struct VocabularyTests {
    @Test func outcomes() {
        #expect(ReceiptOutcome.allCases.map(\.rawValue) == ["valid", "misrouted", "invalid", "unverified"])
    }

    @Test func flagKinds() {
        #expect(
            Set(FlagKind.allCases.map(\.rawValue)) == [
                "invalid_receipt", "sandbox_in_production", "production_in_sandbox", "bundle_mismatch",
                "shared_transaction", "refunded", "family_revoked", "unknown_product", "unverified",
                "entitlement_without_receipt",
            ])
    }

    @Test func actions() {
        #expect(CorrectionAction.allCases.map(\.rawValue) == ["grant", "revoke", "extend", "shorten"])
    }

    @Test func reasons() {
        #expect(
            Set(CorrectionReason.allCases.map(\.rawValue)) == [
                "purchase_not_granted", "renewal", "grace_period", "expired", "refund", "family_revoke",
                "refund_reversed", "invalid_receipt", "wrong_environment", "bundle_mismatch", "no_purchase", "reverted",
            ])
    }

    @Test func productKindsAndPolicies() {
        #expect(
            Set(ProductKind.allCases.map(\.rawValue)) == [
                "consumable", "non_consumable", "auto_renewable", "non_renewing",
            ])
        #expect(SandboxPolicy.allCases.map(\.rawValue) == ["revoke", "flag"])
    }

    /// `recon_transactions.source` (CONTRACT §9, "Finance").
    @Test func transactionSources() {
        #expect(TransactionSource.allCases.map(\.rawValue) == ["verify_receipt", "server_api", "signed_row"])
    }
}
