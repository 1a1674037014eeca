import AppStoreReceipts
import CivilTime
import Foundation

/// A correction or a flag in words support can read to a customer (`verify-user --explain`): what
/// changed, when, and the Apple fact that decided it, from the row's evidence. Instants are UTC to the
/// minute; the JSON (`--explain --json`) has them exact.
public enum EvidenceText {
    /// One correction: what happened to the entitlement and why. A row without evidence (written before
    /// it was kept) says so and gives its reason word.
    public static func correction(_ correction: UserHistory.Correction) -> String {
        let record = correction.record
        let applied = correction.applied
        var text = "\(day(correction.createdAt)), run \(correction.runID) (\(correction.runKind)"
        text += applied ? "): " : ", dry run: not applied): "
        text += "access to \(record.entitlement) " + change(record, applied: applied)
        if record.reason == .reverted {
            let run = correction.revertedRunID ?? record.evidence?.revertsRunID
            return text + (run.map { ", restored by the revert of run \($0)." } ?? ", restored by a revert.")
        }
        guard let evidence = record.evidence else {
            return text + " (reason: \(record.reason); recorded before receipt-recon kept its evidence)."
        }
        text += " because " + because(record, evidence) + "."
        if let facts = facts(evidence) { text += " " + facts }
        return text
    }

    /// One flag: what a human should look at on the receipt (or the user), and Apple's fact.
    public static func flag(_ flag: UserHistory.Flag) -> String {
        let subject = flag.receiptID.map { "Receipt \($0)" } ?? "User"
        guard let evidence = flag.evidence else { return "\(subject): \(flag.kind) (\(flag.detail))." }
        let receipt = evidence.receipts.first
        var text = "\(subject): "
        switch flag.kind {
        case .invalidReceipt:
            text += "not a valid App Store receipt: " + (receipt.map(answer) ?? flag.detail)
        case .bundleMismatch:
            text += "a receipt of another app: " + (receipt?.detail ?? flag.detail)
        case .sandboxInProduction, .productionInSandbox:
            let found = receipt?.environment.map { "\($0)" } ?? "the other environment"
            text += "Apple found it in the \(found) environment only, not the one this database serves"
        case .refunded, .familyRevoked:
            text += evidence.purchases.map { revocation($0, family: flag.kind == .familyRevoked) }
                .joined(separator: "; ")
        case .unknownProduct:
            text += "holds product(s) \(evidence.productIDs.joined(separator: ", ")) that are not in products"
        case .unverified:
            let kind = receipt?.unverified.map { "\($0)" } ?? "transient"
            text += "could not be verified (\(kind)): " + (receipt.map(answer) ?? flag.detail)
        case .sharedTransaction:
            let others = evidence.otherUsers.count
            text +=
                "original transaction \(evidence.originalTransactionID ?? "?") is also on receipts of "
                + (others == 1 ? "1 other user" : others == 0 ? "another user" : "\(others) other users")
        case .entitlementWithoutReceipt:
            let names = evidence.entitlementRows.map(\.entitlement)
            text += "active \(names.joined(separator: ", ")) without any receipt: nothing Apple said granted it"
        }
        if let asOf = evidence.asOf { text += " (judged as of \(day(asOf)))" }
        return text + "."
    }

    /// `was removed`, `was granted until …`, and the like; `would have been …` when not applied.
    static func change(_ record: CorrectionRecord, applied: Bool) -> String {
        let was = applied ? "was" : "would have been"
        let until = record.afterExpiresAt.map { " until \(day($0))" } ?? " with no expiry"
        switch (record.reason, record.action) {
        case (.reverted, _):
            let state = record.afterActive ? "active" + until : "inactive"
            return "\(was) set back to \(state)"
        case (_, .revoke): return "\(was) removed"
        case (_, .grant): return "\(was) granted" + until
        case (_, .extend):
            return "\(was) extended" + (record.afterExpiresAt.map { " to \(day($0))" } ?? " with no expiry")
        case (_, .shorten): return "\(was) shortened to end \(record.afterExpiresAt.map(day) ?? "now")"
        }
    }

    /// Why, in words, from the facts the rule used.
    static func because(_ record: CorrectionRecord, _ evidence: Evidence) -> String {
        let purchase = evidence.purchases.first
        let deciding = evidence.purchases.last
        switch record.reason {
        case .refund:
            return "Apple reports a refund of " + (purchase.map { revocation($0, family: false) } ?? "the purchase")
        case .familyRevoke:
            return "Family Sharing ended for " + (purchase.map { revocation($0, family: true) } ?? "the purchase")
                + " (the organizer stopped sharing it, or the customer left the family)"
        case .expired where record.action == .revoke:
            return "the subscription ended: Apple reports " + (deciding.map(ended) ?? "no purchase still running")
                + ", with no later renewal and no billing grace period"
        case .expired:
            return "Apple reports the access ends earlier than the app recorded: "
                + (deciding.map { named($0) + ($0.expiresDate.map { " ends on \(day($0))" } ?? "") } ?? "no purchase")
        case .renewal:
            return "Apple reports a renewal the app missed: " + (deciding.map(running) ?? "a later purchase")
        case .purchaseNotGranted:
            return "Apple reports a purchase the app had not granted: " + (deciding.map(running) ?? "a purchase")
        case .gracePeriod:
            return "Apple reports the subscription in its billing grace period until "
                + (evidence.gracePeriodExpiresDate.map(day) ?? "later") + " (Apple is still retrying the payment; "
                + (deciding.map(named) ?? "the subscription") + ")"
        case .refundReversed:
            return "Apple no longer reports the refund it reported earlier: "
                + (deciding.map(running) ?? "the purchase")
        case .invalidReceipt:
            return "the only receipts that named it are not valid App Store receipts: " + answers(evidence.receipts)
        case .bundleMismatch:
            return "the only receipts that named it belong to another app: " + answers(evidence.receipts)
        case .wrongEnvironment:
            return "its only purchases are in Apple's other environment (test purchases do not count here): "
                + answers(evidence.receipts)
        case .noPurchase:
            guard !evidence.receipts.isEmpty else { return "Apple reports no purchase that unlocks it: no receipt" }
            return "Apple reports no purchase that unlocks it: Apple answered for " + answers(evidence.receipts)
                + ", and none holds a product of \(record.entitlement)"
        case .reverted:
            return "of a revert"
        }
    }

    /// `Evidence: Apple's App Store Server API answer, signed 2026-11-28 10:00 UTC, for receipt 12; judged as of …`
    static func facts(_ evidence: Evidence) -> String? {
        var parts: [String] = []
        if let purchase = evidence.purchases.last {
            var part = source(purchase.source)
            if let reported = purchase.reportedAt {
                part += (purchase.source == .verifyReceipt ? ", answered " : ", signed ") + day(reported)
            }
            if let environment = purchase.environment { part += ", \(environment)" }
            if let receipt = purchase.receiptID { part += ", for stored receipt \(receipt)" }
            parts.append(part)
        }
        if let asOf = evidence.asOf { parts.append("judged as of \(day(asOf))") }
        return parts.isEmpty ? nil : "Evidence: " + parts.joined(separator: "; ") + "."
    }

    /// `purchase 2000000123 (product monthly), refunded on …, refund reason: …, 100% refunded`.
    static func revocation(_ purchase: Evidence.PurchaseFact, family: Bool) -> String {
        var text = named(purchase)
        guard let date = purchase.revocationDate else { return text }
        text += family ? ", revoked on \(day(date))" : ", refunded on \(day(date))"
        if !family, let reason = purchase.revocationReason { text += ", refund reason: " + refundReason(reason) }
        if !family, let share = purchase.revocationPercentage { text += ", \(share)% refunded" }
        return text
    }

    /// `purchase 2000000123 (product monthly) expired on …`.
    static func ended(_ purchase: Evidence.PurchaseFact) -> String {
        named(purchase) + (purchase.expiresDate.map { " expired on \(day($0))" } ?? " has no known end")
    }

    /// `purchase 2000000123 (product monthly), bought …, active until …`.
    static func running(_ purchase: Evidence.PurchaseFact) -> String {
        var text = named(purchase)
        if let bought = purchase.purchaseDate { text += ", bought \(day(bought))" }
        text += purchase.expiresDate.map { ", active until \(day($0))" } ?? ", with no expiry"
        return text
    }

    static func named(_ purchase: Evidence.PurchaseFact) -> String {
        "purchase \(purchase.transactionID ?? "(no id)")" + (purchase.productID.map { " (product \($0))" } ?? "")
    }

    /// Apple's `revocationReason` / `cancellation_reason`.
    static func refundReason(_ reason: Int) -> String {
        switch reason {
        case 1: "the customer reported an issue with the app"
        case 0: "another reason, such as an accidental purchase"
        default: "code \(reason)"
        }
    }

    /// `receipt 12 (Apple answered status 21003 (receipt could not be authenticated))`, joined.
    static func answers(_ receipts: [Evidence.ReceiptFact]) -> String {
        let listed = receipts.prefix(10).map { "receipt \($0.receiptID) (\(answer($0)))" }
        return listed.joined(separator: ", ") + (receipts.count > 10 ? " and \(receipts.count - 10) more" : "")
    }

    /// What Apple answered for one row, with its proof.
    static func answer(_ receipt: Evidence.ReceiptFact) -> String {
        var text = "\(receipt.outcome)"
        if let status = receipt.appleStatus, status != 0 {
            text += ", Apple's status \(VerifyReceiptStatus(rawValue: status))"
        }
        if let code = receipt.errorCode { text += ", Apple's errorCode \(code) (\(errorCodeSummary(code)))" }
        if !receipt.productIDs.isEmpty { text += ", products " + receipt.productIDs.joined(separator: ", ") }
        if let environment = receipt.environment, receipt.outcome == .misrouted { text += ", in \(environment)" }
        if let detail = receipt.detail, receipt.appleStatus == nil, receipt.errorCode == nil { text += ": " + detail }
        return text
    }

    /// The App Store Server API's error codes the outcomes rest on.
    static func errorCodeSummary(_ code: Int) -> String {
        switch code {
        case 4_000_006: "invalid transaction id"
        case 4_000_008: "invalid original transaction id"
        case 4_040_001: "Apple Account not found"
        case 4_040_003: "app not found"
        case 4_040_005: "original transaction id not found"
        case 4_040_010: "transaction id not found"
        case 4_040_019: "app transaction not found"
        default: "see Apple's App Store Server API error codes"
        }
    }

    static func source(_ source: TransactionSource) -> String {
        switch source {
        case .serverAPI: "Apple's App Store Server API answer"
        case .verifyReceipt: "Apple's verifyReceipt answer"
        case .signedRow: "Apple's signed transaction stored by the app"
        }
    }

    /// `2026-11-28 10:00 UTC`.
    public static func day(_ date: Date) -> String {
        let time = CivilDateTime(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
        return String(time.text(separator: " ").dropLast(3)) + " UTC"
    }
}
