import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// What proves a purchase absent, and what an answer without a verdict holds back (issue 25; CONTRACT
/// §9 "What proves a purchase absent", "Signed rows"; §5): the built binary with `--backend server-api`
/// against a scripted App Store Server API. Each case asserts what support would see: the row's outcome
/// (and `transient` / `permanent` in its detail), the flags, the corrections, the entitlements after,
/// the exit code and what Apple was asked.
@Suite struct VerdictsServerAPITests {
    typealias World = VerdictWorld
    typealias Transaction = ServerAPIScriptTransaction
    static func day(_ offset: Double) -> Date { World.day(offset) }

    /// A user holding two rows: a period (`monthly` `periodID`, ten days old, running to day 20) and a
    /// lifetime purchase (`lifetimeID`, 100 days old), with the app's `premium` and `pro` rows for them;
    /// the two rows' ids.
    static func periodAndLifetime(
        _ db: PostgresConnection, _ api: ScriptedServerAPI, _ user: String, period periodID: String,
        lifetime lifetimeID: String
    ) throws -> (period: Int64, lifetime: Int64) {
        let period = try World.row(
            db, user, api.sign(World.monthly(periodID, purchased: day(-10), expires: day(20))))
        let lifetime = try World.row(db, user, api.sign(World.lifetime(lifetimeID, purchased: day(-100))))
        try World.entitlement(db, user, "premium", expires: day(20))
        try World.entitlement(db, user, "pro", expires: nil)
        return (period, lifetime)
    }

    /// An app receipt naming `purchases`, as the device sent it: signed by `api`'s chain (app receipts
    /// are verified locally under `--backend server-api`, PKCS#7 to the configured root). The ONE place
    /// these tests build app receipts.
    static func appReceipt(
        _ api: ScriptedServerAPI, bundleID: String = "com.example", _ purchases: [Transaction]
    ) -> String {
        let receipt = LocalReceipt(
            environment: "Production", bundleID: bundleID, creationDate: Self.day(-40),
            inApp: purchases.map {
                LocalReceipt.InAppPurchase(
                    quantity: 1, productID: $0.product, transactionID: $0.id, purchaseDate: $0.purchased,
                    originalTransactionID: $0.originalID, productType: $0.expires == nil ? nil : 3,
                    expiresDate: $0.expires)
            })
        return api.signedAppReceipt(receipt)
    }

    static let notFound = ScriptedServerAPI.Answer.error(4_040_010, status: 404)

    /// Every way Apple says "not here" for an id: 4040010, 4040005, and a history that does not hold it.
    static let notHere: [(String, ScriptedServerAPI.Answer)] = [
        ("4040010", notFound), ("4040005", .error(4_040_005, status: 404)),
        ("a history without it", .history([World.monthly("1999", purchased: day(-400), expires: day(-370))])),
    ]

    // MARK: Case 1: an id Apple cannot look up, listed by the history of the customer's other id

    /// Apple: "in rare cases, you might get this error for transaction IDs that previously returned
    /// data". "Not here" in both environments (4040010, 4040005, a history without the id) proves nothing
    /// while another history of the same customer, fetched in the same run, lists the id: the rows are
    /// `valid`, nobody loses anything.
    @Test(arguments: notHere)
    func anIDBothEnvironmentsCannotFindIsFoundInTheCustomersOtherHistory(
        _ named: String, _ notHere: ScriptedServerAPI.Answer
    ) throws {
        try World.seeded { api, database, db in
            // Two signed rows of one customer; the one Apple cannot look up is stored (and asked) first.
            let pro = World.lifetime("1101", purchased: Self.day(-100))
            let period = World.monthly("1102", purchased: Self.day(-10), expires: Self.day(20))
            let lostRow = try World.row(db, "u-rows", api.sign(pro))
            let keptRow = try World.holder(db, "u-rows", api.sign(period), "pro", expires: nil)
            try World.entitlement(db, "u-rows", "premium", expires: Self.day(20))
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "1101", [notHere])
            }
            api.script(.production, .transactionHistory, id: "1102", [.history([pro, period])])
            // One app receipt naming both purchases of another customer, the lost one first.
            let receiptPro = World.lifetime("1201", purchased: Self.day(-100))
            let receiptPeriod = World.monthly("1202", purchased: Self.day(-10), expires: Self.day(20))
            let receiptRow = try World.holder(
                db, "u-receipt", Self.appReceipt(api, [receiptPro, receiptPeriod]), "pro", expires: nil)
            try World.entitlement(db, "u-receipt", "premium", expires: Self.day(20))
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "1201", [notHere])
            }
            api.script(.production, .transactionHistory, id: "1202", [.history([receiptPro, receiptPeriod])])

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(named): \(result.output)")
            for row in [lostRow, keptRow, receiptRow] {
                let judged = try World.result(db, row)
                #expect(judged?.outcome == "valid", "\(named): \(String(describing: judged))")
            }
            let corrections = try World.corrections(db)
            #expect(corrections.isEmpty, "\(corrections)")
            let flags = try World.flags(db)
            #expect(flags.isEmpty, "\(flags)")
            #expect(
                try World.active(db) == ["u-rows pro", "u-rows premium", "u-receipt pro", "u-receipt premium"])
        }
    }

    // MARK: Case 2: an id Apple answered for before is a permanent unverified, which holds back nothing else

    /// Run 1 records Apple's answer for 2101 (`recon_transactions`); in run 2 Apple cannot find it in
    /// either environment, and refunds the customer's lifetime purchase. 2101 is `unverified`
    /// (permanent): `premium`, which it names, is kept; the refund of `pro` is revoked all the same.
    @Test func anIDAppleAnsweredForBeforeIsPermanentAndHoldsBackNoOtherRevoke() throws {
        try World.seeded { api, database, db in
            let period = World.monthly("2101", purchased: Self.day(-10), expires: Self.day(20))
            let pro = World.lifetime("2102", purchased: Self.day(-100))
            let (periodRow, proRow) = try Self.periodAndLifetime(db, api, "u-known", period: "2101", lifetime: "2102")
            api.script(.production, .transactionHistory, id: "2101", [.history([period, pro])])
            api.script(.production, .transactionHistory, id: "2102", [.history([period, pro])])

            let first = try World.run(database, api)
            #expect(first.status == 0, "\(first.output)")
            #expect(try World.corrections(db).isEmpty)
            #expect(
                try World.strings(db, "SELECT transaction_id AS s FROM recon_transactions").isSuperset(of: [
                    "2101", "2102",
                ]))

            // Apple now cannot find 2101 anywhere, and its history (asked by 2102) no longer lists it.
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "2101", [Self.notFound])
            }
            let refunded = World.lifetime("2102", purchased: Self.day(-100), revoked: Self.day(-1))
            api.script(.production, .transactionHistory, id: "2102", [.history([refunded])])
            let asked = World.requests(api, "2101")

            // A permanent unverified is an answer: the night is complete (exit 0), the row flagged.
            let second = try World.run(database, api)
            #expect(second.status == 0, "\(second.output)")
            let lost = try #require(try World.result(db, periodRow))
            #expect(lost.outcome == "unverified")
            #expect(lost.detail.contains("permanent") && !lost.detail.contains("transient"), "\(lost.detail)")
            #expect(try World.outcome(db, proRow) == "valid")
            // Both environments were asked, once each.
            #expect(World.requests(api, "2101") - asked == 2)
            #expect(try World.corrections(db, run: 2) == ["u-known pro revoke refund"])
            let flags = try World.flags(db, run: 2)
            #expect(flags.isSuperset(of: ["u-known unverified", "u-known refunded"]), "\(flags)")
            #expect(!flags.contains("u-known invalid_receipt"), "\(flags)")
            #expect(try World.active(db) == ["u-known premium"])
            #expect(World.same(try World.activeUntil(db, "u-known", "premium"), Self.day(20)))
        }
    }

    /// The contrast: a transient `unverified` (a 5xx, a 429 storm) may hide anything, so the same refund
    /// is not revoked in this run.
    @Test(arguments: [
        ("5000000", ScriptedServerAPI.Answer.error(5_000_000, status: 500)),
        ("429", .tooManyRequests(retryAfter: .milliseconds(50))),
    ])
    func aTransientUnverifiedHoldsBackTheRefundRevoke(_ named: String, _ answer: ScriptedServerAPI.Answer) throws {
        try World.seeded { api, database, db in
            let (periodRow, proRow) = try Self.periodAndLifetime(
                db, api, "u-transient", period: "2201", lifetime: "2202")
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "2201", [answer])
            }
            api.script(
                .production, .transactionHistory, id: "2202",
                [.history([World.lifetime("2202", purchased: Self.day(-100), revoked: Self.day(-1))])])

            let result = try World.run(database, api)
            #expect(result.status == 1, "\(named): \(result.output)")
            let stuck = try #require(try World.result(db, periodRow))
            #expect(stuck.outcome == "unverified")
            #expect(stuck.detail.contains("transient") && !stuck.detail.contains("permanent"), "\(stuck.detail)")
            #expect(try World.outcome(db, proRow) == "valid")
            let corrections = try World.corrections(db)
            #expect(corrections.isEmpty, "\(named): \(corrections)")
            #expect(try World.flags(db).contains("u-transient unverified"))
            #expect(try World.active(db) == ["u-transient premium", "u-transient pro"])
        }
    }

    // MARK: Case 3: an account or app Apple no longer finds

    /// 4040001 (account not found), 4040003 (app not found), 4040019: one hop like 4040010; found in the
    /// other environment, `misrouted`; found nowhere, a permanent `unverified` that keeps what it names
    /// (a deleted Apple Account keeps its lifetime unlock), never `invalid`.
    @Test(arguments: [4_040_001, 4_040_003, 4_040_019])
    func anAccountOrAppAppleNoLongerFindsIsPermanentNeverInvalid(_ code: Int) throws {
        try World.seeded { api, database, db in
            let goneRow = try World.holder(
                db, "u-gone", api.sign(World.lifetime("3101", purchased: Self.day(-300))), "pro", expires: nil)
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "3101", [.error(code, status: 404)])
            }
            let hopRow = try World.holder(
                db, "u-hop", api.sign(World.lifetime("3201", purchased: Self.day(-300))), "pro", expires: nil)
            api.script(.production, .transactionHistory, id: "3201", [.error(code, status: 404)])
            api.script(
                .sandbox, .transactionHistory, id: "3201",
                [.history([World.lifetime("3201", purchased: Self.day(-300))])])

            let result = try World.run(database, api)
            // Permanent unverified rows are Apple's answer: the night completes (exit 0).
            #expect(result.status == 0, "\(code): \(result.output)")
            let gone = try #require(try World.result(db, goneRow))
            #expect(gone.outcome == "unverified", "\(code): \(gone)")
            #expect(gone.detail.contains("permanent") && !gone.detail.contains("transient"), "\(code): \(gone.detail)")
            // Asked in production, then once in sandbox.
            #expect(
                api.received.filter { $0.id == "3101" }.map(\.environment) == [.production, .sandbox], "\(code)")
            #expect(try World.outcome(db, hopRow) == "misrouted", "\(code)")
            let flags = try World.flags(db)
            #expect(flags.isSuperset(of: ["u-gone unverified", "u-hop sandbox_in_production"]), "\(code): \(flags)")
            #expect(!flags.contains("u-gone invalid_receipt"), "\(code): \(flags)")
            // The sandbox purchase does not count in production (--sandbox-policy revoke, the default).
            #expect(try World.corrections(db) == ["u-hop pro revoke wrong_environment"], "\(code)")
            #expect(try World.active(db) == ["u-gone pro"], "\(code)")
        }
    }

    // MARK: Case 4: an id Apple refuses the format of

    /// 4000006 / 4000008: Apple says the id is not one it could ever have issued (a crafted receipt):
    /// `invalid`, revoked `invalid_receipt`, and, unlike an `unverified`, it holds back nothing: the
    /// same user's refund is revoked in the same run.
    @Test(arguments: [4_000_006, 4_000_008])
    func anIDAppleRefusesIsInvalidAndHoldsBackNothing(_ code: Int) throws {
        try World.seeded { api, database, db in
            let (craftedRow, proRow) = try Self.periodAndLifetime(db, api, "u-badid", period: "4101", lifetime: "4102")
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "4101", [.error(code, status: 400)])
            }
            api.script(
                .production, .transactionHistory, id: "4102",
                [.history([World.lifetime("4102", purchased: Self.day(-100), revoked: Self.day(-1))])])

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(code): \(result.output)")
            #expect(try World.outcome(db, craftedRow) == "invalid", "\(code)")
            #expect(try World.outcome(db, proRow) == "valid", "\(code)")
            let flags = try World.flags(db)
            #expect(flags.isSuperset(of: ["u-badid invalid_receipt", "u-badid refunded"]), "\(code): \(flags)")
            let corrections = try World.corrections(db)
            #expect(
                corrections == ["u-badid premium revoke invalid_receipt", "u-badid pro revoke refund"],
                "\(code): \(corrections)")
            #expect(try World.active(db).isEmpty, "\(code)")
        }
    }

    // MARK: Case 5: an id that is not decimal digits

    /// An App Store transaction id is decimal digits; anything else was crafted. Decided before asking:
    /// no request at all, `invalid`, revoked `invalid_receipt`.
    @Test(arguments: ["12ab", "-1234", "12.5", "١٢٣٤", "12 34", "../1234"])
    func anIDThatIsNotDecimalDigitsIsInvalidWithoutARequest(_ id: String) throws {
        try World.seeded { api, database, db in
            let row = try World.row(
                db, "u-crafted",
                api.sign(World.monthly(id, original: "1234", purchased: Self.day(-10), expires: Self.day(20))))
            try World.entitlement(db, "u-crafted", "premium", expires: Self.day(20))

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(id): \(result.output)")
            #expect(try World.outcome(db, row) == "invalid", "\(id)")
            #expect(try World.flags(db) == ["u-crafted invalid_receipt"], "\(id)")
            #expect(try World.corrections(db) == ["u-crafted premium revoke invalid_receipt"], "\(id)")
            #expect(api.receivedAboutPurchases.isEmpty, "\(id): \(api.receivedAboutPurchases.map(\.path))")
            #expect(try World.active(db).isEmpty)
        }
    }

    // MARK: Case 6: a row of another app

    /// A row whose bundle id is not one of `APPLE_BUNDLE_IDS` is decided locally: `bundle_mismatch`,
    /// no request, and its bundle id never becomes a JWT's `bid`.
    @Test func aRowOfAnotherAppIsABundleMismatchWithoutARequest() throws {
        try World.seeded { api, database, db in
            let foreign = Transaction(
                id: "6101", bundleID: "com.other", purchased: Self.day(-10), expires: Self.day(20))
            let jwsRow = try World.holder(db, "u-foreign-jws", api.sign(foreign), "premium", expires: Self.day(20))
            let receiptRow = try World.row(
                db, "u-foreign-receipt",
                Self.appReceipt(
                    api, bundleID: "com.other", [World.monthly("6201", purchased: Self.day(-10), expires: Self.day(20))]
                ))
            try World.entitlement(db, "u-foreign-receipt", "premium", expires: Self.day(20))
            // Someone of this app, so the run does talk to Apple.
            let period = World.monthly("6301", purchased: Self.day(-10), expires: Self.day(20))
            let okRow = try World.holder(db, "u-ok", api.sign(period), "premium", expires: Self.day(20))
            api.script(.production, .transactionHistory, id: "6301", [.history([period])])
            // Were they asked about, Apple would vouch for them: only the local check can make them invalid.
            api.script(.production, .transactionHistory, id: "6101", [.history([foreign])])
            api.script(
                .production, .transactionHistory, id: "6201",
                [.history([World.monthly("6201", purchased: Self.day(-10), expires: Self.day(20))])])

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.outcome(db, jwsRow) == "invalid")
            #expect(try World.outcome(db, receiptRow) == "invalid")
            #expect(try World.outcome(db, okRow) == "valid")
            #expect(try World.flags(db) == ["u-foreign-jws bundle_mismatch", "u-foreign-receipt bundle_mismatch"])
            #expect(
                try World.corrections(db) == [
                    "u-foreign-jws premium revoke bundle_mismatch", "u-foreign-receipt premium revoke bundle_mismatch",
                ])
            #expect(Set(api.receivedAboutPurchases.map(\.id)) == ["6301"], "\(api.receivedAboutPurchases.map(\.path))")
            #expect(!api.received.isEmpty && api.received.allSatisfy { $0.token?.bid == "com.example" })
        }
    }

    // MARK: Case 7: Apple refuses the key for one app

    /// With two apps configured, Apple refusing the key for the second app's bid (401 even with a fresh
    /// token, or 4000002) is that app's rows' permanent `unverified`: the run goes on, everyone else is
    /// corrected.
    @Test(arguments: [("401", ScriptedServerAPI.Answer.unauthorized), ("4000002", .error(4_000_002, status: 400))])
    func aRefusedBidOfOneRowIsThatRowsPermanentUnverified(_ named: String, _ answer: ScriptedServerAPI.Answer)
        throws
    {
        try World.seeded { api, database, db in
            let other = Transaction(
                id: "7101", bundleID: "com.example.other", purchased: Self.day(-10), expires: Self.day(20))
            let otherRow = try World.holder(db, "u-other", api.sign(other), "premium", expires: Self.day(20))
            let refundRow = try World.refundedSubscriber(
                db, api, "u-refund", "7201", purchased: Self.day(-20), expires: Self.day(10))
            api.scriptBundleID("com.example.other", [answer])

            let result = try World.run(database, api, bundleIDs: "com.example,com.example.other")
            #expect([0, 1].contains(result.status), "\(named): \(result.output)")
            let refused = try #require(try World.result(db, otherRow))
            #expect(refused.outcome == "unverified", "\(named): \(refused)")
            #expect(
                refused.detail.contains("permanent") && !refused.detail.contains("transient"),
                "\(named): \(refused.detail)")
            #expect(try World.outcome(db, refundRow) == "valid")
            #expect(try World.corrections(db) == ["u-refund premium revoke refund"], "\(named)")
            #expect(try World.flags(db).contains("u-other unverified"))
            #expect(try World.active(db) == ["u-other premium"])
            // The refused bid was the row's own, and only the row's own lookups carried it.
            let refusedRequests = api.receivedAboutPurchases.filter { $0.token?.bid == "com.example.other" }
            #expect(!refusedRequests.isEmpty && refusedRequests.allSatisfy { $0.id == "7101" })
            #expect(api.received.filter { $0.id == "7201" }.allSatisfy { $0.token?.bid == "com.example" })
        }
    }

    /// The default bid (the first of `APPLE_BUNDLE_IDS`) refused is a configuration error: exit 78 and
    /// no correction for anyone, not even for a refund the other app's bid was answered about.
    @Test(arguments: [("401", ScriptedServerAPI.Answer.unauthorized), ("4000002", .error(4_000_002, status: 400))])
    func theDefaultBidRefusedIsExit78WithoutAnyCorrection(_ named: String, _ answer: ScriptedServerAPI.Answer)
        throws
    {
        try World.seeded { api, database, db in
            let other = Transaction(
                id: "7301", bundleID: "com.example.other", purchased: Self.day(-20), expires: Self.day(10))
            try World.holder(db, "u-other", api.sign(other), "premium", expires: Self.day(10))
            api.script(
                .production, .transactionHistory, id: "7301", [.history([World.refunded(other, on: Self.day(-1))])])
            try World.holder(
                db, "u-default", api.sign(World.monthly("7302", purchased: Self.day(-10), expires: Self.day(20))),
                "premium", expires: Self.day(20))
            api.scriptBundleID("com.example", [answer])

            let result = try World.run(database, api, bundleIDs: "com.example,com.example.other")
            #expect(result.status == 78, "\(named): \(result.output)")
            #expect(result.stderr.contains(named), "\(result.stderr)")
            #expect(try World.strings(db, "SELECT count(*)::text AS s FROM recon_corrections") == ["0"], "\(named)")
            #expect(try World.active(db) == ["u-other premium", "u-default premium"], "\(named)")
        }
    }

    // MARK: Case 11: a signed row whose signature fails is looked up by its transactionId

    /// Under `--backend server-api` Apple's verified answer decides a row's fate, not the row's own
    /// signature: a forged row of a real purchase is `valid`; a forged row of no purchase (not here in
    /// either environment, however Apple says so) is `invalid`.
    @Test(arguments: notHere)
    func aForgedSignedRowIsJudgedByWhatAppleSaysOfItsID(_ named: String, _ notHere: ScriptedServerAPI.Answer) throws {
        try World.seeded { api, database, db in
            var knownForgery = World.monthly("11101", purchased: Self.day(-10), expires: Self.day(20))
            knownForgery.forged = true
            let knownRow = try World.holder(
                db, "u-forged-known", api.sign(knownForgery), "premium", expires: Self.day(20))
            api.script(
                .production, .transactionHistory, id: "11101",
                [.history([World.monthly("11101", purchased: Self.day(-10), expires: Self.day(20))])])
            var unknownForgery = World.monthly("11201", purchased: Self.day(-10), expires: Self.day(20))
            unknownForgery.forged = true
            let unknownRow = try World.holder(
                db, "u-forged-unknown", api.sign(unknownForgery), "premium", expires: Self.day(20))
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "11201", [notHere])
            }

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(named): \(result.output)")
            #expect(try World.outcome(db, knownRow) == "valid")
            #expect(try World.outcome(db, unknownRow) == "invalid", "\(named)")
            #expect(World.requests(api, "11101") == 1)
            #expect(World.requests(api, "11201") == 2, "both environments asked")
            #expect(try World.flags(db) == ["u-forged-unknown invalid_receipt"])
            #expect(try World.corrections(db) == ["u-forged-unknown premium revoke invalid_receipt"])
            #expect(try World.active(db) == ["u-forged-known premium"])
        }
    }
}
