import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// The Server API routes over HTTP, as a client following Apple's protocol sees them: tokens minted with
/// the seeded key, answers verified against the seeded chain.
@Suite struct ServerAPIEndpointTests {
    typealias Fixture = ServerAPIFixture

    /// An account with 45 more transactions (coins bought daily) than the world gives anyone.
    static func longHistory() throws -> (unit: WorldUnit, id: String, count: Int) {
        let (unit, user) = try #require(Fixture.cases[.subscriptionActive])
        let slot = try #require(unit.receipts[user.receipts[0].slot].account)
        var long = unit
        let base =
            WorldUnitBuilder.transactionIDBase + UInt64(unit.index) * WorldUnitBuilder.accountsPerUnit
            * WorldUnitBuilder.transactionsPerAccount + UInt64(slot) * WorldUnitBuilder.transactionsPerAccount
        let first = long.accounts[slot].transactions[0]
        for day in 0..<45 {
            let id = String(base + 50_000 + UInt64(day))
            let at = first.purchaseMs - Int64(day + 1) * SubscriptionClock.millisecondsPerDay
            long.accounts[slot].transactions.append(
                WorldTransaction(
                    productID: WorldCatalog.coins.id, transactionID: id, originalTransactionID: id, purchaseMs: at,
                    originalPurchaseMs: at, expiresMs: nil, refund: nil, upgradedAt: nil, isTrialPeriod: false,
                    isInIntroOfferPeriod: false, webOrderLineItemID: nil, ownership: .purchased, quantity: 1))
        }
        return (long, first.transactionID, long.accounts[slot].transactions.count)
    }

    @Test func historyPagesByTwentyWithRevisionAndHasMore() async throws {
        let (long, id, count) = try Self.longHistory()
        #expect(count > 40)
        let world = Fixture.world
        let units: @Sendable (Int) -> WorldUnit = { $0 == long.index ? long : world.unit($0) }
        try await withServerAPISimulator(units: units) { simulator in
            let verifier = Fixture.verifier(.production)
            var revision: String?
            var seen: [String] = []
            var purchases: [Date] = []
            var pages = 0
            repeat {
                let query = revision.map { "?revision=\($0)" } ?? ""
                let response = try simulator.get("/production/inApps/v2/history/\(id)\(query)", token: Fixture.token())
                #expect(response.status == 200)
                let json = response.json
                let signed = try #require(json["signedTransactions"] as? [String])
                #expect(signed.count == min(20, count - seen.count))
                #expect(json["bundleId"] as? String == WorldCatalog.appBundleID)
                #expect(json["environment"] as? String == "Production")
                #expect(json["appAppleId"] as? Int == 1_450_637_621)
                for jws in signed {
                    let verification = verifier.verify(Array(jws.utf8))
                    #expect(verification.isValid, "\(String(describing: verification.failure))")
                    guard case .transaction(let transaction)? = verification.payload else { continue }
                    seen.append(transaction.transactionID ?? "")
                    purchases.append(transaction.purchaseDate ?? .distantPast)
                }
                pages += 1
                revision = json["revision"] as? String
                #expect(revision != nil)
                if json["hasMore"] as? Bool != true { break }
            } while pages < 10
            #expect(pages == 3)
            #expect(seen.count == count && Set(seen).count == count)
            #expect(purchases == purchases.sorted())

            // A revision belongs to its query: with another sort it is refused.
            let first = try simulator.get("/production/inApps/v2/history/\(id)", token: Fixture.token()).json
            let next = try #require(first["revision"] as? String)
            let mixed = try simulator.get(
                "/production/inApps/v2/history/\(id)?sort=DESCENDING&revision=\(next)", token: Fixture.token())
            #expect(mixed.status == 400 && mixed.errorCode == 4_000_005)
        }
    }

    @Test func subscriptionStatusesFollowTheRenewalState() async throws {
        let expected: [(WorldScenario, Int)] = [
            (.subscriptionActive, 1), (.expiredStillActive, 2), (.billingRetryWithoutGrace, 3), (.gracePeriod, 4),
            (.refundedSubscription, 5),
        ]
        let accounts = try expected.map { (try Fixture.account($0.0), $0.1) }
        try await withServerAPISimulator { simulator in
            let verifier = Fixture.verifier(.production)
            for ((_, account, id), status) in accounts {
                let response = try simulator.get("/production/inApps/v1/subscriptions/\(id)", token: Fixture.token())
                #expect(response.status == 200)
                let data = try #require(response.json["data"] as? [[String: Any]])
                #expect(data.count == 1)
                #expect(data.first?["subscriptionGroupIdentifier"] as? String == WorldCatalog.premiumGroupID)
                let last = try #require((data.first?["lastTransactions"] as? [[String: Any]])?.first)
                #expect(last["status"] as? Int == status, "\(id)")
                let renewal = verifier.verify(Array(try #require(last["signedRenewalInfo"] as? String).utf8))
                let info = verifier.verify(Array(try #require(last["signedTransactionInfo"] as? String).utf8))
                #expect(renewal.isValid && info.isValid)
                guard case .renewalInfo(let renewalInfo)? = renewal.payload else {
                    Issue.record("no renewal info")
                    continue
                }
                #expect(renewalInfo.originalTransactionID == last["originalTransactionId"] as? String)
                let grace = account.renewals.first?.gracePeriodExpiresMs
                #expect(
                    renewalInfo.gracePeriodExpiresDate == grace.map { Date(timeIntervalSince1970: Double($0) / 1000) })
                #expect(renewalInfo.isInBillingRetryPeriod == (status == 3 || status == 4))
            }
        }
    }

    @Test func transactionInfoAndTheOtherEnvironment() async throws {
        let (_, home, homeID) = try Fixture.account(.proActive)
        let (_, _, sandboxID) = try Fixture.account(.otherEnvironmentReceipt)
        try await withServerAPISimulator { simulator in
            let info = try simulator.get("/production/inApps/v1/transactions/\(homeID)", token: Fixture.token())
            #expect(info.status == 200)
            let jws = try #require(info.json["signedTransactionInfo"] as? String)
            let verification = Fixture.verifier(.production).verify(Array(jws.utf8))
            guard case .transaction(let transaction)? = verification.payload else {
                Issue.record("not a transaction: \(String(describing: verification.failure))")
                return
            }
            #expect(verification.isValid && transaction.transactionID == homeID)
            #expect(transaction.productID == home.transactions.last?.productID)

            // A sandbox purchase: not found in production (4040010), found in the sandbox.
            let wrong = try simulator.get("/production/inApps/v1/transactions/\(sandboxID)", token: Fixture.token())
            #expect(wrong.status == 404 && wrong.errorCode == 4_040_010)
            let right = try simulator.get("/sandbox/inApps/v2/history/\(sandboxID)", token: Fixture.token())
            #expect(right.status == 200 && right.json["environment"] as? String == "Sandbox")
            let signed = try #require((right.json["signedTransactions"] as? [String])?.first)
            #expect(Fixture.verifier(.sandbox).verify(Array(signed.utf8)).isValid)

            // Unknown ids: 4040010 too. A token for an app the key is not for (the clone): 401, no body.
            let unknown = try simulator.get("/production/inApps/v2/history/1999999999999999999", token: Fixture.token())
            #expect(unknown.status == 404 && unknown.errorCode == 4_040_010)
            let otherApp = try simulator.get(
                "/production/inApps/v2/history/\(homeID)", token: Fixture.token(bundleID: WorldCatalog.cloneBundleID))
            #expect(otherApp.status == 401 && otherApp.body.isEmpty)
        }
    }

    @Test func receiptScenariosApplesCannotServe() async throws {
        let (_, _, deletedID) = try Fixture.account(.deletedAccount)
        let (unit, user) = try #require(Fixture.cases[.appleInternalError])
        let failing = try #require(unit.receipts[user.receipts[0].slot].account)
        let failingID = try #require(unit.accounts[failing].transactions.first?.transactionID)
        try await withServerAPISimulator { simulator in
            // A deleted Apple account: "account not found" in either environment.
            for environment in ["production", "sandbox"] {
                let deleted = try simulator.get(
                    "/\(environment)/inApps/v2/history/\(deletedID)", token: Fixture.token())
                #expect(deleted.status == 404 && deleted.errorCode == 4_040_001)
            }
            let broken = try simulator.get("/production/inApps/v2/history/\(failingID)", token: Fixture.token())
            #expect(broken.status == 500 && broken.errorCode == 5_000_000)
        }
    }

    @Test func badTokensAre401WithoutABody() async throws {
        let (_, _, id) = try Fixture.account(.subscriptionActive)
        let otherKey = try ServerAPIKey(
            key: #require(ES256Key.generate()), keyID: Fixture.key.keyID, issuerID: Fixture.key.issuerID)
        let now = Int64(Date().timeIntervalSince1970)
        let tokens: [String?] = [
            nil,
            Fixture.token(key: otherKey),
            Fixture.token(issuedAt: now - 3600),
            Fixture.token(lifetime: 3601),
            Fixture.token(audience: "someone-else"),
            Fixture.token(bundleID: nil),
        ]
        try await withServerAPISimulator { simulator in
            for token in tokens {
                let response = try simulator.get("/production/inApps/v2/history/\(id)", token: token)
                #expect(response.status == 401 && response.body.isEmpty)
            }
            // Python's library omits iat: accepted when exp is within the hour.
            let python = try simulator.get(
                "/production/inApps/v2/history/\(id)", token: Fixture.token(omitIssuedAt: true))
            #expect(python.status == 200)
        }
    }

    @Test func eachEndpointHasItsOwnRateLimitWithRetryAfterInMilliseconds() async throws {
        let (_, _, id) = try Fixture.account(.subscriptionActive)
        try await withServerAPISimulator(options: SimulatorOptions(rateLimit: 2, rateLimitBurst: 2)) { simulator in
            let statuses = try (0..<4).map { _ in
                try simulator.get("/production/inApps/v2/history/\(id)", token: Fixture.token())
            }
            let limited = try #require(statuses.first { $0.status == 429 })
            #expect(limited.errorCode == 4_290_000)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let retryAt = try #require(limited.headers["Retry-After"].flatMap { Int64($0) })
            #expect(retryAt > now - 1000 && retryAt < now + 2000, "\(retryAt) vs \(now)")
            // Another endpoint still answers.
            let info = try simulator.get("/production/inApps/v1/transactions/\(id)", token: Fixture.token())
            #expect(info.status == 200)
        }
    }

    @Test func faultsReachTheServerAPI() async throws {
        let (_, _, id) = try Fixture.account(.subscriptionActive)
        let options = SimulatorOptions(faultRate: 1, faultMix: [.status21005: 1])
        try await withServerAPISimulator(options: options) { simulator in
            let response = try simulator.get("/production/inApps/v1/subscriptions/\(id)", token: Fixture.token())
            #expect(response.status == 500 && response.errorCode == 5_000_001)
            #expect(simulator.stats.faultsByKind["status_21005"] == 1)
        }
    }

    @Test func withoutAKeyTheRoutesAnswer401() async throws {
        try await withSimulator(Fixture.world) { simulator in
            let response = try await TestThreads.run {
                try simulator.get("/production/inApps/v2/history/1", token: Fixture.token())
            }
            #expect(response.status == 401)
            #expect(response.text.contains("--pki-dir"))
        }
    }
}
