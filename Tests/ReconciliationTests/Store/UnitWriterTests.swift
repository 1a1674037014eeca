import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The rows a batch writes (CONTRACT §4, §6): every value, NULL and type as the plans say,
/// hostile text included; the later user wins a transaction id two users share; a dry run writes
/// results, flags and corrections only.
@Suite struct UnitWriterTests {
    static let hostile = [#"q " b \ c , {x}"#, "日本 👍", "", "NULL", #"\"#, "{", "line\nbreak"]
    static let verifiedAt = Date(timeIntervalSince1970: 1_790_000_000.123_456)

    /// Three users: hostile ids and texts, every nullable column both NULL and not, and one transaction
    /// id on two users' receipts.
    static func world(receipts: [Int64]) -> [(userID: String, plan: UnitPlan)] {
        (0..<3).map { u in
            let userID = "user \(hostile[u])"
            var plan = UnitPlan()
            let receiptID = receipts[u]
            plan.results = [
                ResultRecord(
                    receiptID: receiptID, outcome: u == 2 ? .unverified : .valid,
                    appleStatus: u == 2 ? nil : 21_006 * u, environment: u == 1 ? nil : .sandbox,
                    attempts: u + 1, detail: hostile[u + 3], bundleID: u == 0 ? nil : hostile[u])
            ]
            plan.transactions = (0..<3).map { k in
                let n = u * 3 + k
                let extreme = Date(timeIntervalSince1970: n % 2 == 0 ? -0.000_001 : 253_402_300_799.999_999)
                return TransactionRecord(
                    transactionID: k == 2 ? "shared-1" : "t\(n) \(hostile[n % hostile.count])",
                    originalTransactionID: "o\(n)", productID: hostile[(n + 1) % hostile.count], receiptID: receiptID,
                    environment: n % 3 == 0 ? nil : .production, purchasedAt: n % 4 == 0 ? nil : extreme,
                    originalPurchasedAt: Date(timeIntervalSince1970: Double(n) * 1_000.5),
                    expiresAt: n % 2 == 0 ? nil : extreme,
                    cancelledAt: n == 4 ? verifiedAt : nil, cancellationReason: n == 4 ? 1 : nil,
                    isTrial: n % 3 == 1 ? nil : n % 2 == 0, isIntroOffer: n % 2 == 0, isUpgraded: n == 5 ? true : nil,
                    ownershipType: n % 2 == 0 ? nil : "PURCHASED", quantity: n % 5 == 0 ? nil : n,
                    webOrderLineItemID: n % 3 == 2 ? nil : hostile[(n + 2) % hostile.count],
                    price: n % 3 == 0
                        ? nil : CurrencyAmount(milliunits: [1_990, 10_000, -5, 9_223_372_036_854_775_807][n % 4]),
                    currency: n % 3 == 0 ? nil : hostile[n % hostile.count], storefront: n % 2 == 0 ? nil : "USA",
                    offerType: n % 4 == 1 ? 3 : nil,
                    offerDiscountType: n % 2 == 0 ? nil : hostile[(n + 3) % hostile.count],
                    transactionReason: n % 3 == 1 ? "RENEWAL" : nil, revocationType: n == 4 ? "REFUND_PRORATED" : nil,
                    revocationPercentage: n == 4 ? Percentage(thousandths: 33_333) : nil,
                    source: TransactionSource.allCases[n % 3])
            }
            plan.flags = [PlannedFlag(kind: .refunded, receiptID: u == 1 ? nil : receiptID, detail: hostile[u + 1])]
            let afterExpiresAt = u == 0 ? nil : Date(timeIntervalSince1970: 1_800_000_000.5)
            plan.corrections = [
                CorrectionRecord(
                    entitlement: "pro \(hostile[u])", action: u == 1 ? .revoke : .grant, reason: .purchaseNotGranted,
                    beforeActive: u == 1 ? true : nil, beforeExpiresAt: u == 1 ? verifiedAt : nil, afterActive: u != 1,
                    afterExpiresAt: afterExpiresAt, productID: u == 2 ? nil : "p", originalTransactionID: "o\(u)")
            ]
            plan.sharedScan = [(receiptID, "o\(u * 3)"), (receiptID, "shared \(hostile[u])")]
            return (userID, plan)
        }
    }

    static func prepare(_ connection: PostgresConnection, dryRun: Bool) throws -> (runID: Int64, receipts: [Int64]) {
        let runID: Int64 = try connection.query(
            """
            INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'running', \(dryRun), now()) RETURNING id
            """
        ).first!.decode("id")
        var receipts: [Int64] = []
        for u in 0..<3 {
            receipts.append(
                try connection.query(
                    "INSERT INTO receipts (user_id, receipt_data) VALUES (\("user \(hostile[u])"), 'x') RETURNING id"
                )
                .first!.decode("id"))
        }
        // The revoked user's row, active before the batch.
        try connection.execute(
            """
            INSERT INTO entitlements (user_id, entitlement, active, expires_at, product_id)
            VALUES (\("user \(hostile[1])"), \("pro \(hostile[1])"), true, \(verifiedAt), 'old')
            """)
        return (runID, receipts)
    }

    static func write(
        _ connection: PostgresConnection, runID: Int64, dryRun: Bool,
        users: [(userID: String, plan: UnitPlan)]
    ) throws -> Int {
        let writer = UnitWriter(connection: connection)
        return try writer.write(
            runID: runID, dryRun: dryRun, verifiedAt: verifiedAt,
            units: users.map { user in
                UnitWriter.Unit(userID: user.userID) { _ in user.plan }
            }
        ).count
    }

    @Test func aBatchWritesEveryValueAsPlanned() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let (runID, receipts) = try Self.prepare(connection, dryRun: false)
            let users = Self.world(receipts: receipts)
            #expect(try Self.write(connection, runID: runID, dryRun: false, users: users) == 3)

            // recon_transactions: one row per id, the later user's for the shared one, sorted ids irrelevant here.
            var expected: [String: (String, TransactionRecord)] = [:]
            for user in users { for t in user.plan.transactions { expected[t.transactionID] = (user.userID, t) } }
            let rows = try connection.query(
                """
                SELECT transaction_id, original_transaction_id, product_id, user_id, receipt_id, environment, purchased_at,
                    original_purchased_at, expires_at, cancelled_at, cancellation_reason, is_trial, is_intro_offer,
                    is_upgraded, ownership_type, quantity, web_order_line_item_id, first_run_id, last_run_id,
                    price::text AS price, currency, storefront, offer_type, offer_discount_type, transaction_reason,
                    revocation_type, revocation_percentage::text AS revocation_percentage, source, refund_run_id
                FROM recon_transactions
                """)
            #expect(rows.count == expected.count && expected.count == 7)
            for row in rows {
                let id: String = try row.decode("transaction_id")
                guard let (userID, t) = expected[id] else {
                    Issue.record("unexpected transaction \(id)")
                    continue
                }
                #expect(try row.decode("user_id", as: String.self) == userID)
                #expect(try row.decode("original_transaction_id", as: String.self) == t.originalTransactionID)
                #expect(try row.decode("product_id", as: String.self) == t.productID)
                #expect(try row.decode("receipt_id", as: Int64.self) == t.receiptID)
                #expect(try row.decode("environment", as: String?.self) == t.environment?.rawValue)
                #expect(try row.decode("purchased_at", as: Date?.self) == t.purchasedAt)
                #expect(try row.decode("original_purchased_at", as: Date?.self) == t.originalPurchasedAt)
                #expect(try row.decode("expires_at", as: Date?.self) == t.expiresAt)
                #expect(try row.decode("cancelled_at", as: Date?.self) == t.cancelledAt)
                #expect(try row.decode("cancellation_reason", as: Int32?.self) == t.cancellationReason.map(Int32.init))
                #expect(try row.decode("is_trial", as: Bool?.self) == t.isTrial)
                #expect(try row.decode("is_intro_offer", as: Bool?.self) == t.isIntroOffer)
                #expect(try row.decode("is_upgraded", as: Bool?.self) == t.isUpgraded)
                #expect(try row.decode("ownership_type", as: String?.self) == t.ownershipType)
                #expect(try row.decode("quantity", as: Int32?.self) == t.quantity.map(Int32.init))
                #expect(try row.decode("web_order_line_item_id", as: String?.self) == t.webOrderLineItemID)
                // The price as the exact decimal in currency units, e.g. 1990 milliunits → 1.99.
                #expect(try row.decode("price", as: String?.self) == t.price?.description)
                #expect(try row.decode("currency", as: String?.self) == t.currency)
                #expect(try row.decode("storefront", as: String?.self) == t.storefront)
                #expect(try row.decode("offer_type", as: Int32?.self) == t.offerType.map(Int32.init))
                #expect(try row.decode("offer_discount_type", as: String?.self) == t.offerDiscountType)
                #expect(try row.decode("transaction_reason", as: String?.self) == t.transactionReason)
                #expect(try row.decode("revocation_type", as: String?.self) == t.revocationType)
                // The percentage as the exact decimal: 33333 thousandths → 33.333.
                #expect(
                    try row.decode("revocation_percentage", as: String?.self) == t.revocationPercentage?.description)
                #expect(try row.decode("source", as: String.self) == t.source.rawValue)
                #expect(try row.decode("refund_run_id", as: Int64?.self) == (t.cancelledAt == nil ? nil : runID))
                #expect(
                    try row.decode("first_run_id", as: Int64.self) == runID
                        && row.decode("last_run_id", as: Int64.self) == runID)
            }
            #expect(
                try connection.query("SELECT user_id FROM recon_transactions WHERE transaction_id = 'shared-1'")
                    .first!.decode("user_id", as: String.self) == users[2].userID)

            let results = try connection.query(
                """
                SELECT r.receipt_id, user_id, outcome, apple_status, environment, attempts, verified_at, detail,
                    s.last_outcome, s.last_apple_status, s.last_environment, s.last_run_id, s.bundle_id, s.last_verified_at
                FROM recon_results r JOIN recon_receipt_state s USING (receipt_id) WHERE run_id = \(runID) ORDER BY r.receipt_id
                """)
            #expect(results.count == 3)
            for (row, user) in zip(results, users) {
                let r = user.plan.results[0]
                #expect(try row.decode("receipt_id", as: Int64.self) == r.receiptID)
                #expect(try row.decode("user_id", as: String.self) == user.userID)
                #expect(
                    try row.decode("outcome", as: String.self) == r.outcome.rawValue
                        && row.decode("last_outcome", as: String.self) == r.outcome.rawValue)
                #expect(try row.decode("apple_status", as: Int32?.self) == r.appleStatus.map(Int32.init))
                #expect(try row.decode("last_apple_status", as: Int32?.self) == r.appleStatus.map(Int32.init))
                #expect(try row.decode("environment", as: String?.self) == r.environment?.rawValue)
                #expect(try row.decode("last_environment", as: String?.self) == r.environment?.rawValue)
                #expect(try row.decode("attempts", as: Int32.self) == Int32(r.attempts))
                #expect(try row.decode("verified_at", as: Date.self) == Self.verifiedAt)
                #expect(try row.decode("last_verified_at", as: Date.self) == Self.verifiedAt)
                #expect(try row.decode("detail", as: String.self) == r.detail)
                #expect(try row.decode("bundle_id", as: String?.self) == r.bundleID)
                #expect(try row.decode("last_run_id", as: Int64.self) == runID)
            }

            let flags = try connection.query(
                "SELECT receipt_id, user_id, kind, detail FROM recon_flags WHERE run_id = \(runID) ORDER BY id")
            #expect(try flags.map { try $0.decode("detail", as: String.self) } == users.map { $0.plan.flags[0].detail })
            #expect(
                try flags.map { try $0.decode("receipt_id", as: Int64?.self) }
                    == users.map { $0.plan.flags[0].receiptID })
            #expect(try flags.map { try $0.decode("user_id", as: String.self) } == users.map(\.userID))

            let corrections = try connection.query(
                """
                SELECT user_id, entitlement, action, before_active, before_expires_at, after_active, after_expires_at,
                    product_id, original_transaction_id, applied FROM recon_corrections WHERE run_id = \(runID) ORDER BY id
                """)
            #expect(corrections.count == 3)
            for (row, user) in zip(corrections, users) {
                let c = user.plan.corrections[0]
                #expect(try row.decode("user_id", as: String.self) == user.userID)
                #expect(try row.decode("entitlement", as: String.self) == c.entitlement)
                #expect(try row.decode("action", as: String.self) == c.action.rawValue)
                #expect(try row.decode("before_active", as: Bool?.self) == c.beforeActive)
                #expect(try row.decode("before_expires_at", as: Date?.self) == c.beforeExpiresAt)
                #expect(try row.decode("after_active", as: Bool.self) == c.afterActive)
                #expect(try row.decode("after_expires_at", as: Date?.self) == c.afterExpiresAt)
                #expect(try row.decode("product_id", as: String?.self) == c.productID)
                #expect(try row.decode("original_transaction_id", as: String?.self) == c.originalTransactionID)
                #expect(try row.decode("applied", as: Bool.self))
            }
            let entitlements = try connection.query(
                """
                SELECT user_id, entitlement, active, expires_at, product_id, original_transaction_id, source
                FROM entitlements ORDER BY user_id, entitlement
                """)
            let byUser = Dictionary(
                uniqueKeysWithValues: try entitlements.map { (try $0.decode("user_id", as: String.self), $0) })
            #expect(entitlements.count == 3)
            for user in users {
                let c = user.plan.corrections[0]
                guard let row = byUser[user.userID] else {
                    Issue.record("no entitlement for \(user.userID)")
                    continue
                }
                #expect(try row.decode("entitlement", as: String.self) == c.entitlement)
                #expect(try row.decode("source", as: String.self) == "app_store")
                if c.action == .revoke {
                    // A revoke keeps the row's expiry and product.
                    #expect(try row.decode("active", as: Bool.self) == false)
                    #expect(try row.decode("expires_at", as: Date?.self) == Self.verifiedAt)
                    #expect(try row.decode("product_id", as: String?.self) == "old")
                } else {
                    #expect(try row.decode("active", as: Bool.self))
                    #expect(try row.decode("expires_at", as: Date?.self) == c.afterExpiresAt)
                    #expect(try row.decode("product_id", as: String?.self) == c.productID)
                    #expect(try row.decode("original_transaction_id", as: String?.self) == c.originalTransactionID)
                }
            }
            let scan = try connection.query(
                "SELECT user_id, receipt_id, original_transaction_id FROM recon_run_transactions ORDER BY 1, 3")
            #expect(scan.count == 6)
            #expect(
                Set(try scan.map { try $0.decode("original_transaction_id", as: String.self) })
                    == Set(users.flatMap { $0.plan.sharedScan.map(\.originalTransactionID) }))

            // Written again (a redone batch, which finds nothing left to correct): the same rows, no duplicates.
            let redone = users.map { user in
                var plan = user.plan
                plan.corrections = []
                return (userID: user.userID, plan: plan)
            }
            #expect(try Self.write(connection, runID: runID, dryRun: false, users: redone) == 3)
            #expect(
                try connection.query("SELECT count(*) AS n FROM recon_transactions").first!.decode("n", as: Int64.self)
                    == 7)
            #expect(
                try connection.query("SELECT count(*) AS n FROM recon_results").first!.decode("n", as: Int64.self) == 3)
        }
    }

    @Test func aDryRunWritesResultsFlagsAndUnappliedCorrectionsOnly() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let (runID, receipts) = try Self.prepare(connection, dryRun: true)
            #expect(try Self.write(connection, runID: runID, dryRun: true, users: Self.world(receipts: receipts)) == 3)
            func count(_ table: String) throws -> Int64 {
                try connection.query("SELECT count(*) AS n FROM \(unescaped: table)").first!.decode("n")
            }
            #expect(try count("recon_results") == 3 && count("recon_flags") == 3 && count("recon_corrections") == 3)
            #expect(try count("recon_transactions") == 0 && count("recon_receipt_state") == 0)
            #expect(
                try connection.query("SELECT bool_or(applied) AS a FROM recon_corrections").first!.decode(
                    "a", as: Bool.self) == false)
            #expect(
                try connection.query("SELECT active, product_id FROM entitlements").map {
                    try [String(try $0.decode("active", as: Bool.self)), try $0.decode("product_id", as: String.self)]
                } == [["true", "old"]])
        }
    }

    @Test func lastPerKeySortedKeepsTheLastOfEachKeyInKeyOrder() {
        let elements = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5), ("b", 6)]
        let sorted = UnitWriter.lastPerKeySorted(keys: elements.map(\.0)).map { elements[$0] }
        let reference = UnitWriter.lastPerKey(elements) { $0.0 }.sorted { $0.0 < $1.0 }
        #expect(sorted.map(\.1) == [5, 6, 4] && reference.map(\.1) == [5, 6, 4])
        #expect(UnitWriter.lastPerKeySorted(keys: [String]()).isEmpty)
    }
}
