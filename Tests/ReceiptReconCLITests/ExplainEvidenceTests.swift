import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Issue 34, point 6 ("Why"), through the built binary against real PostgreSQL and the scripted Apple
/// servers: each correction and flag records the Apple fact that proved it in its `evidence` column, and
/// `verify-user USER --explain` (or `report --user USER`) reads it back in words support can read to a
/// customer, from the records only.
///
/// The expected words and facts come from the scenario (what Apple was scripted to say), never from the
/// job's code.
@Suite struct ExplainEvidenceTests {
    typealias World = VerdictWorld
    static func day(_ offset: Double) -> Date { World.day(offset) }

    /// An instant as `--explain` writes it: UTC, to the minute.
    static func words(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date) + " UTC"
    }

    /// `verify-user USER --explain` with nothing but the database: no Apple configuration at all.
    static func explain(_ database: TestDatabase, _ user: String, json: Bool = false) throws
        -> ReceiptReconBinary.Result
    {
        try ReceiptReconBinary.run(
            ["verify-user", user, "--explain"] + (json ? ["--json"] : []),
            environment: ["DATABASE_URL": database.conninfo])
    }

    /// The stored `evidence` of the user's only correction, and of the user's flag of `kind`.
    static func evidence(_ db: PostgresConnection, _ user: String, flag kind: String? = nil) throws -> [String: Any] {
        let sql: PostgresQuery =
            kind.map {
                "SELECT evidence::text AS e FROM recon_flags WHERE user_id = \(user) AND kind = \($0)"
            } ?? "SELECT evidence::text AS e FROM recon_corrections WHERE user_id = \(user)"
        let rows = try db.query(sql).map { try $0.decode("e", as: String?.self) }
        #expect(rows.count == 1, "\(user) \(kind ?? "correction"): \(rows)")
        let text = try #require(rows.compactMap { $0 }.first, "\(user) \(kind ?? "correction"): evidence is NULL")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Products seeded, and the stored rows numbered from 42 on, so that a receipt id in the words is the
    /// row's, not a count.
    static func seed(_ db: PostgresConnection) throws {
        try World.seedProducts(db)
        try db.execute("SELECT setval(pg_get_serial_sequence('receipts', 'id'), 41)")
    }

    static func firstPurchase(_ evidence: [String: Any]) throws -> [String: Any] {
        try #require((evidence["purchases"] as? [[String: Any]])?.first, "\(evidence)")
    }

    static func firstReceipt(_ evidence: [String: Any]) throws -> [String: Any] {
        try #require((evidence["receipts"] as? [[String: Any]])?.first, "\(evidence)")
    }

    // MARK: A refund, App Store Server API

    @Test func aRefundRevokeRecordsItsEvidenceAndExplainSaysItInWords() throws {
        let api = try World.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db)
            let period = World.monthly("2000000123", purchased: Self.day(-20), expires: Self.day(10))
            let row = try World.holder(db, "u-refund", api.sign(period), "premium", expires: Self.day(10))
            api.script(
                .production, .transactionHistory, id: "2000000123",
                [.history([World.refunded(period, on: Self.day(-3))])])

            // Whole seconds: the instants Apple's answer can carry, to the millisecond, lie within them.
            let runStarted = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let night = try World.run(database, api)
            let runEnded = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.up))
            #expect(night.status == 0, "\(night.output)")
            #expect(try World.corrections(db) == ["u-refund premium revoke refund"])

            // The column: the rule, the stored row, the transaction, the revocation, Apple's instant.
            let evidence = try Self.evidence(db, "u-refund")
            #expect(evidence["rule"] as? String == "refund" && evidence["entitlement"] as? String == "premium")
            #expect(evidence["as_of"] as? String == World.asOf)
            let purchase = try Self.firstPurchase(evidence)
            #expect(purchase["receipt_id"] as? Int == Int(row) && purchase["transaction_id"] as? String == "2000000123")
            #expect(purchase["product_id"] as? String == "monthly" && purchase["source"] as? String == "server_api")
            #expect(purchase["revocation_date"] as? String == World.iso(Self.day(-3)))
            #expect(
                purchase["revocation_reason"] as? Int == 0 && purchase["revocation_type"] as? String == "REFUND_FULL")
            #expect(purchase["revocation_percentage"] as? Int == 100)
            #expect(purchase["environment"] as? String == "production")
            let signed = try #require(purchase["reported_at"] as? String, "\(purchase)")
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let signedAt = try #require(ISO8601DateFormatter().date(from: signed) ?? fractional.date(from: signed))
            #expect(
                (runStarted...runEnded).contains(signedAt), "Apple signed its answer during the run: \(signed)")
            let flag = try Self.evidence(db, "u-refund", flag: "refunded")
            #expect(flag["rule"] as? String == "refunded")
            #expect(try Self.firstPurchase(flag)["revocation_date"] as? String == World.iso(Self.day(-3)))

            let asked = api.received.count
            let explained = try Self.explain(database, "u-refund")
            #expect(explained.status == 0, "\(explained.output)")
            let text = explained.stdout
            #expect(
                text.contains(
                    "access to premium was removed because Apple reports a refund of purchase 2000000123 (product monthly), refunded on \(Self.words(Self.day(-3))), refund reason: another reason, such as an accidental purchase, 100% refunded."
                ), "\(text)")
            #expect(text.contains("Evidence: Apple's App Store Server API answer, signed "), "\(text)")
            #expect(text.contains("for stored receipt \(row)"), "\(text)")
            #expect(text.contains("Receipt \(row): purchase 2000000123 (product monthly), refunded on"), "\(text)")
            #expect(text.contains("premium: inactive"), "the entitlement as it is now: \(text)")
            #expect(api.received.count == asked, "--explain asks Apple nothing")

            // `report --user` is the same page; `--json` carries the evidence as stored.
            let report = try ReceiptReconBinary.run(
                ["report", "--user", "u-refund"], environment: ["DATABASE_URL": database.conninfo])
            #expect(report.status == 0 && report.stdout == text, "\(report.output)")
            let json = try Self.explain(database, "u-refund", json: true)
            #expect(json.status == 0, "\(json.output)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let correction = try #require((object["corrections"] as? [[String: Any]])?.first, "\(object)")
            #expect(correction["reason"] as? String == "refund" && correction["applied"] as? Bool == true)
            let stored = try #require(correction["evidence"] as? [String: Any])
            #expect(try Self.firstPurchase(stored)["transaction_id"] as? String == "2000000123")
            #expect((correction["explanation"] as? String)?.contains("refunded on \(Self.words(Self.day(-3)))") == true)
        }
    }

    // MARK: A refund, verifyReceipt

    @Test func aRefundRevokeUnderVerifyReceiptRecordsItsEvidence() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db)
            let row = try World.holder(db, "u-vr", "UkVDRUlQVC1SRUZVTkQ=", "pro", expires: nil)
            apple.answer(
                "UkVDRUlQVC1SRUZVTkQ=",
                with: .valid([
                    ScriptedAppleServer.Purchase(
                        product: "lifetime", transactionID: "8601", originalTransactionID: "8601",
                        purchased: Self.day(-90), cancelled: Self.day(-2))
                ]))

            let night = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", World.asOf, "--json"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(night.status == 0, "\(night.output)")
            #expect(try World.corrections(db) == ["u-vr pro revoke refund"])

            let evidence = try Self.evidence(db, "u-vr")
            #expect(evidence["rule"] as? String == "refund")
            let purchase = try Self.firstPurchase(evidence)
            #expect(purchase["receipt_id"] as? Int == Int(row) && purchase["transaction_id"] as? String == "8601")
            #expect(purchase["source"] as? String == "verify_receipt")
            #expect(purchase["revocation_date"] as? String == World.iso(Self.day(-2)))
            #expect(purchase["revocation_percentage"] as? Int == 100)
            #expect(try Self.firstReceipt(evidence)["outcome"] as? String == "valid")
            #expect(try Self.evidence(db, "u-vr", flag: "refunded")["rule"] as? String == "refunded")

            let explained = try Self.explain(database, "u-vr")
            #expect(explained.status == 0, "\(explained.output)")
            #expect(
                explained.stdout.contains(
                    "access to pro was removed because Apple reports a refund of purchase 8601 (product lifetime), "
                        + "refunded on \(Self.words(Self.day(-2)))"), "\(explained.stdout)")
            #expect(explained.stdout.contains("Apple's verifyReceipt answer"), "\(explained.stdout)")
        }
    }

    // MARK: An expiry

    /// Corrected by `verify-user` (support's own path writes the evidence too), explained afterwards.
    @Test func anExpiryShowsThePurchaseAndTheInstantItEnded() throws {
        let api = try World.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db)
            let lapsed = World.monthly("3000000456", purchased: Self.day(-95), expires: Self.day(-65))
            let row = try World.holder(db, "u-expired", api.sign(lapsed), "premium", expires: Self.day(20))
            api.script(.production, .transactionHistory, id: "3000000456", [.history([lapsed])])

            let verified = try World.verifyUser("u-expired", database, api, maxAttempts: 2)
            #expect(verified.status == 0, "\(verified.output)")
            #expect(try World.corrections(db) == ["u-expired premium revoke expired"])
            let evidence = try Self.evidence(db, "u-expired")
            #expect(evidence["rule"] as? String == "expired")
            let purchase = try Self.firstPurchase(evidence)
            #expect(purchase["transaction_id"] as? String == "3000000456" && purchase["receipt_id"] as? Int == Int(row))
            #expect(purchase["expires_date"] as? String == World.iso(Self.day(-65)))

            let explained = try Self.explain(database, "u-expired")
            #expect(explained.status == 0, "\(explained.output)")
            #expect(explained.stdout.contains(", run 1 (user): access to premium"), "\(explained.stdout)")
            #expect(
                explained.stdout.contains(
                    "access to premium was removed because the subscription ended: Apple reports purchase 3000000456 "
                        + "(product monthly) expired on \(Self.words(Self.day(-65))), with no later renewal and no "
                        + "billing grace period."), "\(explained.stdout)")
            #expect(explained.stdout.contains("for stored receipt \(row)"), "\(explained.stdout)")
            #expect(explained.stdout.contains("judged as of \(Self.words(World.now))"), "\(explained.stdout)")
        }
    }

    // MARK: An invalid receipt

    /// Apple refuses the id's format (errorCode 4000006): the receipt is `invalid`, the entitlement it
    /// alone named is revoked `invalid_receipt`, and both say which row and which errorCode.
    @Test func anInvalidReceiptShowsTheRowAndApplesErrorCode() throws {
        let api = try World.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db)
            let row = try World.holder(
                db, "u-invalid", api.sign(World.monthly("4101", purchased: Self.day(-10), expires: Self.day(20))),
                "premium", expires: Self.day(20))
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "4101", [.error(4_000_006, status: 400)])
            }

            let night = try World.run(database, api)
            #expect(night.status == 0, "\(night.output)")
            #expect(try World.corrections(db) == ["u-invalid premium revoke invalid_receipt"])
            for evidence in [
                try Self.evidence(db, "u-invalid"), try Self.evidence(db, "u-invalid", flag: "invalid_receipt"),
            ] {
                #expect(evidence["rule"] as? String == "invalid_receipt")
                let receipt = try Self.firstReceipt(evidence)
                #expect(receipt["receipt_id"] as? Int == Int(row) && receipt["outcome"] as? String == "invalid")
                #expect(receipt["error_code"] as? Int == 4_000_006 && receipt["source"] as? String == "server_api")
            }

            let explained = try Self.explain(database, "u-invalid")
            #expect(explained.status == 0, "\(explained.output)")
            #expect(
                explained.stdout.contains(
                    "access to premium was removed because the only receipts that named it are not valid App Store "
                        + "receipts: receipt \(row) (invalid, Apple's errorCode 4000006 (invalid transaction id))."),
                "\(explained.stdout)")
            #expect(
                explained.stdout.contains(
                    "Receipt \(row): not a valid App Store receipt: invalid, Apple's errorCode 4000006"),
                "\(explained.stdout)")
        }
    }

    /// verifyReceipt's status 21003 is the proof of an `invalid_receipt` flag there.
    @Test func anInvalidReceiptFlagUnderVerifyReceiptShowsApplesStatus() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db)
            let row = try World.row(db, "u-21003", "UkVDRUlQVC1CQUQ=")
            apple.answer("UkVDRUlQVC1CQUQ=", with: .status(21_003))

            let night = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", World.asOf, "--json"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(night.status == 0, "\(night.output)")
            let receipt = try Self.firstReceipt(try Self.evidence(db, "u-21003", flag: "invalid_receipt"))
            #expect(receipt["receipt_id"] as? Int == Int(row) && receipt["apple_status"] as? Int == 21_003)
            #expect(receipt["source"] as? String == "verify_receipt")

            let explained = try Self.explain(database, "u-21003")
            #expect(explained.status == 0, "\(explained.output)")
            #expect(
                explained.stdout.contains(
                    "Receipt \(row): not a valid App Store receipt: invalid, Apple's status 21003 (receipt could not "
                        + "be authenticated)"), "\(explained.stdout)")
            #expect(explained.stdout.contains("No correction recorded"), "\(explained.stdout)")
        }
    }

    // MARK: What --explain refuses

    @Test func explainVerifiesNothingAndNamesAnUnknownUser() throws {
        try TestDatabase.with { database in
            let unknown = try Self.explain(database, "nobody")
            #expect(unknown.status == 65, "\(unknown.output)")
            #expect(unknown.stderr.contains("user 'nobody' has no receipts"), "\(unknown.stderr)")
            let mixed = try ReceiptReconBinary.run(
                ["verify-user", "u", "--explain", "--dry-run"], environment: ["DATABASE_URL": database.conninfo])
            #expect(mixed.status == 64 && mixed.stderr.contains("--explain"), "\(mixed.output)")
        }
    }
}
