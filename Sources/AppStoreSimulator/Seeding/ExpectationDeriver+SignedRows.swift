import AppStoreReceipts

/// StoreKit 2 rows (CONTRACT §9). Under the verifyReceipt backend: never sent to Apple, judged by their
/// signature, and believed as evidence as of their `signedDate`. Under the Server API backend: judged by
/// their signature, then looked up by id, so Apple's state at `asOf` decides.
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
        let view = owner.transaction(withID: transactionID)!.view(at: signedMs)
        return owner.environment == assumptions.environment ? .validSigned(view) : .misroutedSigned(view)
    }

    /// The outcome of a StoreKit 2 row under `--backend server-api`: the signature still decides first (a
    /// tampered row is `invalid_receipt` whatever the backend, its id never believed), then the run asks
    /// the Server API about its `transactionId` in the JWS's environment, and Apple answers with the
    /// account as it is at `asOf`: every transaction, renewals since `signedDate` and refunds included,
    /// with each chain's renewal state. That is what verifyReceipt shows for a receipt of the account
    /// issued at `asOf`, so the answer is taken from `AppleAnswerer` (one description of the world's facts,
    /// served by both the verifyReceipt and the Server API routes). Found only in the other environment:
    /// `misrouted`; a deleted Apple ID (4040010 in both): `invalid_receipt`; Apple failing: `unverified`.
    static func serverAPISignedOutcome(
        unit: WorldUnit,
        account: Int,
        tampered: Bool,
        answerer: AppleAnswerer,
        assumptions: RunAssumptions
    ) -> Outcome {
        if tampered { return .invalid(flag: "invalid_receipt") }
        let owner = unit.accounts[account]
        if let accepted = assumptions.bundleIDs, !accepted.contains(owner.bundleID) {
            return .invalid(flag: "bundle_mismatch")
        }
        let answer = answerer.answer(
            .app(unit: unit.index, account: account, createdMs: unit.asOfMs), unit: { _ in unit },
            endpoint: owner.environment, password: answerer.sharedSecret,
            excludeOldTransactions: assumptions.excludeOldTransactions, includeLatestReceipt: false)
        switch answer.status {
        case 0: return owner.environment == assumptions.environment ? .valid(answer) : .misrouted(answer)
        case 21010: return .invalid(flag: "invalid_receipt")
        default: return .unverified
        }
    }

    /// The entitlements counting signed rows carry without proving a refund: a run may grant or extend
    /// them up to what the rows prove, never revoke or shorten them (a renewal since `signedDate` cannot
    /// be known). A row that proves a refund (`revocationDate`, not an upgrade) holds nothing.
    static func heldBySignedRows(_ views: [WorldTransaction.View]) -> Set<String> {
        var held = Set<String>()
        for view in views where view.cancellationMs == nil || view.isUpgraded {
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
