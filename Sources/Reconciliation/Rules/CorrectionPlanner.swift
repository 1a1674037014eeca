import Foundation

/// The corrections of CONTRACT §5, read as in docs/reconciliation-rules.md ("Corrections"):
/// compare one user's truth with their `entitlements` rows.
///
/// | action | when |
/// |---|---|
/// | `grant` | Apple active; row missing or inactive |
/// | `revoke` | row active; Apple not active |
/// | `extend` | both active; Apple's expiry later than the row's |
/// | `shorten` | both active; Apple's expiry earlier than the row's |
///
/// Expiries compare at millisecond precision, nil meaning never (`Expiry`). Guards, in `plan`:
/// 1. a user with any `unverified` receipt in the run gets no `revoke` and no `shorten`;
/// 2. rows whose `source` is not `app_store` are never read for corrections nor written;
/// 3. an entitlement carried by a counted row of Apple's signed data gets no `revoke` and no
///    `shorten` except for a revocation it proves, and a `grant` or `extend` from that data only when it
///    was signed after the row was last written (`signedDataGuard`);
/// 4. an entitlement named by a permanently `unverified` row, or with a subscription whose lapse Apple's
///    state at `as_of` cannot confirm, gets no `revoke` and no `shorten` (`keepsAccess`).
///
/// Reasons: `grantReason`, `extendReason`, `shortenReason`, `revokeReason`; each correction made carries
/// the facts its reason used (`Evidence.correction`).
public enum CorrectionPlanner {
    /// Plans one user's corrections, sorted by entitlement.
    ///
    /// - Parameters:
    ///   - truth: `UserTruth.compute` over the user's receipts in this run.
    ///   - rows: the user's `entitlements` rows. Rows with another `source` may be included (and
    ///     should be): their entitlement is then left alone entirely, since a grant would have
    ///     to overwrite them.
    ///   - userHasUnverifiedReceipt: whether any receipt of the user ended `unverified` in this run.
    ///   - previouslyRefundedTransactionIDs: transactions `recon_transactions` last saw with a
    ///     `cancelled_at` (for `refund_reversed`).
    public static func plan(
        truth: UserTruth,
        rows: [EntitlementRow],
        userHasUnverifiedReceipt: Bool,
        previouslyRefundedTransactionIDs: Set<String> = []
    ) -> [CorrectionRecord] {
        // Guard 2: an entitlement held by a row of another source is never read nor written.
        let foreign = Set(rows.filter { !$0.isAppStore }.map(\.entitlement))
        var appStoreRows: [String: EntitlementRow] = [:]
        for row in rows where row.isAppStore { appStoreRows[row.entitlement] = row }

        let names = Set(appStoreRows.keys).union(truth.entitlements.map(\.entitlement)).subtracting(foreign)
        var corrections: [CorrectionRecord] = []
        for name in names.sorted() {
            let entitlementTruth = truth[name] ?? EntitlementTruth(entitlement: name)
            guard
                var correction = correction(
                    truth: entitlementTruth, row: appStoreRows[name],
                    previouslyRefundedTransactionIDs: previouslyRefundedTransactionIDs)
            else { continue }
            // Guard 1: an unverified receipt may hide the purchase; never take access away then.
            if userHasUnverifiedReceipt, correction.action == .revoke || correction.action == .shorten { continue }
            guard signedDataGuard(correction, truth: entitlementTruth, row: appStoreRows[name]) else { continue }
            if keepsAccess(entitlementTruth), correction.action == .revoke || correction.action == .shorten { continue }
            correction.evidence = Evidence.correction(correction, truth: entitlementTruth, user: truth)
            corrections.append(correction)
        }
        return corrections
    }

    /// Guard 3 (CONTRACT §9, "Signed rows"): signed data proves what Apple knew at its `signedDate`. Its
    /// subscription may have renewed since and its purchase may have been refunded since; neither is known
    /// without the App Store Server API. So an entitlement it carries is taken away only for a revocation
    /// it proves (`refund`, `family_revoke`); and it grants or extends only when it was signed after the
    /// entitlement row was last written (or there is no row): evidence older than the app's own last
    /// word (a revoke after a refund the app heard of) never grants again.
    /// - Returns: whether `correction` may be made.
    public static func signedDataGuard(_ correction: CorrectionRecord, truth: EntitlementTruth, row: EntitlementRow?)
        -> Bool
    {
        switch correction.action {
        case .revoke, .shorten:
            guard truth.carriedBySignedData else { return true }
            return correction.reason == .refund || correction.reason == .familyRevoke
        case .grant, .extend:
            guard let winning = truth.winningTransaction, winning.source == .signedRow, let row else { return true }
            guard let written = row.updatedAt else { return true }
            guard let signed = winning.evidenceDate else { return false }
            return signed > written
        }
    }

    /// Guard 4: access is kept when a permanently `unverified` row names the entitlement (an account
    /// Apple no longer finds still bought it), or when a subscription lapsed within the billing-retry
    /// window and Apple's state at `as_of` is unknown (it may be in its grace period).
    public static func keepsAccess(_ truth: EntitlementTruth) -> Bool {
        truth.carriers.contains(.permanentlyUnverified) || truth.lapseUnconfirmed
    }

    /// The correction one entitlement needs, before the unverified guard; nil when the row
    /// already agrees with Apple.
    public static func correction(
        truth: EntitlementTruth,
        row: EntitlementRow?,
        previouslyRefundedTransactionIDs: Set<String> = []
    ) -> CorrectionRecord? {
        let rowActive = row?.active ?? false
        switch (truth.isActive, rowActive) {
        case (true, false):
            return make(
                .grant,
                grantReason(truth: truth, row: row, previouslyRefundedTransactionIDs: previouslyRefundedTransactionIDs),
                truth: truth, row: row)
        case (false, true):
            return make(.revoke, revokeReason(truth: truth), truth: truth, row: row)
        case (true, true):
            let apple = truth.expiry ?? .never
            let current = Expiry(row?.expiresAt)
            if apple > current { return make(.extend, extendReason(truth: truth), truth: truth, row: row) }
            if apple < current { return make(.shorten, shortenReason(truth: truth), truth: truth, row: row) }
            return nil
        case (false, false):
            return nil
        }
    }

    /// `grant`: `refund_reversed` if the job last saw the winning transaction with a
    /// `cancelled_at` and now without; `grace_period` if the expiry is a grace period's end;
    /// `renewal` if the row exists and the winning transaction was purchased at or after the
    /// row's expiry (a renewal the app missed); else `purchase_not_granted`.
    public static func grantReason(
        truth: EntitlementTruth,
        row: EntitlementRow?,
        previouslyRefundedTransactionIDs: Set<String>
    ) -> CorrectionReason {
        if let id = truth.winningTransaction?.transactionID, previouslyRefundedTransactionIDs.contains(id) {
            return .refundReversed
        }
        if truth.expiryIsGracePeriodEnd { return .gracePeriod }
        if let rowExpiry = row?.expiresAt, let purchase = truth.winningTransaction?.purchaseDate,
            Expiry(purchase) >= Expiry(rowExpiry)
        {
            return .renewal
        }
        return .purchaseNotGranted
    }

    /// `extend`: `grace_period` if the expiry is a grace period's end; else `renewal`.
    public static func extendReason(truth: EntitlementTruth) -> CorrectionReason {
        truth.expiryIsGracePeriodEnd ? .gracePeriod : .renewal
    }

    /// `shorten`: `refund` (or `family_revoke`) if a revoked transaction of the entitlement would have
    /// given access beyond the truth's expiry; else `expired`.
    public static func shortenReason(truth: EntitlementTruth) -> CorrectionReason {
        let apple = truth.expiry ?? .never
        let cut = truth.refundedTransactions.filter { revoked in revoked.accessEnd.map { $0 > apple } ?? false }
        guard !cut.isEmpty else { return .expired }
        return cut.allSatisfy(\.isFamilyRevocation) ? .familyRevoke : .refund
    }

    /// `revoke`: `refund` if the entitlement's newest transaction is refunded (`family_revoke` if its
    /// revocation ended Family Sharing); `bundle_mismatch`,
    /// `invalid_receipt` or `wrong_environment` if no counted receipt carried transactions of the
    /// entitlement and only receipts with that standing did (a mix: the first of those three
    /// that applies); `expired` if counting transactions exist but have all run out; else
    /// `no_purchase`.
    public static func revokeReason(truth: EntitlementTruth) -> CorrectionReason {
        if truth.newestTransactionIsRefunded { return truth.newestRevocationIsFamily ? .familyRevoke : .refund }
        if !truth.carriers.isEmpty, !truth.carriers.contains(.counted) {
            if truth.carriers.contains(.bundleMismatch) { return .bundleMismatch }
            if truth.carriers.contains(.invalidReceipt) { return .invalidReceipt }
            if truth.carriers.contains(.misroutedNotCounted) { return .wrongEnvironment }
        }
        if truth.hasCountingTransactions { return .expired }
        return .noPurchase
    }

    private static func make(
        _ action: CorrectionAction,
        _ reason: CorrectionReason,
        truth: EntitlementTruth,
        row: EntitlementRow?
    ) -> CorrectionRecord {
        // A revoke keeps the row's expiry, product and chain (only access changes); the others take the truth's.
        let revoke = action == .revoke
        return CorrectionRecord(
            entitlement: truth.entitlement,
            action: action,
            reason: reason,
            beforeActive: row?.active,
            beforeExpiresAt: row?.expiresAt,
            afterActive: !revoke,
            afterExpiresAt: revoke ? row?.expiresAt : truth.expiresAt,
            productID: revoke ? row?.productID : truth.productID,
            originalTransactionID: revoke ? row?.originalTransactionID : truth.originalTransactionID)
    }
}
