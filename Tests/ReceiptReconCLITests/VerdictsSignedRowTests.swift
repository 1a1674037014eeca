import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// StoreKit 2 rows judged locally under `--backend verify-receipt` (issue 25; CONTRACT §9, "Signed
/// rows"), through the built binary: a signed row is evidence as of its `signedDate` and never outvotes
/// the app's own later word; a chain that fails only at its root is a permanent `unverified`; a broken
/// signature is `invalid`. `verify-user` says which kind an `unverified` is.
@Suite struct VerdictsSignedRowTests {
    typealias Rows = StoreKit2RowTests
    typealias PKI = StoreKit2RowTests.PKI
    typealias World = VerdictWorld
    static let asOf = Rows.asOf
    static func day(_ offset: Double) -> Date { Rows.day(offset) }

    static func seedProducts(_ db: PostgresConnection) throws { try World.seedProducts(db) }

    /// The arrange block of a night: a scripted verifyReceipt, a signing PKI the run trusts, and a fresh
    /// database with the products seeded, handed to `body`.
    static func night(
        _ body: (ScriptedAppleServer, PKI, TestDatabase, PostgresConnection) throws -> Void
    ) throws {
        let apple = try ScriptedAppleServer()
        let pki = try PKI()
        defer { pki.remove() }
        try TestDatabase.with { database in
            let db = try database.connect()
            try seedProducts(db)
            try body(apple, pki, database, db)
        }
    }

    /// `night` with a second PKI, of another root the run does not trust.
    static func nightWithAnotherRoot(
        _ body: (ScriptedAppleServer, PKI, PKI, TestDatabase, PostgresConnection) throws -> Void
    ) throws {
        let other = try PKI()
        defer { other.remove() }
        try night { apple, trusted, database, db in try body(apple, trusted, other, database, db) }
    }

    static func run(_ environment: [String: String]) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["run", "--older-than", "0", "--as-of", asOf, "--json", "--max-attempts", "2"], environment: environment)
    }

    /// `jws` with one character of its signature changed: the header and payload are as signed.
    static func brokenSignature(_ jws: String) -> String {
        var parts = jws.split(separator: ".").map(String.init)
        var signature = Array(parts[2])
        let middle = signature.count / 2
        signature[middle] = signature[middle] == "A" ? "B" : "A"
        parts[2] = String(signature)
        return parts.joined(separator: ".")
    }

    // MARK: Case 12: a stale signed row after an app-side revoke

    /// The app revoked (its row inactive, `updated_at` ten days ago); a signed row signed before that
    /// proves a purchase as Apple knew it then, which is no reason to grant again. The same purchase
    /// signed after the app's last word is: granted.
    @Test func aSignedRowOlderThanTheAppsLastWordNeverGrantsOrExtends() throws {
        try Self.night { apple, pki, database, db in
            let appRevoked = Self.day(-10)
            for (user, id, signed) in [("u-stale-pro", "12101", Self.day(-20)), ("u-fresh-pro", "12201", Self.day(-5))]
            {
                try World.holder(
                    db, user,
                    pki.transaction(
                        id: id, product: "lifetime", type: "Non-Consumable", signed: signed, purchased: Self.day(-30)),
                    "pro", active: false, expires: nil, updated: appRevoked)
            }
            // Revoked by the app; then active until day 5 as the app last wrote it: a longer signed expiry
            // extends only if signed later.
            for (user, id, signed, active, until) in [
                ("u-stale-premium", "12301", Self.day(-15), false, Self.day(10)),
                ("u-fresh-premium", "12401", Self.day(-5), false, Self.day(10)),
                ("u-stale-extend", "12501", Self.day(-15), true, Self.day(5)),
                ("u-fresh-extend", "12601", Self.day(-5), true, Self.day(5)),
            ] {
                try World.holder(
                    db, user,
                    pki.transaction(
                        id: id, product: "monthly", signed: signed, purchased: Self.day(-20), expires: Self.day(10)),
                    "premium", active: active, expires: until, updated: appRevoked)
            }

            let result = try Self.run(Rows.environment(database, pki, apple))
            #expect(result.status == 0, "\(result.output)")
            #expect(apple.received.isEmpty)
            #expect(try World.strings(db, "SELECT DISTINCT outcome AS s FROM recon_results") == ["valid"])
            // The extend's reason is not what this case is about: its action is.
            let corrections = try World.corrections(db)
            let extended = corrections.filter { $0.hasPrefix("u-fresh-extend ") }
            #expect(extended.count == 1 && extended.allSatisfy { $0.hasPrefix("u-fresh-extend premium extend ") })
            #expect(
                corrections.subtracting(extended) == [
                    "u-fresh-pro pro grant purchase_not_granted", "u-fresh-premium premium grant purchase_not_granted",
                ], "\(corrections)")
            #expect(
                try World.active(db) == [
                    "u-fresh-pro pro", "u-fresh-premium premium", "u-stale-extend premium", "u-fresh-extend premium",
                ])
            #expect(World.same(try World.activeUntil(db, "u-stale-extend", "premium"), Self.day(5)))
            #expect(World.same(try World.activeUntil(db, "u-fresh-extend", "premium"), Self.day(10)))
        }
    }

    // MARK: Case 13: a chain that fails only at its root

    /// A signed row whose chain is sound but ends at a root the run does not trust: anyone can make such a
    /// chain (a leaf signed by an intermediate, both valid, the signature good), so it proves nothing
    /// (CONTRACT §5, issue 35). A permanent `unverified` that keeps nothing and holds back nothing: a
    /// customer whose yearly Apple shows refunded loses `premium` although such a row claims another
    /// yearly; a customer with nothing but such a row loses what it claims.
    @Test func aSignedRowOfAnotherRootKeepsNothingAndHoldsBackNothing() throws {
        try Self.nightWithAnotherRoot { apple, trusted, other, database, db in
            let rootRow = try World.row(
                db, "u-root",
                other.transaction(
                    id: "13101", product: "yearly", signed: Self.day(-5), purchased: Self.day(-5),
                    expires: Self.day(360)))
            let receiptRow = try World.holder(db, "u-root", "UkVDRUlQVC1ST09U", "premium", expires: Self.day(360))
            apple.answer(
                "UkVDRUlQVC1ST09U",
                with: .valid([
                    ScriptedAppleServer.Purchase(
                        product: "yearly", transactionID: "13201", originalTransactionID: "13201",
                        purchased: Self.day(-20), expires: Self.day(345), cancelled: Self.day(-2))
                ]))
            let aloneRow = try World.row(
                db, "u-alone",
                other.transaction(
                    id: "13301", product: "lifetime", type: "Non-Consumable", signed: Self.day(-5),
                    purchased: Self.day(-5)))
            try World.entitlement(db, "u-alone", "pro", expires: nil)

            let result = try ReceiptReconBinary.run(
                [
                    "run", "--older-than", "0", "--as-of", Self.asOf, "--json", "--max-attempts", "2",
                    "--max-revoke-ratio", "1",
                ],
                environment: Rows.environment(database, trusted, apple))
            // An untrusted row is an answer: the night is complete.
            #expect(result.status == 0, "\(result.output)")
            for row in [rootRow, aloneRow] {
                let root = try #require(try World.result(db, row))
                #expect(root.outcome == "unverified", "\(root)")
                #expect(root.detail.contains("does not chain to the configured root"), "\(root.detail)")
                #expect(root.detail.contains("keeps nothing") && !root.detail.contains("transient"), "\(root.detail)")
            }
            #expect(try World.outcome(db, receiptRow) == "valid")
            let corrections = try World.corrections(db)
            #expect(
                corrections == ["u-root premium revoke refund", "u-alone pro revoke no_purchase"], "\(corrections)")
            let flags = try World.flags(db)
            #expect(flags == ["u-root unverified", "u-root refunded", "u-alone unverified"], "\(flags)")
            #expect(try World.active(db).isEmpty)
            #expect(apple.received.count == 1, "only the receipt goes to verifyReceipt")
        }
    }

    // MARK: Case 14: a broken signature

    /// A signature that does not verify (altered bytes of the signature, or a payload altered after
    /// signing) proves nothing but tampering: `invalid`, revoked `invalid_receipt`.
    @Test func aBrokenSignatureIsInvalidAndRevoked() throws {
        try Self.night { apple, pki, database, db in
            func period(_ id: String) -> String {
                pki.transaction(
                    id: id, product: "monthly", signed: Self.day(-5), purchased: Self.day(-5), expires: Self.day(25))
            }
            let signature = try World.holder(
                db, "u-signature", Self.brokenSignature(period("14101")), "premium", expires: Self.day(25))
            let payload = try World.holder(
                db, "u-payload", Rows.tampered(period("14201")), "premium", expires: Self.day(25))

            let result = try Self.run(Rows.environment(database, pki, apple))
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.outcome(db, signature) == "invalid")
            #expect(try World.outcome(db, payload) == "invalid")
            #expect(try World.flags(db) == ["u-signature invalid_receipt", "u-payload invalid_receipt"])
            #expect(
                try World.corrections(db) == [
                    "u-signature premium revoke invalid_receipt", "u-payload premium revoke invalid_receipt",
                ])
            #expect(try World.active(db).isEmpty)
            #expect(apple.received.isEmpty)
        }
    }

    // MARK: Case 15: verify-user says which kind of unverified

    /// Support asks "will it fix itself?": `verify-user` says, for an `unverified` row, whether it is
    /// transient (asking again may change it) or permanent (it will not).
    @Test func verifyUserSaysWhetherAnUnverifiedRowIsTransientOrPermanent() throws {
        try Self.nightWithAnotherRoot { apple, trusted, other, database, db in
            try World.row(
                db, "u-root",
                other.transaction(
                    id: "15101", product: "monthly", signed: Self.day(-5), purchased: Self.day(-5),
                    expires: Self.day(25)))
            try World.entitlement(db, "u-root", "premium", expires: Self.day(25))
            // Apple busy (21009, retryable) for this receipt, every time.
            try World.holder(db, "u-busy", "UkVDRUlQVC1CVVNZ", "premium", expires: Self.day(25))
            apple.answer("UkVDRUlQVC1CVVNZ", with: .status(21_009))
            let environment = Rows.environment(database, trusted, apple)

            let permanent = try ReceiptReconBinary.run(
                ["verify-user", "u-root", "--as-of", Self.asOf, "--max-attempts", "2"], environment: environment)
            #expect([0, 1].contains(permanent.status), "\(permanent.output)")
            #expect(permanent.stdout.contains("unverified 1"), "\(permanent.stdout)")
            #expect(permanent.stdout.contains("permanent"), "\(permanent.stdout)")
            #expect(!permanent.stdout.contains("transient"), "\(permanent.stdout)")

            let transient = try ReceiptReconBinary.run(
                ["verify-user", "u-busy", "--as-of", Self.asOf, "--max-attempts", "2"], environment: environment)
            #expect([0, 1].contains(transient.status), "\(transient.output)")
            #expect(transient.stdout.contains("unverified 1"), "\(transient.stdout)")
            #expect(transient.stdout.contains("transient"), "\(transient.stdout)")
            #expect(!transient.stdout.contains("permanent"), "\(transient.stdout)")
            // The untrusted row keeps nothing (issue 35); the transient one holds the busy user's back.
            #expect(permanent.stdout.contains("keep nothing"), "\(permanent.stdout)")
            #expect(try World.active(db) == ["u-busy premium"])
        }
    }
}
