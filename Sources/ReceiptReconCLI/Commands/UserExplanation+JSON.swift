import Foundation
import Reconciliation

extension UserExplanation {
    /// `--explain --json`: one object. `entitlements`: the rows now, as `verify-user --json` writes them;
    /// `corrections`: newest first, each row's columns, its `explanation` (the words of the text form) and
    /// its `evidence` as stored (`null` for a row written before evidence was kept); `flagsRunID` and
    /// `flags`: the last run that judged the user and its flags, likewise.
    static func json(_ history: UserHistory) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(Explained(history))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private struct Explained: Encodable {
        let userID: String
        let receipts: Int
        let entitlements: [UserReport.State]
        let corrections: [Correction]
        let flagsRunID: Int64?
        let flags: [Flag]

        init(_ history: UserHistory) {
            userID = history.userID
            receipts = history.receipts
            entitlements = history.entitlements.map(UserReport.State.init)
            corrections = history.corrections.map(Correction.init)
            flagsRunID = history.lastRunID
            flags = history.flags.map(Flag.init)
        }

        enum CodingKeys: String, CodingKey { case userID, receipts, entitlements, corrections, flagsRunID, flags }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(userID, forKey: .userID)
            try container.encode(receipts, forKey: .receipts)
            try container.encode(entitlements, forKey: .entitlements)
            try container.encode(corrections, forKey: .corrections)
            try container.encode(flagsRunID, forKey: .flagsRunID)
            try container.encode(flags, forKey: .flags)
        }
    }

    /// A `recon_corrections` row under its own column names, with its run's kind.
    private struct Correction: Encodable {
        let correction: UserHistory.Correction

        init(_ correction: UserHistory.Correction) { self.correction = correction }

        enum CodingKeys: String, CodingKey {
            case id, entitlement, action, reason, applied, explanation, evidence
            case runID = "run_id"
            case runKind = "run_kind"
            case createdAt = "created_at"
            case beforeActive = "before_active"
            case beforeExpiresAt = "before_expires_at"
            case afterActive = "after_active"
            case afterExpiresAt = "after_expires_at"
            case productID = "product_id"
            case originalTransactionID = "original_transaction_id"
            case revertedRunID = "reverted_run_id"
        }

        func encode(to encoder: any Encoder) throws {
            let record = correction.record
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(correction.id, forKey: .id)
            try container.encode(correction.runID, forKey: .runID)
            try container.encode(correction.runKind, forKey: .runKind)
            try container.encode(correction.createdAt, forKey: .createdAt)
            try container.encode(record.entitlement, forKey: .entitlement)
            try container.encode(record.action, forKey: .action)
            try container.encode(record.reason, forKey: .reason)
            try container.encode(correction.applied, forKey: .applied)
            try container.encode(record.beforeActive, forKey: .beforeActive)
            try container.encode(record.beforeExpiresAt, forKey: .beforeExpiresAt)
            try container.encode(record.afterActive, forKey: .afterActive)
            try container.encode(record.afterExpiresAt, forKey: .afterExpiresAt)
            try container.encode(record.productID, forKey: .productID)
            try container.encode(record.originalTransactionID, forKey: .originalTransactionID)
            try container.encodeIfPresent(correction.revertedRunID, forKey: .revertedRunID)
            try container.encode(EvidenceText.correction(correction), forKey: .explanation)
            try container.encode(record.evidence, forKey: .evidence)
        }
    }

    /// A `recon_flags` row under its own column names.
    private struct Flag: Encodable {
        let flag: UserHistory.Flag

        init(_ flag: UserHistory.Flag) { self.flag = flag }

        enum CodingKeys: String, CodingKey {
            case id, kind, detail, explanation, evidence
            case receiptID = "receipt_id"
            case createdAt = "created_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(flag.id, forKey: .id)
            try container.encode(flag.receiptID, forKey: .receiptID)
            try container.encode(flag.kind, forKey: .kind)
            try container.encode(flag.detail, forKey: .detail)
            try container.encode(flag.createdAt, forKey: .createdAt)
            try container.encode(EvidenceText.flag(flag), forKey: .explanation)
            try container.encode(flag.evidence, forKey: .evidence)
        }
    }
}
