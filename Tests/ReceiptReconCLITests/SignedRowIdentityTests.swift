import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// A StoreKit 2 row that names no `environment` or no `bundleId` is never taken as the database's own
/// (issue 35 point 5): Apple's `verify_and_decode_signed_transaction` refuses it (INVALID_ENVIRONMENT,
/// INVALID_APP_IDENTIFIER), so the job refuses it as it refuses data that fails verification of that
/// kind: `invalid_receipt` without an environment, `bundle_mismatch` without a bundle id. Through the
/// built binary under `--backend verify-receipt`, whose signed rows are judged locally.
@Suite struct SignedRowIdentityTests {
    typealias Rows = StoreKit2RowTests
    typealias World = VerdictWorld

    static func lifetime(_ pki: Rows.PKI, id: String, bundle: Bool = true, environment: Bool = true) -> String {
        var fields = [
            "\"transactionId\":\"\(id)\"", "\"originalTransactionId\":\"\(id)\"", "\"productId\":\"lifetime\"",
            "\"type\":\"Non-Consumable\"", "\"purchaseDate\":\(Rows.ms(Rows.day(-30)))",
            "\"originalPurchaseDate\":\(Rows.ms(Rows.day(-30)))", "\"signedDate\":\(Rows.ms(Rows.day(-1)))",
            "\"inAppOwnershipType\":\"PURCHASED\"", "\"quantity\":1",
        ]
        if bundle { fields.append("\"bundleId\":\"com.example\"") }
        if environment { fields.append("\"environment\":\"Production\"") }
        return pki.chain.sign(payload: Array(("{" + fields.joined(separator: ",") + "}").utf8))
    }

    @Test func aSignedRowWithoutEnvironmentOrBundleIDIsRefusedAsApplesVerifierRefusesIt() throws {
        let apple = try ScriptedAppleServer()
        let pki = try Rows.PKI()
        defer { pki.remove() }
        try TestDatabase.with { database in
            let db = try database.connect()
            try World.seedProducts(db)
            for (user, id, bundle, environment) in [
                ("u-control", "13101", true, true), ("u-no-environment", "13201", true, false),
                ("u-no-bundle", "13301", false, true),
            ] {
                try World.holder(
                    db, user, Self.lifetime(pki, id: id, bundle: bundle, environment: environment), "pro", expires: nil,
                    updated: Rows.day(-20))
            }
            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Rows.asOf, "--json", "--max-attempts", "2"],
                environment: Rows.environment(database, pki, apple).merging(["APPLE_BUNDLE_IDS": "com.example"]) {
                    $1
                })
            #expect([0, 1].contains(result.status), "\(result.output)")
            #expect(apple.received.isEmpty, "a signed row is never sent to verifyReceipt")
            #expect(
                try World.strings(
                    db,
                    """
                    SELECT r.user_id || ' ' || x.outcome AS s FROM recon_results x JOIN receipts r ON r.id = x.receipt_id
                    """)
                    == ["u-control valid", "u-no-environment invalid", "u-no-bundle invalid"])
            #expect(
                try World.strings(db, "SELECT user_id || ' ' || kind AS s FROM recon_flags")
                    == ["u-no-environment invalid_receipt", "u-no-bundle bundle_mismatch"])
            // The refused rows prove no purchase: the entitlements they alone claimed are not kept.
            #expect(
                try World.strings(db, "SELECT user_id AS s FROM entitlements WHERE active") == ["u-control"])
        }
    }
}
