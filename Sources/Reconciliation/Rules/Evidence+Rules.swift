import Foundation

// Which facts each rule records: the correction's from the truth it was planned from, a receipt flag's
// from the row and its purchases. docs/reconciliation-rules.md ("Evidence") lists them.
extension Evidence {
    /// The evidence of `correction`, planned from `truth` (one entitlement of `user`).
    ///
    /// - `refund`, `family_revoke`: the revoked purchase (a revoke: the entitlement's newest; a shorten:
    ///   each revoked one that gave access beyond the new expiry, then the one that carries it now).
    /// - `expired`, `renewal`, `purchase_not_granted`: the purchase whose end is the entitlement's (the last
    ///   that gave access, for a revoke).
    /// - `grace_period`: that purchase and the grace period's end. `refund_reversed`: that purchase, and
    ///   that the job had recorded it refunded.
    /// - `invalid_receipt`, `bundle_mismatch`, `wrong_environment`: the rows that alone named the
    ///   entitlement, with Apple's answer for each.
    /// - `no_purchase`: every row Apple answered for the user, with the products it holds: none unlocks it.
    ///
    /// With purchases, the rows their answers came with are listed too (outcome, source, environment).
    public static func correction(_ correction: CorrectionRecord, truth: EntitlementTruth, user: UserTruth)
        -> Evidence
    {
        var evidence = Evidence(rule: correction.reason.rawValue, asOf: user.asOf, entitlement: correction.entitlement)
        let asOf = user.asOf
        let winning = truth.winningTransaction.map { [PurchaseFact($0, asOf: asOf)] } ?? []
        switch correction.reason {
        case .refund, .familyRevoke:
            if correction.action == .revoke {
                // The newest purchase is revoked, so it is the last of the revoked ones by purchase.
                evidence.purchases = truth.refundedTransactions.last.map { [PurchaseFact($0, asOf: asOf)] } ?? []
            } else {
                let end = truth.expiry ?? .never
                evidence.purchases =
                    truth.refundedTransactions.filter { $0.accessEnd.map { $0 > end } ?? false }
                    .map { PurchaseFact($0, asOf: asOf) } + winning
            }
        case .expired, .renewal, .purchaseNotGranted:
            evidence.purchases = winning
        case .gracePeriod:
            evidence.purchases = winning
            evidence.gracePeriodExpiresDate = truth.expiresAt
        case .refundReversed:
            evidence.purchases = winning
            evidence.previouslyRefunded = true
        case .invalidReceipt, .bundleMismatch, .wrongEnvironment:
            break
        case .noPurchase:
            evidence.receipts = user.receipts.sorted { $0.receiptID < $1.receiptID }.map {
                ReceiptFact($0, withProducts: true)
            }
            return evidence
        case .reverted:
            return evidence
        }
        if evidence.purchases.isEmpty {
            // No purchase decided it (only rows Apple did not count named the entitlement, or none of
            // its purchases had a known end): the rows that named it, with Apple's answers.
            evidence.receipts = receiptFacts(truth.carrierReceiptIDs, of: user)
        } else {
            evidence.receipts = receiptFacts(evidence.purchases.compactMap(\.receiptID), of: user)
        }
        return evidence
    }

    /// The facts of the user's rows `ids`, by id, each once.
    static func receiptFacts(_ ids: [Int64], of user: UserTruth) -> [ReceiptFact] {
        let wanted = Set(ids)
        return user.receipts.filter { wanted.contains($0.receiptID) }.sorted { $0.receiptID < $1.receiptID }
            .map { ReceiptFact($0) }
    }

    /// The evidence of a receipt flag of `kind` on `receipt`: the row with Apple's answer, and the
    /// purchases (`refunded`, `family_revoked`) or product ids (`unknown_product`) the flag names.
    static func receiptFlag(
        _ kind: FlagKind, receipt: UserReceipt, purchases: [Purchase] = [], productIDs: [String] = [], asOf: Date
    ) -> Evidence {
        var evidence = Evidence(rule: kind.rawValue, asOf: asOf)
        evidence.receipts = [ReceiptFact(receipt)]
        evidence.purchases = purchases.map { PurchaseFact($0, receiptID: receipt.receiptID, asOf: asOf) }
        evidence.productIDs = productIDs
        return evidence
    }
}

extension Evidence.PurchaseFact {
    /// A transaction as it bears on an entitlement: its end is the access it gives.
    init(_ transaction: EntitlementTransaction, asOf: Date) {
        if let purchase = transaction.purchase {
            self.init(purchase, receiptID: transaction.receiptID, asOf: asOf)
        } else {
            self.init(source: transaction.source)
            receiptID = transaction.receiptID
            transactionID = transaction.transactionID
            originalTransactionID = transaction.originalTransactionID
            purchaseDate = transaction.purchaseDate
            revocationDate = transaction.revocationDate
            isUpgraded = transaction.isUpgraded
            reportedAt = transaction.evidenceDate
        }
        productID = transaction.productID
        expiresDate = transaction.accessEnd?.date
    }
}
