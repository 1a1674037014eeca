import Foundation
import Reconciliation

/// What `verify-user` shows support: the user's entitlements before and after, and why each changed.
enum UserReport {
    static func render(
        userID: String,
        before: [EntitlementRow],
        after: [EntitlementRow],
        corrections: [CorrectionRecord],
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
        if summary.unverified > 0 {
            lines.append(
                "Note: \(summary.unverified) receipt(s) could not be verified now (Apple unavailable); no revoke or "
                    + "shorten was made for this user. Try again later.")
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
            expires.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? (active ? " (no expiry)" : "")
        return (active ? "active" : "inactive") + until
    }
}
