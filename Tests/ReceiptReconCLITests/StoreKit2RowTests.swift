import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// StoreKit 2 rows (`receipt_data` holding a JWS signed transaction) through `run` and `verify-user`
/// with the verifyReceipt backend: never sent to Apple, verified locally against the configured root,
/// and believed as of their `signedDate` only (CONTRACT §9).
@Suite struct StoreKit2RowTests {
    static let asOf = "2026-11-01T00:00:00Z"
    static let now = ISO8601DateFormatter().date(from: asOf)!
    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }
    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// A chain minted for the test, written where the run is pointed at its root.
    struct PKI {
        let chain: SigningChain
        let directory: URL
        var rootFile: String { directory.appendingPathComponent(SigningChain.rootFile).path }

        init() throws {
            chain = try SigningChain.mint(notBefore: StoreKit2RowTests.day(-400), notAfter: StoreKit2RowTests.day(400))
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-sk2-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try chain.write(to: directory)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// A signed transaction as StoreKit 2 hands it to the app.
        func transaction(
            id: String, product: String, type: String = "Auto-Renewable Subscription", signed: Date,
            purchased: Date, expires: Date? = nil, revoked: Date? = nil, environment: String = "Production"
        ) -> String {
            var fields = [
                "\"transactionId\":\"\(id)\"", "\"originalTransactionId\":\"\(id)\"", "\"bundleId\":\"com.example\"",
                "\"productId\":\"\(product)\"", "\"type\":\"\(type)\"", "\"purchaseDate\":\(ms(purchased))",
                "\"originalPurchaseDate\":\(ms(purchased))", "\"signedDate\":\(ms(signed))",
                "\"environment\":\"\(environment)\"", "\"inAppOwnershipType\":\"PURCHASED\"", "\"quantity\":1",
                "\"price\":9990", "\"currency\":\"USD\"", "\"storefront\":\"USA\"",
                "\"transactionReason\":\"PURCHASE\"",
            ]
            if let expires { fields.append("\"expiresDate\":\(ms(expires))") }
            if let revoked {
                fields += [
                    "\"revocationDate\":\(ms(revoked))", "\"revocationReason\":0", "\"revocationType\":\"REFUND_FULL\"",
                ]
            }
            return chain.sign(payload: Array(("{" + fields.joined(separator: ",") + "}").utf8))
        }
    }

    /// The same JWS with its payload's expiry pushed a year ahead and the signature left as it was.
    static func tampered(_ jws: String) -> String {
        var parts = jws.split(separator: ".").map(String.init)
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        var text = String(decoding: Data(base64Encoded: payload)!, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"expiresDate\":", with: "\"expiresDate\":3")
        parts[1] = Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return parts.joined(separator: ".")
    }

    static func seed(_ database: TestDatabase, _ pki: PKI, _ apple: ScriptedAppleServer) throws {
        let db = try database.connect()
        try db.executeScript(
            """
            INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL),
                                        ('lifetime', 'non_consumable', 'pro', NULL);
            """)
        func receipt(_ user: String, _ data: String) throws {
            try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(data))")
        }
        func entitlement(_ user: String, _ name: String, active: Bool = true, expires: Date?) throws {
            try db.execute(
                """
                INSERT INTO entitlements (user_id, entitlement, active, expires_at, source)
                VALUES (\(user), \(name), \(active), \(expires), 'app_store')
                """)
        }
        /// A stored row of `user` and the `premium` row the app wrote for it, running to `until`.
        func subscriber(_ user: String, _ data: String, until: Date) throws {
            try receipt(user, data)
            try entitlement(user, "premium", expires: until)
        }
        /// A `monthly` period signed at its purchase unless said otherwise.
        func monthly(
            _ id: String, signed: Date, purchased: Date? = nil, expires: Date, revoked: Date? = nil,
            environment: String = "Production"
        ) -> String {
            pki.transaction(
                id: id, product: "monthly", signed: signed, purchased: purchased ?? signed, expires: expires,
                revoked: revoked, environment: environment)
        }
        // Paying, in agreement.
        try subscriber("sk-keep", monthly("1001", signed: day(-5), expires: day(25)), until: day(25))
        // Signed before its last renewal: expired since, but the app saw the renewal. Never revoked.
        try subscriber("sk-renewed", monthly("1002", signed: day(-40), expires: day(-10)), until: day(20))
        // The app's row runs longer than the signed expiry: never shortened.
        try subscriber("sk-longer", monthly("1003", signed: day(-20), expires: day(10)), until: day(40))
        // Bought, never granted: granted up to what the JWS proves.
        try receipt(
            "sk-grant",
            pki.transaction(
                id: "1004", product: "lifetime", type: "Non-Consumable", signed: day(-3), purchased: day(-3)))
        // A refund the JWS proves itself.
        try subscriber(
            "sk-refund", monthly("1005", signed: day(-1), purchased: day(-20), expires: day(10), revoked: day(-2)),
            until: day(10))
        // Altered after signing.
        try subscriber("sk-forged", tampered(monthly("1006", signed: day(-5), expires: day(25))), until: day(25))
        // Sandbox data in a production database.
        try subscriber(
            "sk-sandbox", monthly("1007", signed: day(-5), expires: day(25), environment: "Sandbox"), until: day(25))
        // Halfway through the migration: an old receipt Apple says expired, and a newer JWS.
        try receipt("sk-mixed", "UkVDRUlQVC1NSVhFRA==")
        try subscriber("sk-mixed", monthly("1009", signed: day(-2), expires: day(28)), until: day(28))
        apple.answer(
            "UkVDRUlQVC1NSVhFRA==",
            with: .valid([
                ScriptedAppleServer.Purchase(
                    product: "monthly", transactionID: "1008", originalTransactionID: "1008", purchased: day(-90),
                    expires: day(-60))
            ]))
    }

    /// The arrange block of every test: a scripted verifyReceipt, a chain minted for the test and a fresh
    /// database `seed`ed with both, handed to `body`.
    static func seeded<T>(_ body: (ScriptedAppleServer, PKI, TestDatabase) throws -> T) throws -> T {
        let apple = try ScriptedAppleServer()
        let pki = try PKI()
        defer { pki.remove() }
        return try TestDatabase.with { database in
            try seed(database, pki, apple)
            return try body(apple, pki, database)
        }
    }

    static func environment(_ database: TestDatabase, _ pki: PKI, _ apple: ScriptedAppleServer) -> [String: String] {
        apple.environment.merging(["DATABASE_URL": database.conninfo, "APPLE_ROOT_CERTIFICATES": pki.rootFile]) { $1 }
    }

    static func strings(_ db: PostgresConnection, _ sql: PostgresQuery) throws -> Set<String> {
        Set(try db.query(sql).map { try $0.decode("s", as: String.self) })
    }

    @Test func signedRowsKeepPayingCustomersAndFlagForgeries() throws {
        try Self.seeded { apple, pki, database in
            let db = try database.connect()
            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json"],
                environment: Self.environment(database, pki, apple))
            #expect(result.status == 0, "\(result.output)")

            // The run record says which root signed data was trusted under.
            let roots = try db.query("SELECT options->'signedDataRoots'->>0 AS root FROM recon_runs").first?
                .decode("root", as: String?.self)
            #expect(roots == pki.rootFile)

            // Only the old receipt went to Apple.
            #expect(apple.received.count == 1)
            #expect(apple.received.allSatisfy { !$0.body.contains("eyJ") })

            #expect(
                try Self.strings(
                    db,
                    "SELECT user_id || ' ' || entitlement || ' ' || action || ' ' || reason AS s FROM recon_corrections"
                )
                    == [
                        "sk-grant pro grant purchase_not_granted", "sk-refund premium revoke refund",
                        "sk-forged premium revoke invalid_receipt", "sk-sandbox premium revoke wrong_environment",
                    ])
            #expect(
                try Self.strings(db, "SELECT user_id || ' ' || kind AS s FROM recon_flags")
                    == ["sk-forged invalid_receipt", "sk-sandbox sandbox_in_production", "sk-refund refunded"])
            #expect(
                try Self.strings(
                    db,
                    """
                    SELECT r.user_id || ' ' || x.outcome AS s FROM recon_results x JOIN receipts r ON r.id = x.receipt_id
                    WHERE r.receipt_data LIKE 'eyJ%'
                    """)
                    == [
                        "sk-keep valid", "sk-renewed valid", "sk-longer valid", "sk-grant valid", "sk-refund valid",
                        "sk-forged invalid", "sk-sandbox misrouted", "sk-mixed valid",
                    ])
            // Each signed row's result says what it proves and when, and that Apple was not asked.
            let details = try db.query(
                """
                SELECT x.detail, x.apple_status, x.attempts FROM recon_results x JOIN receipts r ON r.id = x.receipt_id
                WHERE r.user_id = 'sk-renewed'
                """)
            #expect(
                try details.first?.decode("detail", as: String.self).contains("signed 2026-09-22T00:00:00Z") == true)
            #expect(try details.first?.decode("detail", as: String.self).contains("App Store Server API") == true)
            #expect(try details.first?.decode("apple_status", as: Int?.self) == nil)
            #expect(try details.first?.decode("attempts", as: Int.self) == 0)
            // The signed transactions are recorded like Apple's.
            #expect(
                try Self.strings(
                    db, "SELECT transaction_id AS s FROM recon_transactions WHERE transaction_id LIKE '100%'"
                )
                .isSuperset(of: ["1001", "1002", "1003", "1004", "1005", "1009"]))
            let active = try Self.strings(
                db, "SELECT user_id || ' ' || entitlement AS s FROM entitlements WHERE active")
            #expect(
                active == [
                    "sk-keep premium", "sk-renewed premium", "sk-longer premium", "sk-grant pro", "sk-mixed premium",
                ])
        }
    }

    @Test func verifyUserKeepsAStoreKit2Subscriber() throws {
        try Self.seeded { apple, pki, database in
            let result = try ReceiptReconBinary.run(
                ["verify-user", "sk-renewed", "--as-of", Self.asOf],
                environment: Self.environment(database, pki, apple))
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout.contains("valid 1"), "\(result.stdout)")
            #expect(!result.stdout.contains("revoke"), "\(result.stdout)")
            #expect(apple.received.isEmpty)
        }
    }

    /// Without the test root the signature cannot be trusted, but the data is not shown altered: every JWS
    /// row is a permanent `unverified`, untrusted: it keeps nothing (only Apple's signature keeps access,
    /// CONTRACT §5), so what it claims is revoked; an unreadable root file is exit 78.
    @Test func anUntrustedRootLeavesSignedRowsUnverifiedAndABadRootFileIs78() throws {
        try Self.seeded { apple, pki, database in
            var environment = Self.environment(database, pki, apple)
            environment["APPLE_ROOT_CERTIFICATES"] = pki.directory.appendingPathComponent("missing.der").path
            let bad = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf], environment: environment)
            #expect(bad.status == 78, "\(bad.output)")
            #expect(bad.stderr.contains("missing.der cannot be read"))

            environment["APPLE_ROOT_CERTIFICATES"] = nil
            let untrusted = try ReceiptReconBinary.run(
                ["verify-user", "sk-keep", "--as-of", Self.asOf], environment: environment)
            // Another signer's chain, not altered data: a permanent unverified, but not Apple's: it keeps
            // nothing. Permanent: an answer, so the user's verification is complete (exit 0).
            #expect(untrusted.status == 0, "\(untrusted.output)")
            #expect(untrusted.stdout.contains("outcomes: unverified 1"), "\(untrusted.stdout)")
            #expect(untrusted.stdout.contains("unverified (untrusted)"), "\(untrusted.stdout)")
            #expect(untrusted.stdout.contains("revoke"), "\(untrusted.stdout)")
            #expect(!untrusted.stdout.contains("Try again later"), "\(untrusted.stdout)")
        }
    }

    /// CONTRACT §9, "Finance": a signed row's price, currency and storefront reach
    /// `recon_transactions` and the export exactly, tagged `signed_row`; verifyReceipt's transactions
    /// are `verify_receipt` without them; the refund counts in the run that first recorded it only.
    @Test func signedRowsCarryFinanceFieldsToTheTableTheExportAndTheSummary() throws {
        try Self.seeded { apple, pki, database in
            let db = try database.connect()
            let environment = Self.environment(database, pki, apple)
            let first = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json"], environment: environment)
            #expect(first.status == 0, "\(first.output)")
            #expect(
                first.stdout.contains(#""refundedAmount":[{"amount":"9.99","currency":"USD","transactions":1}]"#),
                "\(first.stdout)")

            #expect(
                try Self.strings(
                    db,
                    """
                    SELECT transaction_id || ' ' || coalesce(price::text, '-') || ' ' || coalesce(currency, '-') || ' '
                           || coalesce(storefront, '-') || ' ' || coalesce(transaction_reason, '-') || ' '
                           || coalesce(revocation_type, '-') || ' ' || source AS s
                    FROM recon_transactions WHERE transaction_id IN ('1001', '1005', '1008')
                    """)
                    == [
                        "1001 9.99 USD USA PURCHASE - signed_row", "1005 9.99 USD USA PURCHASE REFUND_FULL signed_row",
                        "1008 - - - - - verify_receipt",
                    ])

            let export = try ReceiptReconBinary.run(
                ["export", "transactions", "--from", "2026-01-01", "--to", "2027-01-01"], environment: environment)
            #expect(export.status == 0, "\(export.output)")
            #expect(export.stdout.hasPrefix(ExportHeaderTests.header("transactions")), "\(export.stdout)")
            let refunded = export.stdout.components(separatedBy: "\r\n").first { $0.hasPrefix("1005,") }
            // The refund's percentage, last, as the table holds it.
            let percentage = try Self.strings(
                db,
                """
                SELECT coalesce(revocation_percentage::text, '') AS s FROM recon_transactions WHERE transaction_id = '1005'
                """)
            #expect(
                refunded?.hasSuffix(",1,9.99,USD,USA,,,PURCHASE,REFUND_FULL,signed_row,\(percentage.first ?? "?")")
                    == true,
                "\(export.stdout)")

            // The same refund seen again by the next run is not counted again.
            let second = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json"], environment: environment)
            #expect(second.status == 0, "\(second.output)")
            #expect(second.stdout.contains(#""refundedAmount":[]"#), "\(second.stdout)")
            let report = try ReceiptReconBinary.run(["report", "--run", "1"], environment: environment)
            #expect(report.stdout.contains("Refunded amount (customer prices): USD 9.99 (1)\n"), "\(report.output)")
        }
    }
}
