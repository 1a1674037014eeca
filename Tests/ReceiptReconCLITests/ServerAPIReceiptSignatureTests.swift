import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `run --backend server-api` checks an app receipt's PKCS#7 signature before asking Apple about it
/// (CONTRACT §9): Apple never sees the receipt there, so a receipt whose signature fails (altered
/// content, a foreign signer, no signature at all) is `invalid` without a request, and the
/// entitlement it claims is revoked; a signed one is asked about as before, an iOS 6 receipt too.
@Suite struct ServerAPIReceiptSignatureTests {
    typealias Run = ServerAPIRunTests
    typealias Transaction = ServerAPIScriptTransaction

    static func receipt(_ id: String) -> LocalReceipt {
        LocalReceipt(
            environment: "Production", bundleID: "com.example", creationDate: Run.day(-40),
            inApp: [
                LocalReceipt.InAppPurchase(
                    quantity: 1, productID: "monthly", transactionID: id, purchaseDate: Run.day(-20),
                    originalTransactionID: id, productType: 3, expiresDate: Run.day(10))
            ])
    }

    /// `base64` with the first occurrence of `old` replaced by `new` (same length) in its bytes.
    static func altering(_ base64: String, _ old: String, _ new: String) throws -> String {
        var bytes = [UInt8](try #require(Data(base64Encoded: base64)))
        let needle = Array(old.utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) })
        bytes.replaceSubrange(at..<at + needle.count, with: Array(new.utf8))
        return Data(bytes).base64EncodedString()
    }

    @Test func receiptsWhoseSignatureFailsAreInvalidWithoutARequest() throws {
        let api = try Run.server()
        let foreign = try SigningChain.mint(
            name: "a forger", notBefore: Run.day(-400), notAfter: Run.day(400))
        try TestDatabase.with { database in
            let db = try database.connect()
            try Run.seedTables(db)
            // Signed by the trusted chain: asked about, found.
            try Run.receipt(db, "u-good", api.signedAppReceipt(Self.receipt("1001")))
            try Run.premium(db, "u-good", expires: Run.day(10))
            // Altered after signing: another (real-looking) transaction id in the signed content.
            try Run.receipt(
                db, "u-altered", try Self.altering(api.signedAppReceipt(Self.receipt("1002")), "1002", "1001"))
            try Run.premium(db, "u-altered", expires: Run.day(10))
            // Signed by a chain the run does not trust.
            try Run.receipt(db, "u-foreign", try ReceiptSigner(chain: foreign).base64(Self.receipt("1003")))
            try Run.premium(db, "u-foreign", expires: Run.day(10))
            // Not signed at all.
            try Run.receipt(db, "u-unsigned", LocalReceiptEncoder.base64(Self.receipt("1004")))
            try Run.premium(db, "u-unsigned", expires: Run.day(10))
            // An iOS 6 receipt has no PKCS#7 signature: asked about as before.
            var ios6 = Self.receipt("1005")
            ios6.format = .transactionReceipt
            try Run.receipt(db, "u-ios6", LocalReceiptEncoder.base64(ios6))
            try Run.premium(db, "u-ios6", expires: Run.day(10))
            for id in ["1001", "1002", "1003", "1004", "1005"] {
                api.script(
                    .production, .transactionHistory, id: id,
                    [.history([Transaction(id: id, purchased: Run.day(-20), expires: Run.day(10))])])
            }

            let result = try Run.run(database, api)
            #expect([0, 1].contains(result.status), "\(result.output)")
            #expect(
                try Run.outcomes(db) == [
                    "u-good valid", "u-altered invalid", "u-foreign invalid", "u-unsigned invalid", "u-ios6 valid",
                ])
            // Only the good receipt's and the iOS 6 receipt's ids were asked about.
            #expect(
                Set(api.receivedAboutPurchases.map(\.id)) == ["1001", "1005"], "\(api.receivedAboutPurchases.map(\.id))"
            )
            let flags = try Run.strings(db, "SELECT user_id || ' ' || kind AS s FROM recon_flags")
            #expect(
                flags.isSuperset(of: [
                    "u-altered invalid_receipt", "u-foreign invalid_receipt", "u-unsigned invalid_receipt",
                ]),
                "\(flags)")
            let corrections = try Run.corrections(db)
            #expect(
                corrections.isSuperset(of: [
                    "u-altered premium revoke invalid_receipt", "u-foreign premium revoke invalid_receipt",
                    "u-unsigned premium revoke invalid_receipt",
                ]), "\(corrections)")
            #expect(!corrections.contains { $0.hasPrefix("u-good ") || $0.hasPrefix("u-ios6 ") }, "\(corrections)")

            let details = try Run.strings(
                db,
                "SELECT r.user_id || ': ' || x.detail AS s FROM recon_results x JOIN receipts r ON r.id = x.receipt_id WHERE x.outcome = 'invalid'"
            )
            #expect(
                details.contains {
                    $0.hasPrefix("u-altered: ") && $0.contains("the signature does not match the receipt content")
                },
                "\(details)")
            #expect(
                details.contains { $0.hasPrefix("u-foreign: ") && $0.contains("does not chain to the configured root") }
            )
            #expect(details.contains { $0.hasPrefix("u-unsigned: ") && $0.contains("not signed") })
            // Receipt data never reaches the output.
            #expect(!result.output.contains(api.signedAppReceipt(Self.receipt("1001")).prefix(40)))
        }
    }

    /// Without `APPLE_ROOT_CERTIFICATES`, Apple Inc. Root CA is the only root: the test chain's receipts fail.
    @Test func theBuiltInRootRejectsTheTestChain() throws {
        let api = try Run.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Run.seedTables(db)
            try Run.receipt(db, "u-good", api.signedAppReceipt(Self.receipt("1001")))
            var environment = api.environment.merging([
                "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
            ]) {
                $1
            }
            environment["APPLE_ROOT_CERTIFICATES"] = nil
            let result = try ReceiptReconBinary.run(
                ["run", "--backend", "server-api", "--older-than", "0", "--as-of", Run.asOf, "--json"],
                environment: environment)
            #expect([0, 1].contains(result.status), "\(result.output)")
            #expect(try Run.outcomes(db) == ["u-good invalid"])
            #expect(api.receivedAboutPurchases.isEmpty)
        }
    }

    /// Under `--backend verify-receipt`, Apple checks its own signature: receipts are sent unjudged,
    /// whatever their signature (no local verdict; the scripted Apple here accepts everything).
    @Test func underVerifyReceiptReceiptsGoToAppleUnjudged() throws {
        let apple = try ScriptedAppleServer()
        let foreign = try SigningChain.mint(name: "a forger", notBefore: Run.day(-400), notAfter: Run.day(400))
        apple.answerEverythingElse(
            with: .valid([
                ScriptedAppleServer.Purchase(
                    product: "monthly", transactionID: "1003", originalTransactionID: "1003", purchased: Run.day(-20),
                    expires: Run.day(10))
            ]))
        try TestDatabase.with { database in
            let db = try database.connect()
            try Run.seedTables(db)
            try Run.receipt(db, "u-foreign", try ReceiptSigner(chain: foreign).base64(Self.receipt("1003")))
            try Run.receipt(db, "u-unsigned", LocalReceiptEncoder.base64(Self.receipt("1003")))
            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Run.asOf, "--json"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect([0, 1].contains(result.status), "\(result.output)")
            #expect(try Run.outcomes(db) == ["u-foreign valid", "u-unsigned valid"])
            #expect(apple.received.count == 2)
        }
    }
}
