import AppStoreReceipts

/// StoreKit 2 rows under the verifyReceipt backend (CONTRACT §9): never sent to Apple, judged by their
/// signature, and believed as evidence as of their `signedDate`. (Under the Server API backend they are
/// looked up by `transactionId` like any row: `ExpectationDeriver+ServerAPI`.)
///
/// Derived from what the world knows of the row (tampered or not, the account's environment and bundle),
/// never by verifying the JWS: this is the cross-check of the job's verifier, not a second copy of it.
extension ExpectationDeriver {
    /// The outcome of a StoreKit 2 row: `invalid_receipt` when its payload was edited after signing (the
    /// signature fails), `bundle_mismatch` for another app's, `misrouted` when signed in the other
    /// environment, else `valid` with the transaction as it was at `signedMs`.
    static func signedOutcome(
        _ owner: WorldAccount,
        transactionID: String,
        signedMs: Int64,
        tampered: Bool,
        assumptions: RunAssumptions
    ) -> Outcome {
        if tampered { return .invalid(flag: "invalid_receipt") }
        if let accepted = assumptions.bundleIDs, !accepted.contains(owner.bundleID) {
            return .invalid(flag: "bundle_mismatch")
        }
        let evidence = SignedEvidence(
            view: owner.transaction(withID: transactionID)!.view(at: signedMs), signedMs: signedMs)
        return owner.environment == assumptions.environment ? .validSigned(evidence) : .misroutedSigned(evidence)
    }

    /// The entitlements counting signed rows carry without proving a refund: a run may grant or extend
    /// them up to what the rows prove, never revoke or shorten them (a renewal since `signedDate` cannot
    /// be known). A row that proves a revocation (`revocationDate`, not an upgrade) holds nothing.
    static func heldBySignedRows(_ views: [WorldTransaction.View]) -> Set<String> {
        var held = Set<String>()
        for view in views where !view.isRevoked {
            if let entitlement = WorldCatalog.tableProduct(view.transaction.productID)?.entitlement {
                held.insert(entitlement)
            }
        }
        return held
    }
}

extension ExpectationDeriver.Outcome {
    /// Valid, but only in the other environment.
    var isMisrouted: Bool {
        switch self {
        case .misrouted, .misroutedSigned: true
        case .valid, .validSigned, .invalid, .unverified: false
        }
    }
}
