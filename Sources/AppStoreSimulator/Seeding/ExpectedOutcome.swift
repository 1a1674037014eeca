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

    /// A receipt row the run must leave `unverified`, and whether asking again could change it.
    public struct UnverifiedRow: Sendable, Hashable, Comparable {
        public var userID: String
        public var receiptID: Int64
        /// `recon_results.detail` says `permanent` (else `transient`).
        public var permanent: Bool

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.userID, lhs.receiptID) < (rhs.userID, rhs.receiptID)
        }
    }

    /// One refund the run records (rules.md, "Money"): its price and the share refunded.
    public struct Refund: Sendable, Hashable {
        public var currency: String
        public var priceMilliunits: Int64
        /// Milliunits of a percent: 100000 for a full refund, Apple's `revocationPercentage` for a prorated one.
        public var percentageMilliunits: Int

        /// price × percentage ÷ 100, in hundred-millionths of the currency unit (exact).
        var amountE8: Int64 { priceMilliunits * Int64(percentageMilliunits) }
    }

    /// The run's refunded amount in one currency: the summary's `refundedAmount` entry.
    public struct RefundedAmount: Sendable, Hashable {
        public var currency: String
        /// Σ price × percentage ÷ 100, in hundred-millionths of the currency unit.
        public var amountE8: Int64
        public var transactions: Int

        /// The exact decimal, without trailing zeros: `"12.997"`, `"10"`.
        public var amount: String {
            let whole = amountE8 / 100_000_000
            var fraction = String(amountE8 % 100_000_000)
            fraction = String(repeating: "0", count: 8 - fraction.count) + fraction
            while fraction.last == "0" { fraction.removeLast() }
            return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
        }

        /// The refunds summed per currency, in currency-code order.
        static func figures(_ refunds: [String: Refund]) -> [RefundedAmount] {
            var byCurrency: [String: RefundedAmount] = [:]
            for refund in refunds.values {
                byCurrency[
                    refund.currency, default: RefundedAmount(currency: refund.currency, amountE8: 0, transactions: 0)
                ]
                .add(refund)
            }
            return byCurrency.values.sorted { $0.currency < $1.currency }
        }

        private mutating func add(_ refund: Refund) {
            amountE8 += refund.amountE8
            transactions += 1
        }
    }

    public var asOfMs: Int64
    public var world: SimulatedWorld.Parameters
    public var assumptions: RunAssumptions
    /// Sorted by user, entitlement, action.
    public var corrections: [Correction]
    /// Sorted by user, kind, receipt.
    public var flags: [Flag]
    public var counts: Counts
    /// Sorted by user, receipt.
    public var unverified: [UnverifiedRow] = []
    /// The run's refunded amount per currency (`run --json`'s `refundedAmount`): stated for the Server
    /// API backend only, nil otherwise (verifyReceipt answers carry no price).
    public var refundedAmount: [RefundedAmount]? = nil
    /// An incremental world's figures: users changed at Apple since the previous run, those whose change
    /// the app missed (the only ones a run corrects), users a notification since then names, and
    /// notifications naming a purchase no stored row holds.
    public var incremental: Incremental? = nil

    public struct Incremental: Sendable, Hashable {
        public var changedUsers: Int
        public var missedChanges: Int
        public var notifiedUsers: Int
        public var unmatchedNotifications: Int
    }
}

extension ExpectedOutcome {
    /// The expected file: `{"as_of", "corrections": [{"user_id","entitlement","action"}],
    /// "flags": [{"user_id","kind","receipt_id"}], "unverified": [{"user_id","receipt_id","kind"}]}` plus
    /// the world and the assumptions it holds for, and for the Server API `"refunded_amount":
    /// [{"currency","amount","transactions"}]`; one entry per line so that a diff of two files reads well.
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
        // Every app's Apple ID, which a production Server API night checks notifications against.
        text +=
            "  \"app_apple_ids\": {"
            + WorldCatalog.appAppleIDs.sorted { $0.key < $1.key }.map { "\(quoted($0.key)): \($0.value)" }
            .joined(separator: ", ") + "},\n"
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
        // The refunded amount (customer prices) `run --json` reports as `refundedAmount`, same shape.
        if let refundedAmount {
            text += "  \"refunded_amount\": ["
            text += refundedAmount.map {
                "{\"currency\": \(quoted($0.currency)), \"amount\": \(quoted($0.amount)), \"transactions\": \($0.transactions)}"
            }.joined(separator: ", ")
            text += "],\n"
        }
        // Only in incremental worlds: other files stay as they were.
        if let incremental {
            text +=
                "  \"incremental\": {\"changed_since\": \(quoted(Self.iso8601(world.incremental?.sinceMs ?? 0))), "
                + "\"changed_users\": \(incremental.changedUsers), \"missed_changes\": \(incremental.missedChanges), "
                + "\"notified_users\": \(incremental.notifiedUsers), "
                + "\"unmatched_notifications\": \(incremental.unmatchedNotifications)},\n"
        }
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
        text += flags.isEmpty ? "],\n" : "\n  ],\n"
        text += "  \"unverified\": ["
        text += unverified.map {
            "\n    {\"user_id\": \(quoted($0.userID)), \"receipt_id\": \($0.receiptID), \"kind\": "
                + quoted($0.permanent ? "permanent" : "transient") + "}"
        }.joined(separator: ",")
        text += unverified.isEmpty ? "]\n" : "\n  ]\n"
        text += "}\n"
        return Data(text.utf8)
    }

    /// The command line the expectation is for (the database URL and endpoints aside).
    public var runCommand: String {
        // An incremental run reads the notification history and takes no --older-than.
        var parts = [
            "receipt-recon run" + (world.incremental == nil ? " --older-than 0" : "")
                + " --as-of \(Self.iso8601(asOfMs))"
        ]
        if assumptions.environment != .production { parts.append("--environment \(assumptions.environment.rawValue)") }
        for bundle in assumptions.bundleIDs ?? [] { parts.append("--bundle-id \(bundle)") }
        if assumptions.backend == .serverAPI, assumptions.environment == .production {
            for bundle in assumptions.bundleIDs ?? [] {
                if let id = WorldCatalog.appAppleIDs[bundle] { parts.append("--app-apple-id \(bundle)=\(id)") }
            }
        }
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
