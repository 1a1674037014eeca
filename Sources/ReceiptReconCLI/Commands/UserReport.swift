import CivilTime
import Foundation
import Reconciliation

/// What `verify-user` shows support: the user's entitlements before and after, and why each changed.
enum UserReport {
    static func render(
        userID: String,
        before: [EntitlementRow],
        after: [EntitlementRow],
        corrections: [CorrectionRecord],
        unverdicted: [UnverdictedRow] = [],
        summary: RunSummary
    ) -> String {
        var lines = [
            "User \(userID): \(summary.receiptsProcessed) receipt(s) re-verified (run \(summary.runID)"
                + (summary.dryRun ? ", dry run: nothing changed" : "") + ")"
        ]
        lines.append("  outcomes: " + RunSummary.list(summary.outcomes, inVocabularyOrder: true))
        lines.append("Before:")
        lines += before.isEmpty ? ["  (no entitlements)"] : before.map { "  " + describe($0) }
        lines.append("After:")
        lines += after.isEmpty ? ["  (no entitlements)"] : after.map { "  " + describe($0) }
        if corrections.isEmpty {
            lines.append("No correction: the entitlements agree with Apple.")
        } else {
            lines.append(summary.dryRun ? "Corrections that a real run would apply:" : "Corrections applied:")
            for correction in corrections {
                lines.append(
                    "  \(correction.action) \(correction.entitlement) (reason: \(correction.reason)): "
                        + "\(state(correction.beforeActive, correction.beforeExpiresAt)) -> \(state(correction.afterActive, correction.afterExpiresAt))"
                )
            }
        }
        for row in unverdicted {
            lines.append("Receipt \(row.receiptID) unverified (\(row.kind)): \(row.detail)")
        }
        let transient = unverdicted.isEmpty ? summary.unverified : unverdicted.count { $0.kind == .transient }
        if transient > 0 {
            lines.append(
                "Note: \(transient) receipt(s) could not be verified now (Apple unavailable); no revoke or "
                    + "shorten was made for this user. Try again later.")
        }
        if unverdicted.contains(where: { $0.kind == .permanent }) {
            lines.append(
                "Note: asking Apple again will not verify the permanent one(s); the entitlements they name are "
                    + "kept, everything else is corrected.")
        }
        if unverdicted.contains(where: { $0.kind == .untrusted }) {
            lines.append(
                "Note: no signature of Apple's verified on the untrusted one(s): they keep nothing and hold back "
                    + "nothing (if they are Apple's, check APPLE_ROOT_CERTIFICATES).")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func describe(_ row: EntitlementRow) -> String {
        var text = "\(row.entitlement): \(state(row.active, row.expiresAt))"
        if let product = row.productID { text += ", product \(product)" }
        if !row.isAppStore { text += " [source \(row.source): never changed by receipt-recon]" }
        return text
    }

    static func state(_ active: Bool?, _ expires: Date?) -> String {
        guard let active else { return "none" }
        let until =
            expires.map { " until \(Instant.formatSeconds($0))" } ?? (active ? " (no expiry)" : "")
        return (active ? "active" : "inactive") + until
    }
}
