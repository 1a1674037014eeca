import AppStoreReceipts
import CivilTime
import Foundation

/// What a correct run must correct and flag: the content of `simulator seed --expected FILE`.
public struct ExpectedOutcome: Sendable, Hashable {
    public struct Correction: Sendable, Hashable, Comparable {
        public var userID: String
        public var entitlement: String
        /// `grant`, `revoke`, `extend`, `shorten`.
        public var action: String

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.userID, lhs.entitlement, lhs.action) < (rhs.userID, rhs.entitlement, rhs.action)
        }
    }

    public struct Flag: Sendable, Hashable, Comparable {
        public var userID: String
        public var kind: String
        /// The flagged receipt's `receipts.id`; nil for per-user flags (`entitlement_without_receipt`).
        public var receiptID: Int64?

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.userID, lhs.kind, lhs.receiptID ?? 0) < (rhs.userID, rhs.kind, rhs.receiptID ?? 0)
        }
    }

    /// Numbers about the run the expectation describes, for CONTRACT §7's breakers.
    public struct Counts: Sendable, Hashable {
        public var users = 0
        public var usersWithReceipts = 0
        public var receipts = 0
        public var unverifiedReceipts = 0
        public var usersWithRevoke = 0
        /// The highest `unverified / processed receipts` over every prefix of users (in `user_id` order)
        /// with at least 100 receipts: the unverified breaker trips above `--max-unverified-ratio`.
        public var peakUnverifiedRatio = 0.0
        /// The highest `users with a revoke / users with receipts` over the same prefixes.
        public var peakRevokeRatio = 0.0
    }

    public var asOfMs: Int64
    public var world: SimulatedWorld.Parameters
    public var assumptions: RunAssumptions
    /// Sorted by user, entitlement, action.
    public var corrections: [Correction]
    /// Sorted by user, kind, receipt.
    public var flags: [Flag]
    public var counts: Counts
}

extension ExpectedOutcome {
    /// The expected file: `{"as_of", "corrections": [{"user_id","entitlement","action"}],
    /// "flags": [{"user_id","kind","receipt_id"}]}` plus the world and the assumptions it holds for,
    /// one entry per line so that a diff of two files reads well.
    public func jsonData() -> Data {
        var text = "{\n"
        text += "  \"as_of\": \(quoted(Self.iso8601(asOfMs))),\n"
        // The StoreKit 2 key appears only in worlds that have them: other files stay as they were.
        text +=
            "  \"world\": {\"users\": \(world.users), \"seed\": \(world.seed), \"environment\": \(quoted(world.environment.rawValue))"
            + (world.includesStoreKit2Users ? ", \"store_kit_2_users\": true},\n" : "},\n")
        text += "  \"run\": \(quoted(runCommand)),\n"
        text += "  \"environment\": \(quoted(assumptions.environment.rawValue)),\n"
        text +=
            "  \"bundle_ids\": "
            + (assumptions.bundleIDs.map { "[" + $0.map(quoted).joined(separator: ", ") + "]" } ?? "null") + ",\n"
        text += "  \"sandbox_policy\": \(quoted(assumptions.sandboxPolicy.rawValue)),\n"
        // Stated only for the Server API: a verify-receipt file stays what it always was.
        if assumptions.backend != .verifyReceipt {
            text += "  \"backend\": \(quoted(assumptions.backend.rawValue)),\n"
        }
        text +=
            "  \"counts\": {\"users\": \(counts.users), \"users_with_receipts\": \(counts.usersWithReceipts), "
            + "\"receipts\": \(counts.receipts), \"unverified_receipts\": \(counts.unverifiedReceipts), "
            + "\"users_with_revoke\": \(counts.usersWithRevoke), "
            + "\"peak_unverified_ratio\": \(Self.decimal(counts.peakUnverifiedRatio)), "
            + "\"peak_revoke_ratio\": \(Self.decimal(counts.peakRevokeRatio))},\n"
        text += "  \"corrections\": ["
        text += corrections.map {
            "\n    {\"user_id\": \(quoted($0.userID)), \"entitlement\": \(quoted($0.entitlement)), \"action\": \(quoted($0.action))}"
        }.joined(separator: ",")
        text += corrections.isEmpty ? "],\n" : "\n  ],\n"
        text += "  \"flags\": ["
        text += flags.map {
            "\n    {\"user_id\": \(quoted($0.userID)), \"kind\": \(quoted($0.kind)), \"receipt_id\": "
                + ($0.receiptID.map { String($0) } ?? "null") + "}"
        }.joined(separator: ",")
        text += flags.isEmpty ? "]\n" : "\n  ]\n"
        text += "}\n"
        return Data(text.utf8)
    }

    /// The command line the expectation is for (the database URL and endpoints aside).
    public var runCommand: String {
        var parts = ["receipt-recon run --older-than 0 --as-of \(Self.iso8601(asOfMs))"]
        if assumptions.environment != .production { parts.append("--environment \(assumptions.environment.rawValue)") }
        for bundle in assumptions.bundleIDs ?? [] { parts.append("--bundle-id \(bundle)") }
        if assumptions.sandboxPolicy != .revoke {
            parts.append("--sandbox-policy \(assumptions.sandboxPolicy.rawValue)")
        }
        if let root = assumptions.appleRootCertificate { parts.append("--apple-root-certificate \(root)") }
        if assumptions.backend != .verifyReceipt { parts.append("--backend \(assumptions.backend.rawValue)") }
        return parts.joined(separator: " ")
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func decimal(_ value: Double) -> String {
        String(format: "%.4f", value)
    }

    /// `2026-11-22T03:00:00Z`, with `.SSS` only when there are milliseconds.
    public static func iso8601(_ milliseconds: Int64) -> String {
        CivilDateTime(unixMilliseconds: milliseconds).iso8601
    }
}
