import Foundation
import Reconciliation

extension UserReport {
    /// `verify-user --json`: the run's summary, its keys unchanged, plus `entitlements`: each entitlement
    /// the user has before or after the run, by name, with its row `before` and `after` (`null` where
    /// there is none) and the `correction` the run recorded for it (`null` where none). In a dry run
    /// `after` is the table as the run left it, unchanged, and the correction says `applied: false`.
    static func json(
        before: [EntitlementRow], after: [EntitlementRow], corrections: [CorrectionRecord], summary: RunSummary
    ) -> String {
        summary.json(adding: Entitlements(before: before, after: after, corrections: corrections, summary: summary))
    }

    private struct Entitlements: Encodable {
        let entitlements: [Entry]

        init(before: [EntitlementRow], after: [EntitlementRow], corrections: [CorrectionRecord], summary: RunSummary) {
            let beforeByName = Dictionary(before.map { ($0.entitlement, $0) }, uniquingKeysWith: { first, _ in first })
            let afterByName = Dictionary(after.map { ($0.entitlement, $0) }, uniquingKeysWith: { first, _ in first })
            let correctionByName = Dictionary(
                corrections.map { ($0.entitlement, $0) }, uniquingKeysWith: { first, _ in first })
            let names = Set(beforeByName.keys).union(afterByName.keys).union(correctionByName.keys).sorted()
            entitlements = names.map { name in
                Entry(
                    entitlement: name, before: beforeByName[name].map(State.init),
                    after: afterByName[name].map(State.init),
                    correction: correctionByName[name].map {
                        Correction(action: $0.action, reason: $0.reason, applied: !summary.dryRun)
                    })
            }
        }
    }

    private struct Entry: Encodable {
        let entitlement: String
        let before: State?
        let after: State?
        let correction: Correction?

        enum CodingKeys: String, CodingKey { case entitlement, before, after, correction }

        /// `null` spelled out: "no row" is an answer, not a missing key.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entitlement, forKey: .entitlement)
            try container.encode(before, forKey: .before)
            try container.encode(after, forKey: .after)
            try container.encode(correction, forKey: .correction)
        }
    }

    /// One `entitlements` row, under the table's own column names.
    struct State: Encodable {
        let active: Bool
        let expiresAt: Date?
        let productID: String?
        let originalTransactionID: String?
        let source: String

        init(_ row: EntitlementRow) {
            active = row.active
            expiresAt = row.expiresAt
            productID = row.productID
            originalTransactionID = row.originalTransactionID
            source = row.source
        }

        enum CodingKeys: String, CodingKey {
            case active, source
            case expiresAt = "expires_at"
            case productID = "product_id"
            case originalTransactionID = "original_transaction_id"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(active, forKey: .active)
            try container.encode(expiresAt, forKey: .expiresAt)
            try container.encode(productID, forKey: .productID)
            try container.encode(originalTransactionID, forKey: .originalTransactionID)
            try container.encode(source, forKey: .source)
        }
    }

    private struct Correction: Encodable {
        let action: CorrectionAction
        let reason: CorrectionReason
        let applied: Bool
    }
}
